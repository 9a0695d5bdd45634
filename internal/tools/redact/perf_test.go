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
