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

import "strings"

// Words of the problem text nudge the ranking of unrelated findings toward the one the user
// asks about; they never change a finding's confidence.

// ruleWords maps rule-id prefixes to words users write about that kind of failure.
var ruleWords = []struct {
	prefix string
	words  []string
}{
	{"crash-loop", []string{"crash", "restart", "backoff", "exit", "keeps dying", "goes down every"}},
	{"oom", []string{"memory", "oom", "killed"}},
	{"image", []string{"image", "pull", "registry", "tag"}},
	{"invalid-image", []string{"image"}},
	{"unschedulable", []string{"pending", "schedul", "capacity", "taint", "affinity"}},
	{"pod-pvc", []string{"pending", "volume", "pvc", "storage"}},
	{"pvc", []string{"volume", "pvc", "storage", "disk", "claim"}},
	{"statefulset-pvc", []string{"volume", "pvc", "storage"}},
	{"configmap", []string{"config", "configmap", "env"}},
	{"secret", []string{"secret", "credential", "password", "env"}},
	{"readiness", []string{"ready", "readiness", "probe", "traffic", "503"}},
	{"liveness", []string{"liveness", "probe", "restart", "health"}},
	{"service", []string{"service", "endpoint", "traffic", "connect", "unreachable", "503", "refused"}},
	{"deployment-scaled", []string{"service", "endpoint", "traffic", "unreachable", "replica"}},
	{"ingress", []string{"ingress", "404", "502", "route", "host", "url"}},
	{"networkpolicy", []string{"network", "policy", "timeout", "time out", "times out", "timing out", "timed out", "hang", "connect", "unreachable"}},
	{"quota", []string{"quota", "forbidden", "replica"}},
	{"limitrange", []string{"limit", "forbidden", "replica"}},
	{"hpa", []string{"scale", "autoscal", "hpa", "load", "replica"}},
	{"pdb", []string{"drain", "evict", "disruption", "pdb", "upgrade", "maintenance"}},
	{"node", []string{"node", "notready", "pressure", "evict"}},
	{"job", []string{"job", "batch", "backoff", "migration"}},
	{"cronjob", []string{"cron", "schedule", "did not run", "didn't run", "not running"}},
	{"rollout", []string{"rollout", "deploy", "release", "stuck"}},
	{"dependency-host-unknown", []string{"dns", "resolve", "no such host", "lookup", "hostname"}},
	{"connection-pool", []string{"pool", "slow", "timeout", "database", "connection", "500", "under load"}},
	{"dependency-protocol", []string{"tls", "https", "ssl", "handshake", "connect", "upstream"}},
	{"pod-dns", []string{"dns", "resolve", "no such host", "lookup", "hostname", "nameserver"}},
	{"dependency", []string{"connect", "unreachable", "timeout", "time out", "times out", "timing out", "timed out", "refused", "database", "upstream", "502", "503", "504", "gateway"}},
	{"networkpolicy-deny-egress", []string{"dns", "egress", "outbound", "external"}},
	{"config", []string{"config", "setting", "variable", "file"}},
	{"certificate", []string{"tls", "certificate", "x509", "ssl", "https"}},
	{"volume-full", []string{"disk", "space", "full", "storage"}},
	{"mount-not-writable", []string{"permission", "read-only", "write", "volume"}},
	{"rbac", []string{"permission", "forbidden", "rbac", "access", "denied", "cannot list", "cannot get", "can't"}},
	{"rolebinding", []string{"permission", "forbidden", "rbac", "access", "role"}},
	{"admission", []string{"webhook", "admission", "policy", "denied", "rejected"}},
	{"priorityclass", []string{"priority"}},
	{"runtimeclass", []string{"runtime", "sandbox"}},
	{"serviceaccount", []string{"service account", "serviceaccount"}},
	{"daemonset", []string{"daemonset", "every node", "agent"}},
	{"deployment-paused", []string{"rollout", "deploy", "new version", "paused", "not updated"}},
	{"rollout-held", []string{"rollout", "new version", "not updated", "old version", "still runs", "update"}},
	{"statefulset-service", []string{"dns", "statefulset", "headless", "peer"}},
	{"schema", []string{"migration", "schema", "table", "relation", "database"}},
	{"pull-secret", []string{"image", "pull", "registry"}},
}

func problemAffinity(problem, rule string) int {
	p := strings.ToLower(problem)
	if p == "" {
		return 0
	}
	for _, rw := range ruleWords {
		if !strings.HasPrefix(rule, rw.prefix) {
			continue
		}
		for _, w := range rw.words {
			if strings.Contains(p, w) {
				return 6
			}
		}
	}
	return 0
}

// problemWords splits the problem text into lower-case name-like tokens.
func problemWords(problem string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(clipString(problem, 2000)), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.')
	}) {
		out[strings.Trim(w, ".-")] = true
	}
	return out
}

// exactNameAffinity is the ranking weight of a finding about an object the problem names
// as a whole; unnamedPenalty is taken from findings about nothing it names, when another
// finding is about such an object.
const (
	exactNameAffinity = 12
	unnamedPenalty    = 20
)

// nameAffinity favours candidates about an object the problem names ("web is down", "the
// orders API", "checkout-7d9f8b6c5-x2k4q", "orders.shop.svc:8080"): the whole name counts
// more than a part of it.
func nameAffinity(forms map[string]int, c *candidate) int {
	if len(forms) == 0 {
		return 0
	}
	best := 0
	for _, r := range append([]ObjectRef{c.Culprit, c.Object}, c.Affected...) {
		if r.Name == "" {
			continue
		}
		switch mentionScore(forms, r.Name) {
		case mentionExact:
			return exactNameAffinity
		case mentionPartial:
			best = exactNameAffinity / 2
		}
	}
	return best
}

// touchesMention is a looser test than nameAffinity: some object of the candidate carries a
// word of the problem as a part of its name, generic words included ("web" in web-migrate).
func touchesMention(forms map[string]int, c *candidate) bool {
	for _, r := range append([]ObjectRef{c.Culprit, c.Object}, c.Affected...) {
		for _, part := range strings.Split(strings.ToLower(r.Name), "-") {
			if len(part) >= 3 && forms[part] > 0 {
				return true
			}
		}
	}
	return false
}
