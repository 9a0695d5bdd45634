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

package agent_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// An outside service that logs pods in by their ServiceAccount (Vault, IRSA) and rejects
// them names the workload with the ServiceAccount its pods run as, and the one named for
// the workload when that one exists unused; hclog's multi-line value carries the reason.
func TestIdentityRejectedNamesTheServiceAccount(t *testing.T) {
	withSA := func(name string) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) {
			s.ServiceAccountName = name
			s.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready"}}}
			s.Containers = append(s.Containers, corev1.Container{Name: "secrets-agent", Image: "hashicorp/vault:1.17.2", Args: []string{"agent", "-config=/etc/vault/agent.hcl"}})
		}
	}
	unhealthy := func(o []runtime.Object) []runtime.Object {
		for _, x := range o {
			if p, ok := x.(*corev1.Pod); ok {
				o = append(o, fx.Event(ns, "Pod", p.Name, "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 40, 0))
			}
		}
		return o
	}
	hclog := "==> Vault Agent started! Log data will stream in below:\n" +
		"2026-11-27T09:00:01.100Z [INFO]  agent.auth.handler: authenticating\n" +
		"2026-11-27T09:00:01.120Z [ERROR] agent.auth.handler: error authenticating:\n  error=\n  | Error making API request.\n  | \n  | URL: PUT http://vault.secrets.svc:8200/v1/auth/kubernetes/login\n  | Code: 403. Errors:\n  | \n  | * service account name not authorized\n  \n  backoff=2s\n" +
		"2026-11-27T09:00:03.120Z [INFO]  agent.auth.handler: authenticating\n" +
		"2026-11-27T09:00:03.140Z [ERROR] agent.auth.handler: error authenticating:\n  error=\n  | Error making API request.\n  | Code: 403. Errors:\n  | * service account name not authorized\n  backoff=4s\n"
	runDepCases(t, []depCase{
		{name: "Vault's Kubernetes auth refuses the ServiceAccount the pods were moved to", problem: "ledger pods run but never get ready",
			objs: func() []runtime.Object {
				o := unhealthy(app("ledger", 2, withSA("payments-shared"), func(p *corev1.Pod) { fx.SetNotReady(p) }))
				return append(o, sa("payments-shared"), sa("ledger"), fx.Node("node-1"))
			},
			logs: logBook{"ledger-": hclog},
			rule: "dependency-auth-failed", culprit: "Deployment/ledger", affected: []string{"ServiceAccount/payments-shared", "ServiceAccount/ledger"},
			terms: []string{"service account name not authorized", "ServiceAccount payments-shared", "serviceAccountName back to ledger"}},
		{name: "IRSA refuses to assume the role for the pod's ServiceAccount", problem: "exporter crash-loops",
			objs: func() []runtime.Object {
				o := app("exporter", 1, func(s *corev1.PodSpec) { s.ServiceAccountName = "default" }, crashing)
				return append(o, sa("default"), fx.Node("node-1"))
			},
			logs: logBook{"exporter-": "starting exporter\nfatal: WebIdentityErr: failed to retrieve credentials\ncaused by: AccessDenied: Not authorized to perform sts:AssumeRoleWithWebIdentity\n\tstatus code: 403, request id: 4e1c\n"},
			rule: "dependency-auth-failed", culprit: "Deployment/exporter", affected: []string{"ServiceAccount/default"},
			terms: []string{"ServiceAccount default"}},
	})
}

// hclog's multi-line value joins its entry's line, bounded; ordinary indented lines of other
// formats stay their own.
func TestHclogValueJoinsItsEntry(t *testing.T) {
	c := agent.ExtractClues(strings.Split("2026-11-27T09:00:01Z [ERROR] agent: error authenticating:\n  error=\n  | Code: 403. Errors:\n  | * permission denied\n  backoff=1s\n2026-11-27T09:00:02Z [INFO]  agent: authenticating", "\n"))
	if !strings.Contains(c.Line, "* permission denied") || !strings.Contains(c.Line, "error authenticating") {
		t.Errorf("clue line %q does not join the value to its entry", c.Line)
	}
	long := "2026-11-27T09:00:01Z [ERROR] agent: failed:\n  error=\n" + strings.Repeat("  | "+strings.Repeat("x", 200)+"\n", 200)
	if c := agent.ExtractClues(strings.Split(long, "\n")); len(c.Line) > 400 {
		t.Errorf("a joined entry is not bounded: %d bytes", len(c.Line))
	}
	stack := agent.ExtractClues([]string{"Traceback (most recent call last):", `  File "/app/x.py", line 3, in <module>`, "KeyError: 'DB_URL'"})
	if !strings.Contains(stack.Line, "KeyError") {
		t.Errorf("an indented stack frame was joined: %q", stack.Line)
	}
}
