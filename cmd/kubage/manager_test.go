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

package main

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

func TestParseModelSecret(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want types.NamespacedName
		err  bool
	}{
		{in: "", want: types.NamespacedName{}},
		{in: "kubage-system/model", want: types.NamespacedName{Namespace: "kubage-system", Name: "model"}},
		{in: "model", err: true},
		{in: "/model", err: true},
		{in: "ns/", err: true},
		{in: "a/b/c", err: true},
	} {
		got, err := parseModelSecret(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("parseModelSecret(%q) error = %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if got != tc.want {
			t.Errorf("parseModelSecret(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// The manager's client-side rate limit defaults above one session's burst of reads, and a
// limit that would stop every request is refused before anything starts.
func TestManagerRateLimitFlags(t *testing.T) {
	cmd := newManagerCommand()
	for name, want := range map[string]string{"kube-api-qps": "50", "kube-api-burst": "300"} {
		f := cmd.Flags().Lookup(name)
		if f == nil || f.DefValue != want {
			t.Fatalf("--%s: want default %s, got %+v", name, want, f)
		}
	}
	for _, args := range [][]string{{"--kube-api-qps=0"}, {"--kube-api-burst=0"}, {"--kube-api-qps=-1"}} {
		cmd := newManagerCommand()
		cmd.SetArgs(args)
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "--kube-api-qps must be above 0") {
			t.Errorf("%v: want the rate-limit error, got %v", args, err)
		}
	}
}
