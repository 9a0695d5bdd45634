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

package agent

import "testing"

// Users and alerts name objects in many spellings; each must come back to the object's name.
func TestMentionForms(t *testing.T) {
	cases := []struct {
		problem string
		hints   []string
		exact   []string // names the text names as a whole
		partial []string // names it names a part of
		none    []string // names it does not name
	}{
		{problem: "orders API is slow and some requests fail", exact: []string{"orders-api"}, partial: []string{"orders-db"}, none: []string{"api-gateway"}},
		{problem: "checkout-7d9f8b6c5-x2k4q keeps restarting", exact: []string{"checkout", "checkout-7d9f8b6c5-x2k4q"}},
		{problem: "pod inventory-6d4cf56db6-8fk2l is OOMKilled", exact: []string{"inventory"}},
		{problem: "kafka-2 never becomes ready", exact: []string{"kafka"}, none: []string{"zookeeper"}},
		{problem: "requests to ledger.finance.svc.cluster.local:5432 time out", exact: []string{"ledger"}},
		{problem: "finance/ledger returns 503", exact: []string{"ledger", "finance"}},
		{problem: "https://shop.example.com/cart returns 502 since the release", exact: []string{"shop.example.com"}},
		{problem: "Forbidden: User \"system:serviceaccount:ci:deployer\" cannot create jobs", exact: []string{"deployer"}},
		{problem: "Grafana's dashboards fail to save", exact: []string{"grafana"}, partial: []string{"grafana-renderer"}},
		{problem: "the payments sync is hours behind", exact: []string{"payments-sync"}, partial: []string{"payments-gateway"}},
		{problem: "redis-cache is slow", exact: []string{"redis-cache"}, none: []string{"redis"}},
		{problem: "web-v2 returns 500", exact: []string{"web-v2"}, none: []string{"web"}},
		{problem: "Alert KubePodCrashLooping is firing in namespace shop.",
			hints: []string{"runbook_url: https://runbooks.example/kube/pod-crash", "labels: alertname=KubePodCrashLooping, container=app, namespace=shop, pod=cart-5c9f7d8b4-qwx7z"},
			exact: []string{"cart"}, none: []string{"pod-crash"}},
	}
	for _, c := range cases {
		f := mentionForms(c.problem, c.hints)
		for _, n := range c.exact {
			if got := mentionScore(f, n); got != mentionExact {
				t.Errorf("%q: %s scores %d, want %d (forms %v)", c.problem, n, got, mentionExact, f)
			}
		}
		for _, n := range c.partial {
			if got := mentionScore(f, n); got != mentionPartial {
				t.Errorf("%q: %s scores %d, want %d (forms %v)", c.problem, n, got, mentionPartial, f)
			}
		}
		for _, n := range c.none {
			if got := mentionScore(f, n); got != 0 {
				t.Errorf("%q: %s scores %d, want 0 (forms %v)", c.problem, n, got, f)
			}
		}
	}
}

func TestStemScore(t *testing.T) {
	f := mentionForms("customers stopped getting notifications; thumbnails and payment statuses too", nil)
	for _, n := range []string{"notifier", "thumbnailer", "payments-sync"} {
		if stemScore(f, n) == 0 {
			t.Errorf("%s: no stem match in %v", n, f)
		}
	}
	for _, n := range []string{"accounts", "cache", "gateway", "notary"} {
		if stemScore(f, n) != 0 {
			t.Errorf("%s: unexpected stem match", n)
		}
	}
}

// The ways users say a call times out or a gateway fails nudge toward the rules about calls.
func TestProblemAffinityPhrasings(t *testing.T) {
	for _, c := range []struct{ problem, rule string }{
		{"requests to checkout time out", "dependency-unreachable"},
		{"the API times out after 30s", "networkpolicy-deny-ingress"},
		{"calls to billing are timing out", "dependency-unreachable"},
		{"the ingress returns 504 Gateway Timeout", "dependency-unreachable"},
		{"the worker keeps dying", "crash-loop"},
	} {
		if problemAffinity(c.problem, c.rule) == 0 {
			t.Errorf("%q does not nudge toward %s", c.problem, c.rule)
		}
	}
}
