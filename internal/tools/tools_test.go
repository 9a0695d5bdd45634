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

package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubage/kubage/internal/tools"
	fx "github.com/kubage/kubage/test/fixtures"
)

const ns = "payments"

// world is a small namespace with one broken Deployment and the objects around it.
func world() []runtime.Object {
	d := fx.Deployment(ns, "web", 2, "registry.example/web:1.1")
	d.Spec.Template.Spec.Volumes = []corev1.Volume{
		{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-config"}}}},
		{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "web-data"}}},
	}
	d.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{
		{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}, Key: "password"}}},
		{Name: "DB_USER", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}, Key: "username"}}},
	}
	old := fx.ReplicaSet(d, 1, 0, "registry.example/web:1.0")
	old.Annotations["kubernetes.io/change-cause"] = "initial release"
	cur := fx.ReplicaSet(d, 2, 2, "registry.example/web:1.1")
	cur.Annotations["kubernetes.io/change-cause"] = "kubectl set image deployment/web app=registry.example/web:1.1"
	p1 := fx.PodFor(cur, "x2b4q")
	fx.CrashLoop(p1, 1, "Error", 7)
	p2 := fx.PodFor(cur, "k9m3z")
	svc := fx.Service(ns, "web", map[string]string{"app": "web"}, intstr.FromString("http"))
	return []runtime.Object{
		d, old, cur, p1, p2, svc, fx.EndpointSlice(svc, p1, p2),
		fx.ConfigMap(ns, "web-config", "app.yaml"),
		fx.Secret(ns, "db", "password"),
		fx.PVC(ns, "web-data", fx.Ptr("fast"), corev1.ClaimPending),
		fx.Node("node-1"),
		fx.Event(ns, "Pod", p1.Name, corev1.EventTypeWarning, "BackOff", "Back-off restarting failed container app in pod "+p1.Name, 40, time.Minute),
		fx.Event(ns, "Pod", p1.Name, corev1.EventTypeNormal, "Pulled", "Container image \"registry.example/web:1.1\" already present on machine", 8, 3*time.Minute),
		fx.Event(ns, "ReplicaSet", cur.Name, corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: "+p1.Name, 1, 90*time.Minute),
		fx.Event("default", "Node", "node-1", corev1.EventTypeWarning, "NodeNotReady", "Node node-1 status is now: NodeNotReady", 1, 5*time.Minute),
		&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "compute", Namespace: ns}, Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourceRequestsCPU: resource.MustParse("1")}},
			Status: corev1.ResourceQuotaStatus{Hard: corev1.ResourceList{corev1.ResourceRequestsCPU: resource.MustParse("1"), corev1.ResourcePods: resource.MustParse("10")},
				Used: corev1.ResourceList{corev1.ResourceRequestsCPU: resource.MustParse("1"), corev1.ResourcePods: resource.MustParse("3")}}},
		&corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "limits", Namespace: ns}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer, Max: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}}}},
		&networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns}, Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "shop.example", IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{Path: "/", Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}}}}}}}}},
		&policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns}, Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: fx.Ptr(intstr.FromInt32(2)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}, Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 0, ExpectedPods: 2, CurrentHealthy: 1, DesiredHealthy: 2}},
		// Objects in another namespace must never show up.
		fx.Deployment("other", "web", 1, "registry.example/other:1"),
		fx.Secret("other", "db", "password"),
	}
}

func newRegistry(t *testing.T, objs ...runtime.Object) (*tools.Registry, *fake.Clientset) {
	t.Helper()
	cs := fake.NewClientset(objs...)
	r := tools.Builtin(cs, tools.Scope{Namespace: ns})
	r.Client().SetClock(func() time.Time { return fx.Now })
	return r, cs
}

func call(t *testing.T, r *tools.Registry, name string, args any) (tools.Result, error) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return r.Call(context.Background(), name, raw)
}

