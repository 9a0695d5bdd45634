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

func TestClosestSetting(t *testing.T) {
	settings := []configSetting{
		{name: "CacheStore__Endpoint", value: "cache-0:11211"},
		{name: "QUEUE_PREFETCH_COUNT", value: "500"},
		{name: "ConnectionStrings_Orders", value: "Server=orders-sql;Database=orders"},
		{name: "queue_name", value: "orders.created"},
		{name: "queue_durable", value: "true"},
		{name: "API_TOKEN", secret: true},
		{name: "auth_basic", value: "\"Backoffice\""},
		{name: "listen", value: "8080"},
		{name: "server", value: "{"},
	}
	cases := []struct {
		line, want string
	}{
		// The whole name, spelt with other separators.
		{"Unhandled exception. System.ArgumentNullException: Value cannot be null. (Parameter 'CacheStore:Endpoint')", "CacheStore__Endpoint"},
		// An identifier the error quotes, held whole in the setting's name.
		{"System.ArgumentNullException: Value cannot be null. (Parameter 'connectionString')", "ConnectionStrings_Orders"},
		// A value the error quotes.
		{"channel error: NOT_FOUND - no queue 'orders.created' in vhost '/'", "queue_name"},
		// Plural and singular agree; the word every queue setting shares weighs less.
		{"consumer stalled: prefetch counts above 250 are rejected by the broker", "QUEUE_PREFETCH_COUNT"},
		// An abbreviated word of the setting's name, beside a whole one.
		{`[error] 29#29: *1 no user/password was provided for basic authentication, client: 10.244.0.1, server: _, request: "GET /healthz HTTP/1.1"`, "auth_basic"},
		// Nothing close enough.
		{"panic: runtime error: index out of range [3] with length 3", ""},
		// A Secret's key is never chosen for its (unread) value, and booleans tie nothing.
		{"token rejected: true", ""},
	}
	for _, c := range cases {
		got := ""
		if b := closestSetting(c.line, settings); b != nil {
			got = b.name
		}
		if got != c.want {
			t.Errorf("%q: closest %q, want %q", c.line, got, c.want)
		}
	}
	// A setting and its parameters (auth_basic, auth_basic_user_file) share words as one
	// family: the words do not weigh less for it, and the family is found.
	nginx := []configSetting{{name: "auth_basic", value: "\"Staging\""}, {name: "auth_basic_user_file", value: "/etc/nginx/htpasswd"},
		{name: "listen", value: "8080"}, {name: "fastcgi_pass", value: "127.0.0.1:9000"}}
	line := `[error] 29#29: *1 no user/password was provided for basic authentication, client: 10.244.0.1, server: _, request: "GET /healthz HTTP/1.1"`
	if b := closestSetting(line, nginx); b == nil || b.name != "auth_basic" && b.name != "auth_basic_user_file" {
		t.Errorf("nginx basic authentication: closest %v, want auth_basic or auth_basic_user_file", b)
	}
}
