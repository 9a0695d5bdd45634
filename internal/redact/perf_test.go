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

package redact

import (
	"strings"
	"testing"
)

// BenchmarkRedact measures a prompt-sized text of ordinary tool output.
func BenchmarkRedact(b *testing.B) {
	text := strings.Repeat("- 60s ago  Warning  BackOff  x30  Pod/web-z7f692m2l7-p0000: Back-off restarting failed container app in pod web-z7f692m2l7-p0000 {\"kind\":\"Deployment\",\"name\":\"web\"} token budget 12:30:45 at 10.0.0.1\n", 50)
	r := New([]byte("k"))
	b.SetBytes(int64(len(text)))
	for n := 0; n < b.N; n++ {
		r.Redact(text)
	}
}
