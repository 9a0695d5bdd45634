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

// The line that carries the error, read in context: usage tables, exception chains and
// two-line entries.
func TestExtractCluesInContext(t *testing.T) {
	cases := []struct {
		name, text, line string
		class            ErrClass
		weakHosts, hosts []string
	}{
		{name: "a usage table after the error lists 'error' as an option value",
			text: "boot 1.0\nconfig: required key QUEUE_URL missing value\nThe following environment variables can be used:\n\nKEY          TYPE      DEFAULT\nQUEUE_URL    String    \nLOG_LEVEL    String    info    debug, info, warn or error\nexiting",
			line: "required key QUEUE_URL", class: ErrConfig},
		{name: "flag table after a usage header",
			text: "flag provided but not defined: -mdoe\nUsage of server:\n  -mode string\n    \tone of fast, safe; failed requests are retried\n  -port int\n    \tlisten port (default 8080)",
			line: "flag provided but not defined", class: ErrConfig},
		{name: "the last Caused by of a Java chain, across 'common frames omitted'",
			text: "ERROR c.e.Api : request failed, request timed out after 30000ms\norg.springframework.dao.DataAccessResourceFailureException: Unable to acquire JDBC Connection\n\tat a.b.C.d(C.java:1)\n\t... 58 common frames omitted\nCaused by: java.sql.SQLTransientConnectionException: pool - Connection is not available, request timed out after 30000ms.\n\t... 61 common frames omitted\nCaused by: java.sql.SQLNonTransientConnectionException: Too many connections\n\tat com.mysql.cj.jdbc.exceptions.SQLError.createSQLException(SQLError.java:111)\n\t... 64 common frames omitted",
			line: "Too many connections", class: ErrLimit},
		{name: "postgres connection slots are a limit, not a generic error",
			text: "ERROR query failed: pq: sorry, too many clients already\nINFO GET /orders 200",
			line: "too many clients", class: ErrLimit},
		{name: "a missing file says so without an error marker",
			text: "reading settings\nopen /etc/app/settings.yaml: no such file or directory\nbye",
			line: "settings.yaml", class: ErrConfig},
		{name: "indented text under a fail: header carries the header's severity",
			text: "info: Host[0]\n      Application started.\nfail: Data.Connection[20004]\n      Login timeout expired for database 'orders' on server 'orders-sql'\ninfo: Host[0]\n      Application is shutting down...",
			line: "Login timeout expired", class: ErrTimeout, weakHosts: []string{"orders-sql"}},
		{name: "an error the workload keeps hitting outranks a one-off of the same weight",
			text: "ERROR warmup: GET http://cache:80/warm: i/o timeout\nERROR 12:00:01 charge 1041 failed: dial tcp pay:443: connect: connection refused\nINFO ok\nERROR 12:00:04 charge 1042 failed: dial tcp pay:443: connect: connection refused\nERROR 12:00:07 charge 1043 failed: dial tcp pay:443: connect: connection refused",
			line: "charge 1041 failed", class: ErrRefused},
		{name: "terminal colours around the severity word",
			text: "\x1b[32mINFO\x1b[0m listening on :8080\n\x1b[31mERROR\x1b[0m upstream returned 502 Bad Gateway\n\x1b[32mINFO\x1b[0m tick",
			line: "502 Bad Gateway", class: ErrUnavail},
		{name: "terminal colours as the log tool shows them (escape byte as a dot)",
			text: ".[32mINFO.[0m listening on :8080\n.[31mERROR.[0m upstream returned 502 Bad Gateway\n.[32mINFO.[0m tick",
			line: "502 Bad Gateway", class: ErrUnavail},
		{name: "klog's E and F severity prefixes",
			text: "I0127 10:00:00.000000       1 main.go:10] starting\nE0127 10:00:01.000000       1 sync.go:88] sync of bucket assets not configured\nI0127 10:00:02.000000       1 main.go:12] retrying",
			line: "sync of bucket assets", class: ErrConfig},
		{name: "an Envoy access log names the upstream cluster",
			text: `[2026-01-01T10:00:00.000Z] "GET /v1/quotes HTTP/1.1" 503 UF upstream_reset_before_response_started{connection_failure} - "-" 0 91 3 - "-" "curl/8.5" "a1b2" "pricing:9090" "-" outbound|9090||pricing.shop.svc.cluster.local - 10.96.3.4:9090 10.244.1.5:41234 - default`,
			line: "503 UF", class: ErrRefused, hosts: []string{"pricing.shop.svc.cluster.local:9090"}},
		{name: "gRPC status codes",
			text: "ERROR quote failed: rpc error: code = Unavailable desc = name resolver error: produced zero addresses",
			line: "code = Unavailable", class: ErrUnavail},
		{name: "Python's certificate error with underscores",
			text: "ERROR sync failed: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self-signed certificate in certificate chain (_ssl.c:1006)",
			line: "CERTIFICATE_VERIFY_FAILED", class: ErrTLS},
		{name: "RabbitMQ refuses the login",
			text: "CRITICAL pika: Connection workflow failed: AMQPConnectionWorkflowFailed: ACCESS_REFUSED - Login was refused using authentication mechanism PLAIN",
			line: "ACCESS_REFUSED", class: ErrAuth},
		{name: "a host named by another error line when the chosen one names none",
			text: "fail: Db[1]\n      An error occurred using the connection to database 'shop' on server 'shop-sql'.\nfail: Startup[0]\n      SqlException (0x80131904): The server was not found or was not accessible.",
			line: "server was not found", class: ErrDNS, weakHosts: []string{"shop-sql"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := ExtractClues(strings.Split(tc.text, "\n"))
			if !strings.Contains(c.Line, tc.line) || c.Class != tc.class {
				t.Fatalf("got line %q class %q, want a line with %q class %q", c.Line, c.Class, tc.line, tc.class)
			}
			for _, want := range tc.hosts {
				found := false
				for _, h := range c.Hosts {
					found = found || h.String() == want && !h.Weak
				}
				if !found {
					t.Errorf("hosts %+v lack %q", c.Hosts, want)
				}
			}
			for _, want := range tc.weakHosts {
				found := false
				for _, h := range c.Hosts {
					found = found || h.Host == want && h.Weak
				}
				if !found {
					t.Errorf("hosts %+v lack weak %q", c.Hosts, want)
				}
			}
		})
	}
}

