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

package kubectlplugin

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// ReportOptions are the arguments of `kubectl kubage report`.
type ReportOptions struct {
	Name string
	// JSON prints the JSON report instead of the Markdown one.
	JSON bool
	// Color styles the Markdown for a terminal; without it a terminal gets plain wrapped text.
	Color bool
}

var configMapResource = corev1.SchemeGroupVersion.WithResource("configmaps")

// Report prints the report of a Troubleshoot from the ConfigMap its status.reportRef names:
// rendered for a terminal, as Markdown when piped, or the JSON report.
func (e *Env) Report(ctx context.Context, o ReportOptions) error {
	u, err := e.Dynamic.Resource(TroubleshootResource).Namespace(e.Namespace).Get(ctx, o.Name, metav1.GetOptions{})
	if err != nil {
		return e.explain(err, "get", TroubleshootResource, e.Namespace, o.Name)
	}
	ts, err := troubleshootFrom(u)
	if err != nil {
		return err
	}
	if ts.Status.ReportRef == nil || ts.Status.ReportRef.Name == "" {
		return fmt.Errorf("troubleshoot %q has no report yet (phase %s): follow it with `kubectl kubage get %s`",
			o.Name, orUnknown(string(ts.Status.Phase)), o.Name)
	}
	ref := ts.Status.ReportRef.Name
	cmu, err := e.Dynamic.Resource(configMapResource).Namespace(e.Namespace).Get(ctx, ref, metav1.GetOptions{})
	if err != nil {
		return e.explain(err, "get", configMapResource, e.Namespace, ref)
	}
	var cm corev1.ConfigMap
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(cmu.UnstructuredContent(), &cm); err != nil {
		return err
	}
	key := kubagev1alpha1.ReportMarkdownKey
	if o.JSON {
		key = kubagev1alpha1.ReportJSONKey
	}
	body, ok := cm.Data[key]
	if !ok {
		return fmt.Errorf("the report ConfigMap %s/%s has no key %s", e.Namespace, ref, key)
	}
	if o.JSON || !e.TTY {
		if !strings.HasSuffix(body, "\n") {
			body += "\n"
		}
		_, err = fmt.Fprint(e.Out, Sanitize(body))
		return err
	}
	_, err = fmt.Fprint(e.Out, RenderMarkdown(body, e.Width, o.Color))
	return err
}

func orUnknown(s string) string {
	if s == "" {
		return "not started"
	}
	return s
}
