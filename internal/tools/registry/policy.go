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

package registry

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	kmcp "github.com/kubage/kubage/internal/tools/mcp"
)

// MissingReferenceError says which Secret or ConfigMap (or key of one) a
// ToolServer's headers refer to but does not exist.
type MissingReferenceError struct {
	// Kind is Secret or ConfigMap.
	Kind, Namespace, Name, Key string
	// KeyMissing is true when the object exists but lacks the key.
	KeyMissing bool
}

func (e *MissingReferenceError) Error() string {
	if e.KeyMissing {
		return fmt.Sprintf("%s %s/%s has no key %q", e.Kind, e.Namespace, e.Name, e.Key)
	}
	return fmt.Sprintf("%s %s/%s not found", e.Kind, e.Namespace, e.Name)
}

// maxHeaderValue bounds one header value read from a Secret or ConfigMap.
const maxHeaderValue = 8 << 10

// ResolveHeaders reads the header values of ts from Secrets and ConfigMaps in its
// namespace. reader should not be a cache for Secrets (the manager reads them directly).
func ResolveHeaders(ctx context.Context, reader client.Reader, ts *kubagev1alpha1.ToolServer) (map[string]string, error) {
	if len(ts.Spec.Headers) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(ts.Spec.Headers))
	for _, h := range ts.Spec.Headers {
		var value string
		switch {
		case h.SecretKeyRef != nil:
			ref := h.SecretKeyRef
			s := &corev1.Secret{}
			if err := reader.Get(ctx, client.ObjectKey{Namespace: ts.Namespace, Name: ref.Name}, s); err != nil {
				if apierrors.IsNotFound(err) {
					return nil, &MissingReferenceError{Kind: "Secret", Namespace: ts.Namespace, Name: ref.Name, Key: ref.Key}
				}
				return nil, fmt.Errorf("reading Secret %s/%s: %w", ts.Namespace, ref.Name, err)
			}
			v, ok := s.Data[ref.Key]
			if !ok {
				sv, sok := s.StringData[ref.Key]
				if !sok {
					return nil, &MissingReferenceError{Kind: "Secret", Namespace: ts.Namespace, Name: ref.Name, Key: ref.Key, KeyMissing: true}
				}
				v = []byte(sv)
			}
			value = string(v)
		case h.ConfigMapKeyRef != nil:
			ref := h.ConfigMapKeyRef
			cm := &corev1.ConfigMap{}
			if err := reader.Get(ctx, client.ObjectKey{Namespace: ts.Namespace, Name: ref.Name}, cm); err != nil {
				if apierrors.IsNotFound(err) {
					return nil, &MissingReferenceError{Kind: "ConfigMap", Namespace: ts.Namespace, Name: ref.Name, Key: ref.Key}
				}
				return nil, fmt.Errorf("reading ConfigMap %s/%s: %w", ts.Namespace, ref.Name, err)
			}
			v, ok := cm.Data[ref.Key]
			if !ok {
				return nil, &MissingReferenceError{Kind: "ConfigMap", Namespace: ts.Namespace, Name: ref.Name, Key: ref.Key, KeyMissing: true}
			}
			value = v
		default:
			continue
		}
		if len(value) > maxHeaderValue {
			return nil, fmt.Errorf("header %s: value is %d bytes, more than %d", h.Name, len(value), maxHeaderValue)
		}
		// Trailing newlines are the usual accident of `kubectl create secret --from-file`.
		for len(value) > 0 && (value[len(value)-1] == '\n' || value[len(value)-1] == '\r') {
			value = value[:len(value)-1]
		}
		out[h.Name] = value
	}
	return out, nil
}

// ReferencedSecrets and ReferencedConfigMaps name the objects ts reads headers from.
func ReferencedSecrets(ts *kubagev1alpha1.ToolServer) []string {
	var out []string
	for _, h := range ts.Spec.Headers {
		if h.SecretKeyRef != nil && !slices.Contains(out, h.SecretKeyRef.Name) {
			out = append(out, h.SecretKeyRef.Name)
		}
	}
	return out
}

func ReferencedConfigMaps(ts *kubagev1alpha1.ToolServer) []string {
	var out []string
	for _, h := range ts.Spec.Headers {
		if h.ConfigMapKeyRef != nil && !slices.Contains(out, h.ConfigMapKeyRef.Name) {
			out = append(out, h.ConfigMapKeyRef.Name)
		}
	}
	return out
}

// ConfigFor is the MCP client configuration of ts with resolved headers.
func ConfigFor(ts *kubagev1alpha1.ToolServer, headers map[string]string) kmcp.Config {
	cfg := kmcp.Config{
		URL:       ts.Spec.URL,
		Transport: kmcp.Transport(ts.Spec.Transport),
		Headers:   headers,
		Timeout:   kmcp.DefaultTimeout,
	}
	if ts.Spec.Timeout != nil && ts.Spec.Timeout.Duration > 0 {
		cfg.Timeout = min(ts.Spec.Timeout.Duration, 5*time.Minute)
	}
	return cfg
}

// Admits reports whether Troubleshoots in namespace ns (with labels nsLabels) may
// use ts, by spec.allowedNamespaces.
func Admits(ts *kubagev1alpha1.ToolServer, ns string, nsLabels map[string]string) bool {
	switch ts.Spec.AllowedNamespaces.From {
	case kubagev1alpha1.NamespacesFromAll:
		return true
	case kubagev1alpha1.NamespacesFromSelector:
		if ts.Spec.AllowedNamespaces.Selector == nil {
			return false
		}
		sel, err := metav1.LabelSelectorAsSelector(ts.Spec.AllowedNamespaces.Selector)
		if err != nil {
			return false
		}
		return sel.Matches(labels.Set(nsLabels))
	default:
		return ts.Namespace == ns
	}
}

// Allowed reports whether spec.tools lets investigations call the named tool.
func Allowed(policy kubagev1alpha1.ToolPolicy, name string) bool {
	if slices.Contains(policy.Deny, name) {
		return false
	}
	return len(policy.Allow) == 0 || slices.Contains(policy.Allow, name)
}

// Mutating reports whether a tool changes state, by spec.tools.mutating or by
// the server's destructive annotation.
func Mutating(policy kubagev1alpha1.ToolPolicy, t kmcp.Tool) bool {
	return t.Destructive || slices.Contains(policy.Mutating, t.Name)
}
