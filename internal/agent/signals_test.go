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

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestParseScheduling(t *testing.T) {
	cases := []struct {
		msg       string
		want      SchedReason
		resources string
		claim     string
	}{
		{"0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found.", SchedInsufficient, "cpu", ""},
		{"0/4 nodes are available: 2 Insufficient memory, 2 Insufficient cpu. preemption: ...", SchedInsufficient, "memory,cpu", ""},
		{"0/2 nodes are available: 2 Too many pods.", SchedInsufficient, "pods", ""},
		{"0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) didn't match Pod's node affinity/selector.", SchedAffinity, "", ""},
		{"0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.", SchedTaint, "", ""},
		{"0/3 nodes are available: 3 node(s) were unschedulable.", SchedCordoned, "", ""},
		{"0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.", SchedUnboundPVC, "", ""},
		{`0/3 nodes are available: persistentvolumeclaim "data-db-0" not found.`, SchedMissingPVC, "", "data-db-0"},
		{"0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules.", SchedOther, "", ""},
		{"0/3 nodes are available: 3 node(s) didn't have free ports for the requested pod ports.", SchedOther, "", ""},
		{"", SchedOther, "", ""},
		{"garbage ::: {{{ 99999999999999999999 Insufficient", SchedInsufficient, "", ""},
	}
	for _, c := range cases {
		v := ParseScheduling(c.msg)
		if v.Reason != c.want || (c.resources != "" && strings.Join(v.Resources, ",") != c.resources) || v.Claim != c.claim {
			t.Errorf("ParseScheduling(%q) = %+v, want %s %s %s", c.msg, v, c.want, c.resources, c.claim)
		}
	}
}

func TestClassifyPull(t *testing.T) {
	cases := map[string]PullFailure{
		`failed to pull and unpack image "docker.io/library/nginx:nope": failed to resolve reference: docker.io/library/nginx:nope: not found`: PullNotFound,
		`rpc error: code = Unknown desc = Error response from daemon: manifest for nginx:nope not found: manifest unknown`:                     PullNotFound,
		`failed to authorize: failed to fetch oauth token: unexpected status: 401 Unauthorized`:                                                PullAuth,
		`pull access denied for private/app, repository does not exist or may require 'docker login': denied: requested access`:                PullAmbiguous,
		`dial tcp: lookup registry.example on 10.96.0.10:53: no such host`:                                                                     PullNetwork,
		`Back-off pulling image "x"`: PullUnknown,
		`Back-off pulling image "registry.private.example/app:1": ErrImagePull: pull access denied, repository does not exist or may require authorization: server message: 401 Unauthorized: unauthorized: authentication required`: PullAuth,
	}
	for msg, want := range cases {
		if got := ClassifyPull(msg); got != want {
			t.Errorf("ClassifyPull(%q) = %d, want %d", msg, got, want)
		}
	}
}

func TestParseConfigError(t *testing.T) {
	cases := map[string]ConfigProblem{
		`configmap "app-config" not found`:                                        {Kind: "ConfigMap", Name: "app-config"},
		`secret "db-creds" not found`:                                             {Kind: "Secret", Name: "db-creds"},
		`couldn't find key DB_HOST in ConfigMap payments/app-config`:              {Kind: "ConfigMap", Name: "app-config", Key: "DB_HOST"},
		`couldn't find key password in Secret payments/db`:                        {Kind: "Secret", Name: "db", Key: "password"},
		`MountVolume.SetUp failed for volume "cfg" : configmap "nginx" not found`: {Kind: "ConfigMap", Name: "nginx"},
	}
	for msg, want := range cases {
		got, ok := ParseConfigError(msg)
		if !ok || got != want {
			t.Errorf("ParseConfigError(%q) = %+v %t, want %+v", msg, got, ok, want)
		}
	}
	if _, ok := ParseConfigError("container has runAsNonRoot and image will run as root"); ok {
		t.Errorf("unrelated message parsed as a config problem")
	}
}

