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
	"strings"
	"testing"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/test/vocabulary"
)

// Every rule of the catalogue declares its vocabulary, so a new rule is audited too.
func TestVocabularyCoversTheCatalogue(t *testing.T) {
	for _, r := range agent.Rules() {
		if _, ok := vocabulary.Vocabulary[r.ID]; !ok {
			t.Errorf("rule %s has no vocabulary entry (test/vocabulary)", r.ID)
		}
	}
	for id := range vocabulary.Vocabulary {
		if _, ok := agent.Catalogue[id]; !ok {
			t.Errorf("the vocabulary names %s, which is no rule", id)
		}
	}
}

// auditedElsewhere are the rules whose representative clusters need container logs or a
// step-by-step drive (internal/agent's table tests, runDepCases, check their vocabulary),
// and the rules that never conclude alone.
var auditedElsewhere = map[string]bool{
	"dependency-host-unknown": true, "dependency-unreachable": true, "dependency-auth-failed": true, "dependency-port-mismatch": true, "pod-dns-misconfigured": true, "dependency-protocol-mismatch": true, "service-link-collision": true, "server-advertises-loopback": true, "dependency-default-address": true, "config-setting-named": true, "provider-setting-limit": true, "tls-material-invalid": true,
	"dependency-connection-limit": true, "connection-pool-exhausted": true, "resource-env-unit-mismatch": true, "config-value-missing": true, "config-file-missing": true, "app-error-logged": true,
	"networkpolicy-deny-egress": true, "schema-not-migrated": true, "certificate-expired": true, "certificate-name-mismatch": true, "agent-address-pod-ip": true, "ingress-path-type-mismatch": true, "volume-full": true,
	"single-writer-store-shared": true, "pooler-transaction-mode": true, "write-to-read-replica": true, "disk-watermark-read-only": true, "worker-pool-by-cpus": true, "topic-not-created": true,
	"server-limit-reached": true, "client-connection-setting": true, "server-access-rule": true, "runtime-memory-setting": true, "request-timeout-setting": true, "process-os-limit": true, "server-volume-unwritable": true, "data-directory-setting": true, "setting-switched-off": true, "provider-listens-loopback": true,
	"controller-skips-object": true, "serviceaccount-not-set": true, "service-backends-wrong": true, "proxy-intercepts-cluster-call": true, // rbacidentity_test.go, backends_test.go, proxy_test.go
	// The scheduler's clauses followed to what a user changes (schedclauses_test.go).
	"unschedulable-preemption-never": true, "unschedulable-volume-node-affinity": true, "unschedulable-device-plugin": true, "unschedulable-topology-spread": true, "unschedulable-host-port": true,
	"mount-not-writable": true, "config-file-invalid": true, "config-value-rejected": true, "migration-rejected": true, "rbac-forbidden": true, "cronjob-jobs-pile-up": true,
	// Steps of a chain: a deeper finding explains them whenever the cluster shows them, so
	// their words reach a reader as "Seen as:"; rbac-allowed answers a question, no failure.
	"container-not-ready": true, "cronjob-job-failing": true, "pod-on-unhealthy-node": true, "pod-pvc-pending": true,
	"service-workload-no-pods": true, "statefulset-pvc-pending": true, "rbac-allowed": true,
}

// Every rule's summary, from a representative cluster, names its culprit by kind and name,
// the object holding a reference, the reason Kubernetes reports and the words of the
// mechanism; and every rule that concludes something has such a cluster here or, for the
// rules that need logs, in internal/agent.
func TestSummaryVocabulary(t *testing.T) {
	seen := map[string]bool{}
	check := func(t *testing.T, rule string, c agent.Conclusion) {
		rc := c.RootCause
		if rc.Rule != rule {
			t.Fatalf("want %s, got %s on %s: %s", rule, rc.Rule, rc.Culprit, rc.Summary)
		}
		seen[rule] = true
		t.Logf("%s: %s", rc.Rule, rc.Summary)
		for _, g := range vocabulary.Gaps(rc) {
			t.Errorf("%s: the summary does not name %s: %s", rc.Rule, g, rc.Summary)
		}
	}
	for _, sc := range scenarios() {
		if sc.failed != "" {
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			c, _ := run(t, sc.target, sc.objs()...)
			check(t, sc.rule, c)
		})
	}
	for _, vc := range vocabCases() {
		t.Run(vc.name, func(t *testing.T) {
			s := agent.Session{ID: "t", Problem: vc.problem, Namespace: ns, Target: vc.target}
			c, _, err := runSession(context.Background(), engine(vc.objs()...), s, agent.Budget{})
			if err != nil {
				t.Fatalf("session: %v", err)
			}
			check(t, vc.rule, c)
			for _, w := range vc.contains {
				if !strings.Contains(c.RootCause.Summary, w) {
					t.Errorf("summary lacks %q: %s", w, c.RootCause.Summary)
				}
			}
		})
	}
	var missing []string
	for _, r := range agent.Rules() {
		if vocabulary.Vocabulary[r.ID] != nil && !seen[r.ID] && !auditedElsewhere[r.ID] {
			missing = append(missing, r.ID)
		}
	}
	if len(missing) > 0 {
		t.Errorf("rules without a representative cluster: %s", strings.Join(missing, " "))
	}
}