func TestToolsTable(t *testing.T) {
	cases := []struct {
		name    string
		tool    string
		args    any
		want    []string
		notWant []string
		wantErr string
	}{
		{name: "list pods", tool: "k8s_list", args: map[string]any{"kind": "po"},
			want: []string{"2 pods in namespace payments", "CrashLoopBackOff(last exit 1 Error)", "web-"}, notWant: []string{"other"}},
		{name: "list with selector", tool: "k8s_list", args: map[string]any{"kind": "deployments", "labelSelector": "app=web"},
			want: []string{"1 deployments", "ready 2/2"}},
		{name: "list secrets shows keys only", tool: "k8s_list", args: map[string]any{"kind": "secrets"},
			want: []string{"db", "password", "values never shown"}, notWant: []string{"TOPSECRET"}},
		{name: "list nodes is cluster scoped", tool: "k8s_list", args: map[string]any{"kind": "nodes"},
			want: []string{"node-1", "Ready=True"}},
		{name: "list storage classes", tool: "k8s_list", args: map[string]any{"kind": "sc"}, want: []string{"0 storageclasses in cluster"}},
		{name: "list other namespace refused", tool: "k8s_list", args: map[string]any{"kind": "pods", "namespace": "other"},
			wantErr: "outside this session's scope"},
		{name: "unknown kind", tool: "k8s_list", args: map[string]any{"kind": "Frobnicator"}, wantErr: "unknown kind"},
		{name: "unknown argument", tool: "k8s_list", args: map[string]any{"kind": "pods", "verb": "delete"}, wantErr: "invalid tool input"},
		{name: "get missing object", tool: "k8s_get", args: map[string]any{"kind": "Deployment", "name": "api"},
			wantErr: "no such Deployment api in payments"},
		{name: "get requires name", tool: "k8s_get", args: map[string]any{"kind": "Deployment"}, wantErr: `"name" is required`},
		{name: "get deployment", tool: "k8s_get", args: map[string]any{"kind": "deploy", "name": "web"},
			want: []string{"Deployment web", "condition Progressing=True", "images: app=registry.example/web:1.1"}},
		{name: "get secret never shows values", tool: "k8s_get", args: map[string]any{"kind": "Secret", "name": "db"},
			want: []string{"password"}, notWant: []string{"TOPSECRET"}},
		{name: "describe pod has events and owners", tool: "k8s_describe", args: map[string]any{"kind": "Pod", "name": "web-" + fx.Hash("web", 2) + "-x2b4q"},
			want: []string{"owned by ReplicaSet/web-", "owned by Deployment/web", "BackOff  x40", "Pulled  x8", "last terminated Error exit 1"}},
		{name: "events for namespace, warnings only", tool: "k8s_events", args: map[string]any{"warningsOnly": true},
			want: []string{"1 event group(s)", "BackOff"}, notWant: []string{"Pulled", "NodeNotReady"}},
		{name: "events for a node come from default", tool: "k8s_events", args: map[string]any{"kind": "Node", "name": "node-1"},
			want: []string{"NodeNotReady"}},
		{name: "events name without kind", tool: "k8s_events", args: map[string]any{"name": "x"}, wantErr: "kind is required"},
		{name: "owner chain from pod", tool: "k8s_owner_chain", args: map[string]any{"kind": "Pod", "name": "web-" + fx.Hash("web", 2) + "-k9m3z"},
			want: []string{"chain: Deployment/web → ReplicaSet/web-" + fx.Hash("web", 2) + " → Pod/web-", "  ReplicaSet/web-" + fx.Hash("web", 1), "    Pod/web-" + fx.Hash("web", 2) + "-x2b4q"}},
		{name: "related to deployment", tool: "k8s_related", args: map[string]any{"kind": "Deployment", "name": "web"},
			want:    []string{"Service/web", "PersistentVolumeClaim/web-data: Pending", "StorageClass/fast: MISSING", "ConfigMap/web-config: exists, keys: app.yaml", "Secret/db: exists but lacks key(s) username"},
			notWant: []string{"TOPSECRET"}},
		{name: "related to service", tool: "k8s_related", args: map[string]any{"kind": "svc", "name": "web"},
			want: []string{"2 pod(s) match the selector, 1 ready", "EndpointSlice/web-abcde: service web: 1/2 endpoints ready", "Ingress/web"}},
		{name: "related to ingress", tool: "k8s_related", args: map[string]any{"kind": "ing", "name": "web"},
			want: []string{"Service/web", "backend of shop.example/→web:80"}},
		{name: "node status", tool: "k8s_node_status", args: map[string]any{"name": "node-1"},
			want: []string{"node node-1: Ready=True", "cpu: requested 200m of allocatable 4 (5%)", "memory: requested 256Mi"}},
		{name: "all nodes", tool: "k8s_node_status", args: map[string]any{}, want: []string{"node node-1: Ready=True"}},
		{name: "missing node", tool: "k8s_node_status", args: map[string]any{"name": "node-9"}, wantErr: "no such Node node-9"},
		{name: "quota usage", tool: "k8s_quota_usage", args: map[string]any{},
			want: []string{"ResourceQuota compute", "requests.cpu: 1 / 1 (100%)  FULL", "pods: 3 / 10 (30%)", "Container: max cpu=500m"}},
		{name: "rollout history with image diff", tool: "k8s_rollout_history", args: map[string]any{"kind": "Deployment", "name": "web"},
			want: []string{"revision 2", "container app image registry.example/web:1.0 → registry.example/web:1.1", "change-cause: kubectl set image", "revision 1"}},
		{name: "rollout history of a pod refused", tool: "k8s_rollout_history", args: map[string]any{"kind": "Pod", "name": "web-" + fx.Hash("web", 2) + "-k9m3z"},
			wantErr: "rollout history is available for"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := newRegistry(t, world()...)
			res, err := call(t, r, tc.tool, tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want error containing %q, got %v (text %q)", tc.wantErr, err, res.Text)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("text lacks %q:\n%s", w, res.Text)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(res.Text, w) {
					t.Errorf("text must not contain %q:\n%s", w, res.Text)
				}
			}
			data, err := json.Marshal(res.Data)
			if err != nil {
				t.Fatalf("data does not marshal: %v", err)
			}
			if strings.Contains(string(data), "TOPSECRET") {
				t.Fatalf("secret value leaked into data: %s", data)
			}
			if r.Client().Requests() == 0 {
				t.Errorf("no API requests counted")
			}
		})
	}
}

