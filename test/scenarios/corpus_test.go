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

package scenarios

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubage/kubage/internal/agent"
)

func TestJudge(t *testing.T) {
	e := &Env{Namespace: "ns"}
	ens := &Env{Namespace: "scn-app-config-x1"}
	s := &Scenario{Want: Want{
		Culprit: Ref{Kind: "ConfigMap", Name: "app-config"},
		Also:    []Ref{{Kind: "Deployment", Name: "app"}},
		Terms:   []string{"app-config", "No Such Host", "{ns}"},
	}}
	c := func(culprit agent.ObjectRef, summary string, affected ...agent.ObjectRef) agent.Conclusion {
		return agent.Conclusion{RootCause: agent.RootCause{Culprit: culprit, Summary: summary, AffectedObjects: affected}}
	}
	cm := agent.ObjectRef{Kind: "ConfigMap", Namespace: "ns", Name: "app-config"}
	dep := agent.ObjectRef{Kind: "Deployment", Namespace: "ns", Name: "app"}
	pod := agent.ObjectRef{Kind: "Pod", Namespace: "ns", Name: "app-1"}
	for name, tc := range map[string]struct {
		c    agent.Conclusion
		miss []string
	}{
		// The session writes the culprit first into status.rootCause.affectedObjects.
		"culprit and workload named": {c(cm, "ConfigMap app-config in ns: no such host postgress", pod, dep), nil},
		"workload missing":           {c(cm, "ConfigMap app-config in ns: no such host", pod), []string{"Deployment/app not in affectedObjects"}},
		"wrong culprit":              {c(pod, "pod app-1 crashes: no such host in ns (app-config)", dep), []string{"ConfigMap/app-config not in affectedObjects"}},
		"term missing, case ignored": {c(cm, "APP-CONFIG in NS is wrong", dep), []string{`summary lacks "No Such Host"`}},
		// The namespace carries the scenario's name: a term found only there does not count.
		"term only inside the namespace name": {c(cm, "no such host: nothing found in scn-app-config-x1", dep), []string{`summary lacks "app-config"`}},
	} {
		env := e
		if strings.Contains(tc.c.RootCause.Summary, ens.Namespace) {
			env = ens
		}
		got := s.judge(tc.c, env)
		for _, m := range tc.miss {
			if !strings.Contains(got, m) {
				t.Errorf("%s: miss %q lacks %q", name, got, m)
			}
		}
		if len(tc.miss) == 0 && got != "" {
			t.Errorf("%s: miss %q, want a hit", name, got)
		}
	}
}

// TestMissKind: a miss is sorted by how far the session got towards the culprit.
func TestMissKind(t *testing.T) {
	cm := agent.ObjectRef{Kind: "ConfigMap", Name: "app-config"}
	pod := agent.ObjectRef{Kind: "Pod", Name: "app-1"}
	q := agent.ObjectRef{Kind: "ResourceQuota", Name: "compute"}
	res := func(miss string, rc agent.RootCause, examined []agent.ObjectRef, findings ...agent.Finding) Result {
		return Result{Variant: TargetLess, Expected: `ConfigMap/app-config+Deployment/app ["host"]`, Miss: miss,
			Conclusion: agent.Conclusion{RootCause: rc},
			Trace:      agent.Trace{Iterations: []agent.IterationTrace{{Results: []agent.TaskResult{{Examined: examined, Findings: findings}}}}}}
	}
	notIn := "ConfigMap/app-config not in affectedObjects"
	crash := agent.RootCause{Rule: "crash-loop", Culprit: pod, Summary: "app-1 crashes"}
	for name, tc := range map[string]struct {
		r    Result
		want string
	}{
		"hit":            {res("", crash, nil), ""},
		"failed":         {res("session failed: boom", agent.RootCause{}, nil), MissFailed},
		"terms only":     {res(`summary lacks "host"`, crash, nil), MissTermsOnly},
		"nothing found":  {res(notIn, agent.RootCause{Rule: "no-problem-found", Summary: "nothing"}, []agent.ObjectRef{cm}), MissNothingFound},
		"ranking":        {res(notIn, crash, nil, agent.Finding{Rule: "quota", Culprit: q}, agent.Finding{Rule: "x", Culprit: pod, Affected: []agent.ObjectRef{cm}}), MissCulpritRanked},
		"read, no claim": {res(notIn, crash, []agent.ObjectRef{pod, cm}, agent.Finding{Rule: "crash-loop", Culprit: pod}), MissCulpritSeen},
		"never read":     {res(notIn, crash, []agent.ObjectRef{pod, {Kind: "ConfigMap", Name: "app-config-old"}}), MissCulpritAbsent},
	} {
		if got := tc.r.MissKind(); got != tc.want {
			t.Errorf("%s: kind %q, want %q", name, got, tc.want)
		}
	}
	table := MissKindTable([]Result{res(notIn, crash, nil), res(`summary lacks "host"`, crash, nil), res("", crash, nil)})
	if !strings.Contains(table, "| "+MissCulpritAbsent+" | 0 | 1 | 0 |") || !strings.Contains(table, "| "+MissTermsOnly+" | 0 | 1 | 0 |") ||
		!strings.Contains(table, "target-less, "+MissTermsOnly+", by winning rule: crash-loop 1") {
		t.Errorf("table:\n%s", table)
	}
}

// TestNoLogsConfig: log requests are refused as Forbidden without reaching the server; other
// requests pass.
func TestNoLogsConfig(t *testing.T) {
	var logCalls, podCalls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/log") {
			logCalls.Add(1)
			_, _ = w.Write([]byte("a log line\n"))
			return
		}
		podCalls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns"}}`))
	}))
	defer srv.Close()
	cs, err := kubernetes.NewForConfig(NoLogsConfig(&rest.Config{Host: srv.URL}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := cs.CoreV1().Pods("ns").Get(ctx, "p", metav1.GetOptions{}); err != nil {
		t.Fatalf("get pod: %v", err)
	}
	_, err = cs.CoreV1().Pods("ns").GetLogs("p", &corev1.PodLogOptions{}).DoRaw(ctx)
	if !apierrors.IsForbidden(err) {
		t.Errorf("logs: %v, want Forbidden", err)
	}
	if logCalls.Load() != 0 || podCalls.Load() != 1 {
		t.Errorf("server saw %d log and %d pod requests, want 0 and 1", logCalls.Load(), podCalls.Load())
	}
}
