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
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kubage/kubage/internal/tools"
)

// Fuzz targets for the parsers of untrusted kubelet/scheduler/controller text. The seeds
// run with every `go test`; `go test -fuzz=FuzzSignals ./internal/agent` explores more.
func FuzzSignals(f *testing.F) {
	for _, s := range []string{
		"0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. preemption: x",
		`couldn't find key password in Secret payments/db`, `configmap "a" not found`,
		`pods "x" is forbidden: exceeded quota: q, requested: requests.cpu=1`, "pull access denied", "\x00\xff{}",
		"0/9: 9 Insufficient nvidia.com/gpu.", `failed quota: q: must specify limits.cpu`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := ParseScheduling(s)
		if v.Reason == "" {
			t.Fatalf("no reason for %q", s)
		}
		for _, r := range v.Resources {
			if len(r) > 100 {
				t.Fatalf("resource not bounded: %d", len(r))
			}
		}
		_ = ClassifyPull(s)
		if cp, ok := ParseConfigError(s); ok && (cp.Name == "" || len(cp.Name) > 253) {
			t.Fatalf("bad config problem %+v", cp)
		}
		cf := ParseCreateFailure(s)
		if _, ok := Catalogue[cf.Rule]; !ok || len(cf.Detail) > 2100 {
			t.Fatalf("bad create failure %+v", cf)
		}
		_, _ = parseCron(s)
	})
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31mred", "a\nb\r\nc", "\xff\xfe", strings.Repeat("é", 500)} {
		f.Add(s, 40)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n <= 0 || n > 4096 {
			n = 40
		}
		out := tools.Sanitize(s, n, true)
		if !utf8.ValidString(out) || len(out) > n+len("…") {
			t.Fatalf("Sanitize(%q, %d) = %q", s, n, out)
		}
		if strings.ContainsAny(out, "\n\r\x00\x1b") {
			t.Fatalf("control characters survived: %q", out)
		}
	})
}

func FuzzCron(f *testing.F) {
	for _, s := range []string{"*/5 * * * *", "@hourly", "0 0 29 2 *", "1-5/2 1,2 * JAN-mar mon-fri", "@every 90s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := parseCron(s)
		if err != nil {
			return
		}
		if p, ok := c.prev(fixedNow); ok && p.After(fixedNow) {
			t.Fatalf("prev after now for %q", s)
		}
	})
}

var fixedNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