func TestSchemasAreValidJSONObjects(t *testing.T) {
	r, _ := newRegistry(t)
	if len(r.Tools()) < 10 {
		t.Fatalf("want at least 10 tools, got %d", len(r.Tools()))
	}
	for _, tool := range r.Tools() {
		var s map[string]any
		if err := json.Unmarshal(tool.Schema(), &s); err != nil {
			t.Fatalf("%s: schema is not JSON: %v", tool.Name(), err)
		}
		if s["type"] != "object" || s["properties"] == nil {
			t.Errorf("%s: schema is not an object schema: %s", tool.Name(), tool.Schema())
		}
		if tool.Description() == "" {
			t.Errorf("%s: no description", tool.Name())
		}
	}
	logs, _ := r.Get("k8s_logs")
	if !strings.Contains(string(logs.Schema()), `"required":["pod"]`) || !strings.Contains(string(logs.Schema()), `"tailLines":{"description"`) {
		t.Errorf("k8s_logs schema lacks required/descriptions: %s", logs.Schema())
	}
}

func TestCallArgsFromStrings(t *testing.T) {
	r, _ := newRegistry(t, world()...)
	tool, _ := r.Get("k8s_events")
	res, err := tool.CallArgs(context.Background(), map[string]string{"kind": "Pod", "name": "web-" + fx.Hash("web", 2) + "-x2b4q", "limit": "1"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, "1 event group(s)") || !strings.Contains(res.Text, "BackOff") {
		t.Errorf("unexpected text: %s", res.Text)
	}
	if _, err := tool.CallArgs(context.Background(), map[string]string{"limit": "many"}); !errors.Is(err, tools.ErrInvalidInput) {
		t.Errorf("want invalid input for a non-integer, got %v", err)
	}
}

func logReactor(cs *fake.Clientset, body []byte, fail error) {
	cs.PrependReactor("get", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "log" {
			return false, nil, nil
		}
		if fail != nil {
			return true, nil, fail
		}
		return true, &runtime.Unknown{Raw: body}, nil
	})
}

