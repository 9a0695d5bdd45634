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
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/metrics"
	"github.com/kubage/kubage/internal/notify"
	"github.com/kubage/kubage/internal/session"
	"github.com/kubage/kubage/internal/tools/registry"
)

// SetupTroubleshoot registers the Troubleshoot reconciler, its session engine and the
// kubage_ metrics with mgr. SetupAll calls it; tests that need only sessions call it alone.
func SetupTroubleshoot(mgr ctrl.Manager, opts Options) error {
	if opts.MaxConcurrentReconciles <= 0 {
		opts.MaxConcurrentReconciles = 1
	}
	engine, err := newSessionEngine(mgr, opts)
	if err != nil {
		return err
	}
	if err := metrics.Register(ctrlmetrics.Registry, phaseCounter(mgr)); err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}
	sender := opts.notifySender
	if sender == nil {
		sender = &notify.Sender{}
	}
	r := &TroubleshootReconciler{Client: mgr.GetClient(), Recorder: redactingRecorder{mgr.GetEventRecorder(eventRecorderName)}, Engine: engine, WatchSelector: opts.WatchSelector, APIReader: mgr.GetAPIReader(),
		outbox: newTroubleshootOutbox(mgr, opts, sender)}
	if err := r.SetupWithManager(mgr, opts); err != nil {
		return fmt.Errorf("setting up %T: %w", r, err)
	}
	return nil
}

// newSessionEngine fills in the defaults of opts (a clientset) and builds the operator's
// session engine; its in-process runner stops with the manager.
func newSessionEngine(mgr ctrl.Manager, opts Options) (*session.Engine, error) {
	cs := opts.Clientset
	if cs == nil {
		var err error
		if cs, err = kubernetes.NewForConfig(mgr.GetConfig()); err != nil {
			return nil, fmt.Errorf("building a clientset: %w", err)
		}
	}
	secrets := &sessionSecrets{
		operator: mgr.GetAPIReader(), defaultModel: opts.DefaultModelSecret, requireServiceAccount: opts.SecretsNeedServiceAccount,
		asServiceAccount: newImpersonatingReaders(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()}).For,
	}
	engine, stop, err := session.NewOperatorEngine(session.OperatorOptions{
		Clientset: cs, Brains: opts.Brains, Knowledge: opts.Knowledge, DefaultModel: opts.DefaultModelSecret,
		ReadSecret:  secrets.read,
		ToolServers: registry.KubeCluster(mgr.GetClient(), mgr.GetAPIReader()),
		TaskRunners: opts.TaskRunners, DefaultRunner: opts.DefaultTaskRunner, PollInterval: opts.TaskPollInterval,
		ApprovalsNeedDecidedBy: opts.ApprovalWebhook,
		MemoryEntries:          opts.IncidentMemoryEntries, MemoryRetention: opts.IncidentMemoryRetention,
	})
	if err != nil {
		return nil, err
	}
	if stop != nil {
		if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
			<-ctx.Done()
			stop()
			return nil
		})); err != nil {
			return nil, err
		}
	}
	return engine, nil
}

// sessionSecrets reads the Secrets a session names: its model (spec.model) and the
// kubeconfig of another cluster (spec.cluster). They are the author's choice, so they are
// read as the ServiceAccount the Troubleshoot names (spec.serviceAccountName), exactly as a
// ToolServer's headers are; the operator default model (--default-model-secret) is the
// administrator's and is read with the operator's rights. Under --secrets-need-service-account
// a Secret without an account is refused as Forbidden, never read by the operator.
type sessionSecrets struct {
	operator              client.Reader
	defaultModel          types.NamespacedName
	requireServiceAccount bool
	asServiceAccount      func(namespace, name string) (client.Reader, error)
}

func (m *sessionSecrets) read(ctx context.Context, ref session.SecretRef) (map[string][]byte, error) {
	key := types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}
	reader := m.operator
	switch {
	case ref.ServiceAccount != "":
		r, err := m.asServiceAccount(ref.Namespace, ref.ServiceAccount)
		if err != nil {
			return nil, err
		}
		reader = r
	case key == m.defaultModel:
		// The administrator's model, whoever names it.
	case m.requireServiceAccount:
		return nil, apierrors.NewForbidden(corev1.Resource("secrets"), ref.Name, fmt.Errorf(
			"spec.serviceAccountName is required: this operator reads the Secrets a Troubleshoot names (model, kubeconfig) only as a ServiceAccount it names, so this one is not used"))
	}
	secret := &corev1.Secret{}
	if err := reader.Get(ctx, key, secret); err != nil {
		return nil, err
	}
	return secret.Data, nil
}

// phaseCounter counts Troubleshoots by phase from the manager's cache, for the
// scrape-time sessions gauge.
func phaseCounter(mgr ctrl.Manager) metrics.PhaseLister {
	return func(ctx context.Context) (map[string]int, error) {
		list := &kubagev1alpha1.TroubleshootList{}
		if err := mgr.GetClient().List(ctx, list); err != nil {
			return nil, err
		}
		counts := map[string]int{}
		for _, p := range []kubagev1alpha1.TroubleshootPhase{
			kubagev1alpha1.PhasePending, kubagev1alpha1.PhasePlanning, kubagev1alpha1.PhaseInvestigating,
			kubagev1alpha1.PhaseRegulating, kubagev1alpha1.PhaseSummarizing, kubagev1alpha1.PhaseAwaitingApproval,
			kubagev1alpha1.PhaseRemediating, kubagev1alpha1.PhaseCompleted, kubagev1alpha1.PhaseFailed,
		} {
			counts[string(p)] = 0
		}
		for _, ts := range list.Items {
			phase := string(ts.Status.Phase)
			if phase == "" {
				phase = string(kubagev1alpha1.PhasePending)
			}
			counts[phase]++
		}
		return counts, nil
	}
}
