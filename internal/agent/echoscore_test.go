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

// Which setting an error's words name best, among settings of one configuration: the
// distinctive words win over the generic ones (rate, limit, max), a token spelt as the
// setting wins outright, and shared generic words alone name nothing.
func TestEchoScoreRanking(t *testing.T) {
	cases := []struct {
		line     string
		settings []string
		want     string // "" when none may be named
	}{
		{"Ingestion rate limit exceeded for user tenant-1 (limit: 4194304 bytes/sec)", []string{"per_stream_rate_limit", "ingestion_rate_mb", "ingestion_burst_size_mb", "max_query_length"}, "ingestion_rate_mb"},
		{"ERROR 1040 (08004): Too many connections", []string{"max_connections", "max_allowed_packet", "wait_timeout"}, "max_connections"},
		{"sorry, too many clients already; max_connections is 100", []string{"shared_buffers", "max_connections"}, "max_connections"},
		{"MongoServerError: Authentication failed; authSource may be wrong", []string{"MONGO_AUTH_SOURCE", "authSource", "MONGO_HOST"}, "authSource"},
		{"ERR rate limit reached, retry later", []string{"RATE_LIMIT_ENABLED", "RATE_LIMIT_WINDOW"}, ""},
		{"request body exceeds the maximum body size of 1048576", []string{"proxy-body-size", "proxy-read-timeout"}, "proxy-body-size"},
	}
	for _, c := range cases {
		words, compounds := echoWords(c.line)
		got, best := "", 0.0
		for _, s := range c.settings {
			if n := echoScore(s, words, compounds); n > best {
				got, best = s, n
			}
		}
		if got != c.want {
			t.Errorf("%q: named %q (%.1f), want %q", c.line, got, best, c.want)
		}
	}
}