func TestLogs(t *testing.T) {
	crash := "web-" + fx.Hash("web", 2) + "-x2b4q"
	healthy := "web-" + fx.Hash("web", 2) + "-k9m3z"
	huge := strings.Repeat("line of log output that goes on\n", 20000)
	cases := []struct {
		name    string
		body    []byte
		fail    error
		in      map[string]any
		want    []string
		notWant []string
		wantErr string
	}{
		{name: "crash-looping container shows previous instance", body: []byte("starting\npanic: db unreachable\n"), in: map[string]any{"pod": crash},
			want: []string{"previous instance", "| panic: db unreachable"}},
		{name: "no previous instance", in: map[string]any{"pod": healthy, "previous": true}, want: []string{"no previous instance of container app"}},
		{name: "binary output is replaced", body: []byte{0x00, 0x01, 0xff, 'o', 'k', 0x1b, '[', '3', '1', 'm', '\n'}, in: map[string]any{"pod": healthy},
			want: []string{"looks binary", "| ...ok.[31m"}},
		{name: "huge output is capped", body: []byte(huge), in: map[string]any{"pod": healthy, "tailLines": 100000},
			want: []string{tools.TruncationMarker}},
		{name: "megabyte lines around the error do not hide it", body: []byte("starting\n" + strings.Repeat("A", 1<<20) + "\nERROR dial tcp db:5432: connect: connection refused\n" + strings.Repeat("B", 1<<20) + "\n" + strings.Repeat("C", 1<<20) + "\n"),
			in: map[string]any{"pod": healthy}, want: []string{"| starting", "| ERROR dial tcp db:5432: connect: connection refused", "| AAAA", "| CCCC"}},
		{name: "kubelet unreachable is a note", fail: errors.New("dial tcp 10.0.0.11:10250: connect: connection refused"), in: map[string]any{"pod": healthy},
			want: []string{"logs unavailable:", "connection refused"}},
		{name: "unknown container", in: map[string]any{"pod": healthy, "container": "sidecar"}, wantErr: `no container "sidecar"`},
		{name: "missing pod", in: map[string]any{"pod": "ghost"}, wantErr: "no such Pod ghost in payments"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, cs := newRegistry(t, world()...)
			if tc.body != nil || tc.fail != nil {
				logReactor(cs, tc.body, tc.fail)
			}
			res, err := call(t, r, "k8s_logs", tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want error %q, got %v", tc.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("text lacks %q:\n%s", w, clipText(res.Text))
				}
			}
			if len(res.Text) > tools.MaxLogBytes+4096 {
				t.Errorf("text not bounded: %d bytes", len(res.Text))
			}
		})
	}
}

func clipText(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "..."
	}
	return s
}

