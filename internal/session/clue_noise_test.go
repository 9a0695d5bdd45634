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

package session

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// runWithLog runs a targeted rule-engine session whose containers log the named file of
// hack/kwok/logs (the same text the real-cluster scenarios serve) and returns its culprit.
func runWithLog(t *testing.T, objs []runtime.Object, logFile, target string) agent.RootCause {
	t.Helper()
	cs := fake.NewClientset(objs...)
	re := agent.NewRuleEngine(cs)
	re.Now = func() time.Time { return fx.Now }
	raw, err := os.ReadFile("../../hack/kwok/logs/" + logFile)
	if err != nil {
		t.Fatal(err)
	}
	re.Logs = logSource(strings.Split(strings.TrimRight(string(raw), "\n"), "\n")...)
	res, err := (&Local{Client: cs, Brain: re}).Run(context.Background(), agent.Session{Problem: target + " keeps restarting", Namespace: ns, Target: &agent.Target{Kind: "Deployment", Name: target}}, agent.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Conclusion.RootCause
}

// A termination message that only says "see the log" does not outrank the log's error line,
// which names a misspelt host held in a ConfigMap (scenario ledger-generic-termination-message).
func TestLogErrorOutranksAGenericTerminationMessage(t *testing.T) {
	be := fx.Deployment(ns, "ledger-postgres", 1, "postgres:16")
	svc := fx.Service(ns, "ledger-postgres", map[string]string{"app": "ledger-postgres"}, intstr.FromInt(5432))
	cm := fx.ConfigMap(ns, "ledger-config", "DB_HOST", "DB_NAME")
	cm.Data["DB_HOST"] = "ledger-postgress"
	d := fx.Deployment(ns, "ledger-api", 1, "x:1")
	d.Spec.Template.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "ledger-config"}}}}
	rs := fx.ReplicaSet(d, 1, 1, "x:1")
	p := fx.PodFor(rs, "a")
	fx.CrashLoop(p, 1, "Error", 3)
	p.Status.ContainerStatuses[0].LastTerminationState.Terminated.Message = "fatal error during startup; see the container log for details"
	rc := runWithLog(t, []runtime.Object{be, svc, cm, d, rs, p, fx.Node("node-1")}, "ledger-generic-termination.log", "ledger-api")
	if rc.Culprit.Kind != "ConfigMap" || rc.Culprit.Name != "ledger-config" || !strings.Contains(rc.Summary, "ledger-postgress") {
		t.Fatalf("culprit %s: %s", rc.Culprit, rc.Summary)
	}
}

// The error line is followed by a long stack trace: the log tail is long enough to keep it,
// and the Service it names is followed (scenario search-indexer-error-before-stacktrace).
func TestErrorLineBeforeALongStackTrace(t *testing.T) {
	be := fx.Deployment(ns, "elastic", 1, "es:1")
	svc := fx.Service(ns, "search-es", map[string]string{"app": "elasticsearch"}, intstr.FromString("http"))
	svc.Spec.Ports[0].Port = 9200
	d := fx.Deployment(ns, "search-indexer", 1, "x:1")
	d.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "ES_URL", Value: "http://search-es:9200"}}
	rs := fx.ReplicaSet(d, 1, 1, "x:1")
	p := fx.PodFor(rs, "a")
	fx.CrashLoop(p, 1, "Error", 3)
	rc := runWithLog(t, []runtime.Object{be, svc, d, rs, p, fx.Node("node-1")}, "search-indexer-stacktrace.log", "search-indexer")
	if rc.Culprit.Kind != "Service" || rc.Culprit.Name != "search-es" {
		t.Fatalf("culprit %s: %s", rc.Culprit, rc.Summary)
	}
}

// A termination message with an error of its own ("panic: nil map") is what the summary
// quotes, even when the log's last run shows a louder error that leads nowhere.
func TestTerminationMessageIsQuotedWhenTheLogLeadsNowhere(t *testing.T) {
	d := fx.Deployment(ns, "shop", 1, "x:1")
	rs := fx.ReplicaSet(d, 1, 1, "x:1")
	p := fx.PodFor(rs, "a")
	fx.CrashLoop(p, 1, "Error", 3)
	p.Status.ContainerStatuses[0].LastTerminationState.Terminated.Message = "panic: nil map"
	rc := runWithLog(t, []runtime.Object{d, rs, p, fx.Node("node-1")}, "crashloop.log", "shop")
	if !strings.Contains(rc.Summary, "panic: nil map") {
		t.Fatalf("culprit %s: %s", rc.Culprit, rc.Summary)
	}
}
