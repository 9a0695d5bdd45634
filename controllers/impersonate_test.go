/*
Copyright 2026 The KubAge Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package controllers

import (
	"context"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	serror "github.com/kubage/kubage/internal/errors"
	"github.com/kubage/kubage/internal/session"
)

func TestReferenceReaderHonoursTheLockdown(t *testing.T) {
	own, asSA := client.Reader(nil), client.Reader(nil)
	var asked string
	r := &ToolServerReconciler{APIReader: own, AsServiceAccount: func(ns, name string) (client.Reader, error) {
		asked = ns + "/" + name
		return asSA, nil
	}}
	withSecret := &kubagev1alpha1.ToolServer{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "logs"},
		Spec: kubagev1alpha1.ToolServerSpec{Headers: []kubagev1alpha1.HeaderSource{{Name: "Authorization",
			SecretKeyRef: &kubagev1alpha1.SecretKeyReference{Name: "tok", Key: "k"}}}}}

	if _, err := r.referenceReader(withSecret); err != nil || asked != "" {
		t.Fatalf("without the lockdown the operator reads itself: %v, asked %q", err, asked)
	}
	r.RequireServiceAccount = true
	_, err := r.referenceReader(withSecret)
	var stalled *serror.Stalling
	if !errors.As(err, &stalled) || stalled.Reason != kubagev1alpha1.ForbiddenReason {
		t.Fatalf("with the lockdown and no account: %v", err)
	}
	noSecret := withSecret.DeepCopy()
	noSecret.Spec.Headers = nil
	if _, err := r.referenceReader(noSecret); err != nil {
		t.Fatalf("nothing to read needs no account: %v", err)
	}
	named := withSecret.DeepCopy()
	named.Spec.ServiceAccountName = "logs-reader"
	if _, err := r.referenceReader(named); err != nil || asked != "shop/logs-reader" {
		t.Fatalf("a named account is used: %v, asked %q", err, asked)
	}
}

func TestKnowledgeSourceReferenceReaderHonoursTheLockdown(t *testing.T) {
	var asked string
	r := &KnowledgeSourceReconciler{AsServiceAccount: func(ns, name string) (client.Reader, error) {
		asked = ns + "/" + name
		return nil, nil
	}, RequireServiceAccount: true}
	git := &kubagev1alpha1.KnowledgeSource{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "runbooks"},
		Spec: kubagev1alpha1.KnowledgeSourceSpec{Git: &kubagev1alpha1.GitSource{URL: "https://git.shop.io/runbooks.git",
			SecretRef: &kubagev1alpha1.LocalSecretReference{Name: "git-creds"}}}}
	_, err := r.referenceReader(git)
	var stalled *serror.Stalling
	if !errors.As(err, &stalled) || stalled.Reason != kubagev1alpha1.ForbiddenReason {
		t.Fatalf("with the lockdown and no account: %v", err)
	}
	git.Spec.ServiceAccountName = "kb-reader"
	if _, err := r.referenceReader(git); err != nil || asked != "shop/kb-reader" {
		t.Fatalf("a named account is used: %v, asked %q", err, asked)
	}
}

func TestSinkResolverHonoursTheLockdown(t *testing.T) {
	var asked string
	s := &sinkResolver{asServiceAccount: func(ns, name string) (client.Reader, error) {
		asked = ns + "/" + name
		return nil, errors.New("stop here: the account was asked")
	}, requireServiceAccount: true}
	sink := &kubagev1alpha1.NotificationSink{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "oncall"},
		Spec: kubagev1alpha1.NotificationSinkSpec{Type: kubagev1alpha1.SinkWebhook, URL: kubagev1alpha1.SecretKeyReference{Name: "hook", Key: "url"}}}
	_, err := s.resolveObject(context.Background(), sink)
	var stalled *serror.Stalling
	if !errors.As(err, &stalled) || stalled.Reason != kubagev1alpha1.ForbiddenReason || asked != "" {
		t.Fatalf("with the lockdown and no account: %v, asked %q", err, asked)
	}
	sink.Spec.ServiceAccountName = "notifier"
	if _, err := s.resolveObject(context.Background(), sink); err == nil || asked != "shop/notifier" {
		t.Fatalf("a named account is used: %v, asked %q", err, asked)
	}
}

func TestSessionSecretsHonourTheLockdown(t *testing.T) {
	var asked string
	s := &sessionSecrets{defaultModel: types.NamespacedName{Namespace: "kubage-system", Name: "default-model"}, requireServiceAccount: true,
		asServiceAccount: func(ns, name string) (client.Reader, error) {
			asked = ns + "/" + name
			return nil, errors.New("stop here: the account was asked")
		}}
	_, err := s.read(context.Background(), session.SecretRef{Namespace: "shop", Name: "model"})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "spec.serviceAccountName is required") || asked != "" {
		t.Fatalf("with the lockdown and no account: %v, asked %q", err, asked)
	}
	if _, err := s.read(context.Background(), session.SecretRef{Namespace: "shop", Name: "model", ServiceAccount: "model-reader"}); err == nil || asked != "shop/model-reader" {
		t.Fatalf("a named account is used: %v, asked %q", err, asked)
	}
}