func TestListIsBoundedOnHugeNamespaces(t *testing.T) {
	var objs []runtime.Object
	d := fx.Deployment(ns, "big", 3000, "img:1")
	rs := fx.ReplicaSet(d, 1, 3000, "img:1")
	objs = append(objs, d, rs)
	for i := 0; i < 3000; i++ {
		objs = append(objs, fx.PodFor(rs, fmt.Sprintf("p%04d", i)))
	}
	r, _ := newRegistry(t, objs...)
	res, err := call(t, r, "k8s_list", map[string]any{"kind": "pods", "limit": 100000})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || !strings.Contains(res.Text, tools.TruncationMarker) {
		t.Errorf("want a truncated result")
	}
	if len(res.Text) > tools.DefaultMaxBytes+200 {
		t.Errorf("text too long: %d", len(res.Text))
	}
	res, err = call(t, r, "k8s_owner_chain", map[string]any{"kind": "Deployment", "name": "big"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, "more") {
		t.Errorf("owner tree should say how many pods were left out:\n%s", clipText(res.Text))
	}
}

func TestEventsDeduplicateGeneratedNames(t *testing.T) {
	var objs []runtime.Object
	for i := 0; i < 30; i++ {
		e := fx.Event(ns, "ReplicaSet", "web-abc", corev1.EventTypeWarning, "FailedCreate",
			fmt.Sprintf(`Error creating: pods "web-abc-%05d" is forbidden: exceeded quota: compute, requested: requests.cpu=500m, used: requests.cpu=1, limited: requests.cpu=1`, i), 1, time.Duration(i)*time.Minute)
		objs = append(objs, e)
	}
	r, _ := newRegistry(t, objs...)
	c := r.Client()
	groups, _, err := c.Events(context.Background(), tools.EventQuery{Kind: "ReplicaSet", Name: "web-abc"})
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 1 || groups[0].Count != 30 {
		t.Fatalf("want one group of 30, got %+v", groups)
	}
}

func TestScopeWithoutNamespace(t *testing.T) {
	cs := fake.NewClientset(world()...)
	r := tools.Builtin(cs, tools.Scope{})
	if _, err := r.Call(context.Background(), "k8s_list", json.RawMessage(`{"kind":"pods"}`)); !errors.Is(err, tools.ErrOutOfScope) {
		t.Fatalf("want out-of-scope error without a namespace, got %v", err)
	}
	if _, err := r.Call(context.Background(), "k8s_list", json.RawMessage(`{"kind":"nodes"}`)); err != nil {
		t.Fatalf("cluster-scoped kinds should still work: %v", err)
	}
}

func TestStatefulSetRolloutFromControllerRevisions(t *testing.T) {
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns, UID: fx.UID("StatefulSet", "db")},
		Spec: appsv1.StatefulSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}}}
	rev := func(n int64, image string) *appsv1.ControllerRevision {
		raw := fmt.Sprintf(`{"spec":{"template":{"spec":{"containers":[{"name":"postgres","image":%q}]}}}}`, image)
		return &appsv1.ControllerRevision{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("db-%d", n), Namespace: ns, OwnerReferences: []metav1.OwnerReference{fx.OwnerRef("StatefulSet", "apps/v1", sts)}},
			Revision:   n, Data: runtime.RawExtension{Raw: []byte(raw)},
		}
	}
	r, _ := newRegistry(t, sts, rev(1, "postgres:15"), rev(2, "postgres:16"), rev(3, "not json"))
	res, err := call(t, r, "k8s_rollout_history", map[string]any{"kind": "sts", "name": "db"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, "container postgres image postgres:15 → postgres:16") {
		t.Errorf("missing image diff:\n%s", res.Text)
	}
}

// A reader may ask for longer lines than are shown: a structured record whose error field
// sits past the shown width is read whole in Full (up to the kept head), and Lines stays as
// shown.
func TestLogsFullLinesForReaders(t *testing.T) {
	healthy := "web-" + fx.Hash("web", 2) + "-k9m3z"
	long := `ts=1 level=warn ` + strings.Repeat("k=v ", 100) + `msg="rule failed" err="many-to-many matching not allowed"`
	huge := "ERROR " + strings.Repeat("x", 1<<20) + " err=hidden"
	r, cs := newRegistry(t, world()...)
	logReactor(cs, []byte("starting\n"+long+"\n"+huge+"\n"), nil)
	res, err := r.Client().Logs(context.Background(), tools.LogsRequest{Pod: healthy, LineBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Full) != len(res.Lines) || len(res.Lines) != 3 {
		t.Fatalf("lines %d, full %d", len(res.Lines), len(res.Full))
	}
	if strings.Contains(res.Lines[1], "many-to-many") || !strings.Contains(res.Full[1], "many-to-many matching not allowed") {
		t.Errorf("shown %q\nfull %q", res.Lines[1], res.Full[1])
	}
	if len(res.Full[2]) > 1000+4 || strings.Contains(res.Full[2], "hidden") {
		t.Errorf("a megabyte line is not bounded in Full: %d bytes", len(res.Full[2]))
	}
	if plain, _ := r.Client().Logs(context.Background(), tools.LogsRequest{Pod: healthy}); plain.Full != nil {
		t.Errorf("Full filled without being asked for")
	}
}
