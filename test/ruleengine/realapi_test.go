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

package ruleengine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/tools"
	fx "github.com/kubage/kubage/test/fixtures"
)

// TestAgainstRealAPIServer runs the tools and the engine against a real kube-apiserver
// (envtest, no controllers), where field selectors, paging and validation are the server's
// own rather than the fake clientset's. It runs when KUBEBUILDER_ASSETS points at the
// control-plane binaries (make test sets it) and is skipped otherwise.
func TestAgainstRealAPIServer(t *testing.T) {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" || testing.Short() {
		t.Skip("KUBEBUILDER_ASSETS not set")
	}
	if _, err := os.Stat(filepath.Join(assets, "kube-apiserver")); err != nil {
		t.Skipf("no kube-apiserver in %s", assets)
	}
	env := &envtest.Environment{}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("start envtest: %v", err)
	}
	defer func() { _ = env.Stop() }()
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A crash-looping Deployment, a Service selecting nothing, 510 healthy pods (two pages
	// of 500) and a node.
	d, rs, objs := webApp(2, func(p *corev1.Pod) { fx.CrashLoop(p, 1, "Error", 6) })
	fleet := fx.Deployment(ns, "fleet", 510, "registry.example/fleet:1")
	fleetRS := fx.ReplicaSet(fleet, 1, 510, "registry.example/fleet:1")
	objs = append(objs, fleet, fleetRS, fx.Service(ns, "shop", map[string]string{"app": "shop"}, intstr.FromInt32(8080)))
	for i := 0; i < 510; i++ {
		objs = append(objs, fx.PodFor(fleetRS, fmt.Sprintf("f%05d", i)))
	}
	objs = append(objs, fx.Event(ns, "Pod", podName(0), "Warning", "BackOff", "Back-off restarting failed container app in pod "+podName(0), 12, time.Minute))
	start := time.Now()
	for _, o := range objs {
		createWithStatus(t, ctx, cs, o, d, rs, fleet, fleetRS)
	}
	t.Logf("created %d objects in %s", len(objs), time.Since(start).Round(time.Millisecond))

	c := tools.NewClient(cs, tools.Scope{Namespace: ns})
	groups, _, err := c.Events(ctx, tools.EventQuery{Kind: "Pod", Name: podName(0), WarningsOnly: true})
	if err != nil || len(groups) != 1 || groups[0].Count != 12 {
		t.Fatalf("events through real field selectors: %v %+v", err, groups)
	}
	res, _, err := c.List(ctx, "Pod", tools.ListOptions{Max: 5000})
	if err != nil || len(res.Items) != 512 || c.Requests() < 3 {
		t.Fatalf("paged list: %v, %d items, %d requests", err, len(res.Items), c.Requests())
	}
	lr, err := c.Logs(ctx, tools.LogsRequest{Pod: podName(0)})
	if err != nil || lr.Note == "" {
		t.Fatalf("logs without a kubelet must be a note, got %v %+v", err, lr)
	}

	for _, tc := range []struct {
		target        *agent.Target
		problem       string
		rule, culprit string
	}{
		{deploy("web"), "", "crash-loop", "Deployment/web"},
		{&agent.Target{Kind: "Service", Name: "shop"}, "", "service-selector-mismatch", "Service/shop"},
		// Two independent problems in the namespace: the problem text picks the one asked about.
		{nil, "web pods keep crashing", "crash-loop", "Deployment/web"},
		{nil, "the shop service is unreachable", "service-selector-mismatch", "Service/shop"},
		// A missing target fails the session with TargetNotFound before the rule engine runs.
		{deploy("nope"), "", "", "The target does not exist: no such Deployment nope in payments"},
	} {
		e := agent.NewRuleEngine(cs)
		e.Now = func() time.Time { return fx.Now }
		start := time.Now()
		con, tr, err := runSession(ctx, e, agent.Session{Namespace: ns, Target: tc.target, Problem: tc.problem}, agent.Budget{})
		if tc.rule == "" {
			if err == nil || err.Error() != tc.culprit {
				t.Errorf("target %+v: want the session to fail with %q, got %v", tc.target, tc.culprit, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got := con.RootCause.Culprit.Kind + "/" + con.RootCause.Culprit.Name
		if con.RootCause.Rule != tc.rule || got != tc.culprit {
			t.Errorf("target %+v: want %s on %s, got %s on %s: %s%s", tc.target, tc.rule, tc.culprit, con.RootCause.Rule, got, con.RootCause.Summary, traceString(tr))
		}
		t.Logf("target %+v: %s on %s in %s, %d API requests", tc.target, con.RootCause.Rule, got, time.Since(start).Round(time.Millisecond), tr.APIRequests)
	}
}

// createWithStatus creates an object and then writes its status, as controllers would.
func createWithStatus(t *testing.T, ctx context.Context, cs kubernetes.Interface, o runtime.Object, owners ...metav1.Object) {
	t.Helper()
	var err error
	switch x := o.(type) {
	case *corev1.Pod:
		x = x.DeepCopy()
		x.UID, x.ResourceVersion = "", ""
		fixOwners(x, owners)
		st := x.Status
		var created *corev1.Pod
		if created, err = cs.CoreV1().Pods(ns).Create(ctx, x, metav1.CreateOptions{}); err == nil {
			created.Status = st
			_, err = cs.CoreV1().Pods(ns).UpdateStatus(ctx, created, metav1.UpdateOptions{})
		}
	case *corev1.Node:
		_, err = cs.CoreV1().Nodes().Create(ctx, x, metav1.CreateOptions{})
	case *corev1.Event:
		_, err = cs.CoreV1().Events(ns).Create(ctx, x, metav1.CreateOptions{})
	case *corev1.Service:
		x.Spec.ClusterIP = ""
		_, err = cs.CoreV1().Services(ns).Create(ctx, x, metav1.CreateOptions{})
	default:
		err = createApps(ctx, cs, o, owners)
	}
	if err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("create %T: %v", o, err)
	}
}