func TestParseCreateFailure(t *testing.T) {
	cases := []struct{ msg, rule, obj string }{
		{`pods "web-1" is forbidden: exceeded quota: compute-resources, requested: requests.cpu=2, used: requests.cpu=1, limited: requests.cpu=2`, "quota-exceeded", "compute-resources"},
		{`pods "web-1" is forbidden: failed quota: compute: must specify limits.cpu for: app; limits.memory for: app`, "quota-missing-requests", "compute"},
		{`pods "web-1" is forbidden: [maximum cpu usage per Container is 500m, but limit is 2, maximum memory usage per Container is 512Mi, but limit is 1Gi]`, "limitrange-violation", ""},
		{`pods "web-1" is forbidden: minimum memory usage per Pod is 64Mi, but request is 32Mi`, "limitrange-violation", ""},
		{`pods "web-1" is forbidden: error looking up service account payments/builder: serviceaccount "builder" not found`, "serviceaccount-missing", "builder"},
		{`admission webhook "validate.kyverno.svc" denied the request: policy require-labels`, "admission-denied", "validate.kyverno.svc"},
		{`pods "web-1" is forbidden: violates PodSecurity "restricted:latest": privileged`, "admission-denied", "PodSecurity"},
		{`something else entirely`, "workload-create-failed", ""},
		{`Pod "pdf-x" is invalid: spec.containers[0].resources.requests: Invalid value: "1": must be less than or equal to cpu limit of 500m`, "workload-create-failed", "cpu=500m"},
	}
	for _, c := range cases {
		got := ParseCreateFailure(c.msg)
		if got.Rule != c.rule || got.Object != c.obj {
			t.Errorf("ParseCreateFailure(%q) = %+v, want %s %s", c.msg, got, c.rule, c.obj)
		}
		if _, ok := Catalogue[got.Rule]; !ok {
			t.Errorf("rule %s is not in the catalogue", got.Rule)
		}
	}
}

// A long value in a validation error is shortened so that the reason after it is kept.
func TestCreateFailureKeepsTheReasonAfterALongValue(t *testing.T) {
	name := "customer-notification-preferences-eu-staging-postgresql-7c9d8f6b54"
	msg := `create Pod ` + name + `-0 in StatefulSet ` + name[:56] + ` failed error: Pod "` + name + `-0" is invalid: metadata.labels: Invalid value: "` + name + `": must be no more than 63 characters; spec.hostname: Invalid value: "` + name + `-0": must be no more than 63 characters`
	if got := ParseCreateFailure(msg).Detail; !strings.Contains(got, "must be no more than 63 characters") {
		t.Errorf("the reason was clipped away: %s", got)
	}
}

func TestFill(t *testing.T) {
	got := fill("kubectl -n {ns} scale {resource} --replicas={n} -o jsonpath='{.items}'", map[string]string{"ns": "a", "resource": "deployment/web"})
	if got != "kubectl -n a scale deployment/web --replicas=<n> -o jsonpath='{.items}'" {
		t.Errorf("fill = %q", got)
	}
}

// TestCatalogueIsComplete checks every rule id used in the analyzers exists, and every
// catalogue entry is well formed.
func TestCatalogueIsComplete(t *testing.T) {
	used := regexp.MustCompile(`Rule: "([a-z0-9-]+)"|rule(?:, summary)? :?= "([a-z0-9-]+)"|pc\.find\(ctx, "([a-z0-9-]+)"|case "([a-z0-9-]+)":\n\t\trule`)
	files, _ := filepath.Glob("*.go")
	seen := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range used.FindAllStringSubmatch(string(b), -1) {
			for _, g := range m[1:] {
				if g != "" {
					seen[g] = true
				}
			}
		}
	}
	if len(seen) < 30 {
		t.Fatalf("rule-id scan found only %d ids; the pattern is stale", len(seen))
	}
	for id := range seen {
		if _, ok := Catalogue[id]; !ok {
			t.Errorf("analyzers use rule %q, which is not in the catalogue", id)
		}
	}
	camel := regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
	for _, r := range Rules() {
		if !camel.MatchString(r.Category) || len(r.Category) > 63 {
			t.Errorf("%s: category %q is not UpperCamelCase", r.ID, r.Category)
		}
		if r.Confidence <= 0 || r.Confidence > 100 || r.Title == "" || r.Signals == "" || len(r.Actions) == 0 {
			t.Errorf("%s: incomplete rule %+v", r.ID, r)
		}
		for _, a := range r.Actions {
			if a.Risk == "" {
				t.Errorf("%s: action without risk", r.ID)
			}
		}
	}
	if len(Catalogue) < 50 {
		t.Errorf("catalogue has %d rules", len(Catalogue))
	}
}