// A token followed by "=" or ": " is a setting's name, not its value.
func TestContainsTokenSkipsKeyPositions(t *testing.T) {
	for _, tc := range []struct {
		s, needle string
		want      bool
	}{
		{"Server=catalog-sql,1433;Database=catalog", "catalog-sql", true},
		{"Server=catalog-sql,1433;Database=catalog", "database", false},
		{`{"database": "orders", "host": "pg"}`, "database", false},
		{`{"database": "orders", "host": "pg"}`, "pg", true},
		{"redis:\n  host: redis-master\n", "redis", false},
		{"redis-master:6379", "redis-master", true},
		{"http://notify-svc:3000/hooks", "notify-svc", true},
	} {
		if got := containsToken(tc.s, tc.needle); got != tc.want {
			t.Errorf("containsToken(%q, %q) = %v, want %v", tc.s, tc.needle, got, tc.want)
		}
	}
}

// JSON records are read by their fields: severity (words or pino's numbers), message and
// error; the emitter's own hostname and timestamps are dropped.
func TestFlattenJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"level":50,"time":1,"pid":1,"hostname":"web-5c9f-x2k9q","err":{"type":"Error","message":"getaddrinfo ENOTFOUND api","code":"ENOTFOUND"},"msg":"call failed"}`,
			"ERROR call failed: getaddrinfo ENOTFOUND api code=ENOTFOUND"},
		{`{"level":"error","ts":"2026-01-01T00:00:00Z","caller":"db/pool.go:88","msg":"ping failed","error":"FATAL: password authentication failed for user \"app\""}`,
			`ERROR ping failed: FATAL: password authentication failed for user "app"`},
		{`{"severity":"WARNING","message":"retrying","attempt":3}`, "WARNING retrying (attempt=3)"},
		{`{"@t":"2026-01-01","@l":"Error","@mt":"Request failed","@x":"System.Net.Http.HttpRequestException: Connection refused (orders:80)"}`,
			"ERROR Request failed: System.Net.Http.HttpRequestException: Connection refused (orders:80)"},
		{"plain text line", "plain text line"},
		{`{"broken": `, `{"broken": `},
		{"{" + strings.Repeat(" ", maxJSONLine) + "}", "{" + strings.Repeat(" ", maxJSONLine) + "}"},
	} {
		if got := flattenJSON(tc.in); got != tc.want {
			t.Errorf("flattenJSON(%.60q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A record cut by the log tool's line limit is still read by the fields it holds.
func TestFlattenCutJSON(t *testing.T) {
	in := `{"level":50,"time":1739350060040,"pid":1,"hostname":"notifier-5c9f7d8b6-k2x7w","err":{"type":"Error","message":"getaddrinfo ENOTFOUND notify-svc","stack":"Error: getaddrinfo ENOTFOUND notify-svc\n    at GetAddrInfoReqWrap.onlookup (node:dns:107:26)","er`
	got := flattenJSON(in)
	if !strings.HasPrefix(got, "ERROR ") || !strings.Contains(got, "getaddrinfo ENOTFOUND notify-svc") || strings.Contains(got, "notifier-5c9f7d8b6") {
		t.Errorf("flattenJSON(cut record) = %q", got)
	}
	for _, keep := range []string{`{"a":1,"b":`, `{"level":"info"`, `{not json at all`} {
		if got := flattenJSON(keep); got != keep && !strings.HasPrefix(got, "INFO") {
			t.Errorf("flattenJSON(%q) = %q", keep, got)
		}
	}
}

// A misspelt Service name is matched to the closest one, words swapped included.
func TestClosestName(t *testing.T) {
	have := []string{"redis-cache", "payments", "orders-db"}
	for want, exp := range map[string]string{"cache-redis": "redis-cache", "payment": "payments", "ordrs-db": "orders-db", "kafka": ""} {
		if got := closestName(want, have); got != exp {
			t.Errorf("closestName(%q) = %q, want %q", want, got, exp)
		}
	}
}
