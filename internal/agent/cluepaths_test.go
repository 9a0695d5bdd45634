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
)

// Paths of code (frames of the application or of installed libraries) are not files the
// application wanted; configuration files stay, with or without a line number.
func TestCluePathsSkipCodeLocations(t *testing.T) {
	cases := []struct {
		name, log string
		want      []string
		not       []string
	}{
		{"Ruby backtrace from gems",
			"E, [2026-01-01T10:00:00 #1] ERROR -- : amqp: Connection-level error: NOT_ALLOWED - vhost billing not found\n/usr/local/bundle/gems/bunny-2.22.0/lib/bunny/session.rb:1262:in `open_connection': NOT_ALLOWED - vhost billing not found (Bunny::NotAllowedError)\n\tfrom /app/lib/consumer.rb:18:in `<main>'\n",
			nil, []string{"session.rb", "/app/lib/consumer.rb"}},
		{"Python traceback through site-packages",
			"Traceback (most recent call last):\n  File \"/opt/venv/lib/python3.11/site-packages/redis/connection.py\", line 707, in connect\nredis.exceptions.ResponseError: OOM command not allowed when used memory > 'maxmemory'. config /srv/app/settings/redis.conf not found\n",
			[]string{"/srv/app/settings/redis.conf"}, []string{"connection.py"}},
		{"Node error with frames",
			"Error: ENOENT: no such file or directory, open '/etc/shop/config.json'\n    at Object.openSync (node:fs:596:3)\n    at load (/usr/src/app/node_modules/convict/lib/convict.js:612:18)\n    at /usr/src/app/src/index.ts:12:7\n",
			[]string{"/etc/shop/config.json"}, []string{"convict.js", "index.ts"}},
		{"a request path in a Redis reply is no file",
			"ERROR POST /v1/notifications failed: MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk\n",
			nil, []string{"/v1/notifications"}},
		{"a request path in an access line is no file",
			"10.0.3.4 - - [01/Jan/2026:10:00:00 +0000] \"GET /reports/monthly/2026 HTTP/1.1\" 502 157 upstream error\n",
			nil, []string{"/reports/monthly/2026"}},
		{"a logfmt path field is no file, the config file beside it is",
			"level=error path=/orders/checkout/confirm msg=\"config /etc/shop/app.toml not found\"\n",
			[]string{"/etc/shop/app.toml"}, []string{"/orders/checkout/confirm"}},
		{"a JSON route field is no file, the file its message opens is",
			"{\"level\":\"error\",\"route\":\"/billing/invoices/run\",\"msg\":\"open /srv/billing/rates.csv: no such file\"}\n",
			[]string{"/srv/billing/rates.csv"}, []string{"/billing/invoices/run"}},
		{"a YAML file quoted with its line number stays",
			"level=error msg=\"cannot parse /etc/relay/relay.yaml:14: mapping values are not allowed here\"\n",
			[]string{"/etc/relay/relay.yaml"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := ExtractClues(strings.Split(tc.log, "\n"))
			for _, w := range tc.want {
				if !containsStr(c.Paths, w) {
					t.Errorf("paths %v lack %s", c.Paths, w)
				}
			}
			for _, n := range tc.not {
				for _, p := range c.Paths {
					if strings.HasSuffix(p, n) {
						t.Errorf("paths %v hold the code location %s", c.Paths, p)
					}
				}
			}
		})
	}
}
