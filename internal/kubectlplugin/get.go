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
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/cli-runtime/pkg/printers"
)

// GetOptions are the arguments of `kubectl kubage get`.
type GetOptions struct {
	// Name of one Troubleshoot; empty lists them all.
	Name          string
	AllNamespaces bool
	// Printer prints the objects for -o json|yaml|name|...; nil prints the table.
	Printer printers.ResourcePrinter
	// Wide adds the ROOT CAUSE column to the table.
	Wide bool
}

// Get prints one Troubleshoot or lists them.
func (e *Env) Get(ctx context.Context, o GetOptions) error {
	ns := e.Namespace
	if o.AllNamespaces {
		if o.Name != "" {
			return fmt.Errorf("a Troubleshoot cannot be retrieved by name across all namespaces: drop -A or the name")
		}
		ns = ""
	}
	res := e.Dynamic.Resource(TroubleshootResource).Namespace(ns)
	var obj runtime.Object
	var items []unstructured.Unstructured
	if o.Name != "" {
		u, err := res.Get(ctx, o.Name, metav1.GetOptions{})
		if err != nil {
			return e.explain(err, "get", TroubleshootResource, ns, o.Name)
		}
		obj, items = u, []unstructured.Unstructured{*u}
	} else {
		list, err := res.List(ctx, metav1.ListOptions{})
		if err != nil {
			return e.explain(err, "list", TroubleshootResource, ns, "")
		}
		obj, items = list, list.Items
		if len(items) == 0 && o.Printer == nil {
			if ns == "" {
				fmt.Fprintln(e.ErrOut, "No resources found")
			} else {
				fmt.Fprintf(e.ErrOut, "No resources found in %s namespace.\n", ns)
			}
			return nil
		}
	}
	if o.Printer != nil {
		return o.Printer.PrintObj(obj, e.Out)
	}
	table, err := e.Table(items)
	if err != nil {
		return err
	}
	return PrintTable(e.Out, table, o.AllNamespaces, o.Wide)
}

// Table is the human view of Troubleshoots: NAME PHASE CATEGORY CONFIDENCE AGE, and ROOT
// CAUSE in the wide view (priority 1).
func (e *Env) Table(items []unstructured.Unstructured) (*metav1.Table, error) {
	t := &metav1.Table{ColumnDefinitions: []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name"},
		{Name: "Phase", Type: "string"},
		{Name: "Category", Type: "string"},
		{Name: "Confidence", Type: "string"},
		{Name: "Age", Type: "string"},
		{Name: "Root Cause", Type: "string", Priority: 1},
	}}
	now := e.Now()
	for i := range items {
		ts, err := troubleshootFrom(&items[i])
		if err != nil {
			return nil, err
		}
		phase, category, confidence, summary := "<none>", "<none>", "<none>", "<none>"
		if ts.Status.Phase != "" {
			phase = string(ts.Status.Phase)
		}
		if rc := ts.Status.RootCause; rc != nil {
			if rc.Category != "" {
				category = rc.Category
			}
			confidence = fmt.Sprintf("%d%%", rc.Confidence)
			summary = oneLine(rc.Summary)
		}
		age := "<unknown>"
		if !ts.CreationTimestamp.IsZero() {
			age = duration.HumanDuration(now.Sub(ts.CreationTimestamp.Time))
		}
		t.Rows = append(t.Rows, metav1.TableRow{
			Cells:  []any{ts.Name, phase, category, confidence, age, summary},
			Object: runtime.RawExtension{Object: &items[i]},
		})
	}
	return t, nil
}

// PrintTable prints a table the way kubectl does (a NAMESPACE column with -A).
func PrintTable(w io.Writer, t *metav1.Table, withNamespace, wide bool) error {
	p := printers.NewTablePrinter(printers.PrintOptions{WithNamespace: withNamespace, Wide: wide})
	return p.PrintObj(t, w)
}
