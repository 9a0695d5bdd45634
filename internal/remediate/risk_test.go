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

package remediate

import (
	"errors"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

func TestPatchRisk(t *testing.T) {
	cases := []struct {
		patch string
		want  Risk
		names []string
	}{
		{`{"spec":{"replicas":3}}`, Low, nil},
		{`{"spec":{"suspend":false}}`, Low, nil},
		{`{"spec":{"template":{"metadata":{"annotations":{"a":"b"}}}}}`, Low, nil},
		{`{"spec":{"template":{"spec":{"containers":[{"name":"app","resources":{"limits":{"memory":"1Gi"}}}]}}}}`, Medium, nil},
		{`{"data":{"LOG_LEVEL":"debug"}}`, Medium, nil},
		{`{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"evil:latest"}]}}}}`, High, []string{"image"}},
		{"spec:\n  template:\n    spec:\n      containers:\n      - name: app\n        command: [sh]\n        args: [-c, id]\n", High, []string{"args", "command"}},
		{`{"spec":{"template":{"spec":{"serviceAccountName":"admin"}}}}`, High, []string{"serviceAccountName"}},
		{`{"spec":{"template":{"spec":{"securityContext":{"runAsUser":0}}}}}`, High, []string{"securityContext"}},
		{`{"spec":{"template":{"spec":{"volumes":[{"name":"root","hostPath":{"path":"/"}}]}}}}`, High, []string{"volumes"}},
		{`[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"evil"}]`, High, []string{"image"}},
		{`[{"op":"add","path":"/spec/template/spec","value":{"hostNetwork":true}}]`, High, []string{"hostNetwork"}},
		{`[{"op":"replace","path":"/spec/replicas","value":2}]`, Low, nil},
		{`[{"op":"remove","path":"/spec/replicas"}]`, Medium, nil},
		{`{"spec":{"template":{"spec":{"$patch":"replace"}}}}`, Medium, nil},
		{`not json: [`, Medium, nil},
		{`"a string"`, Medium, nil},
	}
	for _, c := range cases {
		t.Run(c.patch, func(t *testing.T) {
			g := NewWithT(t)
			r, names := PatchRisk(c.patch)
			g.Expect(r).To(Equal(c.want))
			if c.names != nil {
				g.Expect(names).To(Equal(c.names))
			}
		})
	}
}

func TestCommandRisk(t *testing.T) {
	cases := map[string]Risk{
		"kubectl -n shop rollout restart deployment/web":                                                                 Low,
		"kubectl -n shop scale deployment/web --replicas=2":                                                              Low,
		"kubectl -n shop scale deployment/web --replicas=0":                                                              Medium,
		"kubectl -n shop delete pod web-1":                                                                               Low,
		"kubectl -n shop describe pod web-1":                                                                             Low,
		"kubectl -n shop logs <pod> --previous":                                                                          Low,
		"kubectl -n shop rollout history deployment/web":                                                                 Low,
		"kubectl -n shop rollout undo deployment/web":                                                                    Medium,
		"kubectl -n shop set image deployment/web app=evil:latest":                                                       High,
		"kubectl -n shop set image deployment/web app=<registry/repo:tag>":                                               High,
		"kubectl -n shop set serviceaccount deployment web admin":                                                        High,
		"kubectl -n shop set resources deployment/web --limits=memory=1Gi":                                               Medium,
		"kubectl -n shop patch cronjob nightly --type=merge -p '{\"spec\":{\"suspend\":false}}'":                         Low,
		`kubectl -n shop patch deploy web -p '{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"x"}]}}}}'`: High,
		`kubectl -n shop patch deploy web --type=json --patch='[{"op":"replace","path":"/spec/template/spec/containers/0/command","value":["sh"]}]'`: High,
		"kubectl -n shop patch deploy web --patch-file fix.yaml":                                                                                     Medium,
		"kubectl -n shop exec web-1 -- sh":                                    High,
		"kubectl -n shop create rolebinding x --clusterrole=admin --user=me":  High,
		"kubectl -n shop create serviceaccount web":                           Medium,
		"kubectl -n shop get pods | grep web":                                 Medium,
		"kubectl -n shop delete job x && kubectl -n shop apply -f job-x.yaml": Medium,
		"helm rollback web": Medium,
		"":                  Medium,
	}
	for cmd, want := range cases {
		t.Run(cmd, func(t *testing.T) {
			NewWithT(t).Expect(CommandRisk("shop", cmd)).To(Equal(want))
		})
	}
}

func TestPermission(t *testing.T) {
	g := NewWithT(t)
	op, err := ParseCommand("shop", "kubectl -n shop rollout restart deployment/web")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(op.Permission()).To(Equal(Permission{Verb: "patch", Group: "apps", Resource: "deployments", Namespace: "shop", Name: "web"}))
	g.Expect(op.Permission().String()).To(Equal(`patch deployments.apps "web" in namespace "shop"`))
	op, err = ParseCommand("shop", "kubectl -n shop delete pod web-1")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(op.Permission().String()).To(Equal(`delete pods "web-1" in namespace "shop"`))
	op, err = ParsePatch("shop", "ConfigMap", "", "cfg", "Merge", `{"data":{}}`)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(op.Permission().String()).To(Equal(`patch configmaps "cfg" in namespace "shop"`))
}

// Fuzz targets for the parsers of brain-proposed actions: a command or patch from a model
// is untrusted input. The seeds run with every `go test`; `go test -fuzz=FuzzParseCommand
// ./internal/remediate` explores more.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{
		"kubectl -n shop rollout restart deployment/web", "kubectl scale --replicas 0 statefulsets.apps/db -nshop",
		"kubectl -n shop delete pod web-1  # x", `kubectl --namespace "shop" rollout restart daemonset/agent`,
		"kubectl -n shop delete pod $(whoami)", "kubectl -n 'shop' delete pods/web-2", "kubectl -n shop set image deploy/web a=<img>",
		`kubectl -n shop patch deploy web -p '{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"x"}]}}}}'`,
		"kubectl -n shop scale deploy/web --replicas=-1", "kubectl \"", "\x00\xff'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		op, err := ParseCommand("shop", s)
		risk := CommandRisk("shop", s)
		if err != nil {
			if !errors.Is(err, ErrNotExecutable) {
				t.Fatalf("error outside ErrNotExecutable: %v", err)
			}
			return
		}
		if op.Namespace != "shop" || !validName(op.Name) || kindResources[op.Kind][1] == "" {
			t.Fatalf("op escapes its bounds: %+v from %q", op, s)
		}
		if op.Replicas < 0 || op.Replicas > MaxReplicas {
			t.Fatalf("replicas out of bounds: %+v", op)
		}
		if risk == High {
			t.Fatalf("an executable command is never High: %q", s)
		}
		if strings.ContainsAny(s, ";|&`$") && !strings.ContainsAny(s, "'#") {
			t.Fatalf("shell syntax accepted: %q", s)
		}
	})
}

func FuzzPatchRisk(f *testing.F) {
	for _, s := range []string{
		`{"spec":{"replicas":3}}`, `[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"e"}]`,
		"spec:\n  template:\n    spec:\n      serviceAccountName: x\n", `{"data":{"a":"b"}}`, `[{"op":"add","path":"/a~1b"}]`,
		`{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
		"\x00", "[", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, names := PatchRisk(s)
		if r < Low || r > High {
			t.Fatalf("risk out of range: %d", r)
		}
		if len(names) > 0 && r != High {
			t.Fatalf("sensitive fields %v but risk %s", names, r)
		}
		_, err := ParsePatch("shop", "Deployment", "", "web", "Merge", s)
		if err != nil && !errors.Is(err, ErrNotExecutable) {
			t.Fatalf("error outside ErrNotExecutable: %v", err)
		}
		// Wrapping any document as a container's image field is always High.
		wrapped := `{"spec":{"template":{"spec":{"containers":[{"name":"a","image":` + strconvQuote(s) + `}]}}}}`
		if w, _ := PatchRisk(wrapped); w != High {
			t.Fatalf("image change not High: %s", wrapped)
		}
	})
}
