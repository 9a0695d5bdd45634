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
	"unicode/utf8"
)

var testKey = []byte("test-key")

func TestRedact(t *testing.T) {
	r := New(testKey)
	ip := func(kind, v string) string { return r.pseudonym(kind, v) }
	cases := []struct {
		name, in, want string
	}{
		{"plain text stays", "Back-off restarting failed container web in pod web-7d9", "Back-off restarting failed container web in pod web-7d9"},
		{"pem key", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----\nafter", "key:\n[REDACTED:private-key]\nafter"},
		{"pem key cut off", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "[REDACTED:private-key]"},
		{"openssh key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaA==\n-----END OPENSSH PRIVATE KEY-----", "[REDACTED:private-key]"},
		{"base64 pem", "tls.key: LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUV2", "tls.key: [REDACTED:private-key]"},
		{"certificate stays", "-----BEGIN CERTIFICATE-----", "-----BEGIN CERTIFICATE-----"},
		{"jwt", "got eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sflKxwRJSMeKKF2QT4fwpM", "got [REDACTED:jwt]"},
		{"bearer", "Authorization: Bearer abcDEF1234567890xyz", "Authorization: Bearer [REDACTED:token]"},
		{"bearer jwt", "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sfl", "Authorization: Bearer [REDACTED:jwt]"},
		{"basic auth", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED:token]"},
		{"prose with basic", "basic authentication failed", "basic authentication failed"},
		{"openai key", "OPENAI_KEY is sk-proj-AbCdEfGhIjKlMnOpQrStUv123", "OPENAI_KEY is [REDACTED:api-key]"},
		{"aws key id", "aws AKIAIOSFODNN7EXAMPLE used", "aws [REDACTED:api-key] used"},
		{"github token", "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "[REDACTED:api-key]"},
		{"slack token", "xoxb-1234567890-abcdefghij", "[REDACTED:api-key]"},
		{"env password", "DB_PASSWORD=hunter2 next", "DB_PASSWORD=[REDACTED:password] next"},
		{"yaml password", "password: s3cr3t!", "password: [REDACTED:password]"},
		{"json password", `{"user":"bob","password":"p\"w d"}`, `{"user":"bob","password":"[REDACTED:password]"}`},
		{"json api key", `{"apiKey": "abc123def"}`, `{"apiKey": "[REDACTED:api-key]"}`},
		{"single quoted", `secret='a b c'`, `secret='[REDACTED:secret]'`},
		{"query string token", "GET /cb?access_token=abc123&state=x", "GET /cb?access_token=[REDACTED:token]&state=x"},
		{"aws secret", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG", "aws_secret_access_key = [REDACTED:api-key]"},
		{"connection string", "Server=db;User Id=sa;Password=Pa55word;", "Server=db;User Id=sa;Password=[REDACTED:password];"},
		{"secret key", "secret_key=AbC123 client_secret: 'xyz'", "secret_key=[REDACTED:api-key] client_secret: '[REDACTED:secret]'"},
		{"go assignment", `token := "abc123"`, `token := "[REDACTED:token]"`},
		{"unclosed quote runs to the end of the line", "password: \"abc def\nnext", "password: \"[REDACTED:password]\nnext"},
		{"mapped ipv6", "via ::ffff:10.0.0.1 ok", "via ::ffff:" + ip(KindIPv4, "10.0.0.1") + " ok"},
		{"leading zeros are not an address", "build 01.02.03.04", "build 01.02.03.04"},
		{"secret name is not a secret", "secretName: db-creds", "secretName: db-creds"},
		{"secret key ref is not a secret", "secretKeyRef: {name: db, key: password}", "secretKeyRef: {name: db, key: password}"},
		{"token counts are not secrets", "promptTokens: 300", "promptTokens: 300"},
		{"boolean stays", "insecure_skip_tls=false token: true", "insecure_skip_tls=false token: true"},
		{"url credentials", "dial postgres://app:Pa55@db.svc:5432/x", "dial postgres://app:[REDACTED:password]@db.svc:5432/x"},
		{"email", "contact ops@example.com now", "contact " + ip(KindEmail, "ops@example.com") + " now"},
		{"email case-insensitive pseudonym", "Ops@Example.com", ip(KindEmail, "ops@example.com")},
		{"image digest stays", "registry.example/web@sha256:0123abcd", "registry.example/web@sha256:0123abcd"},
		{"ipv4", "dial tcp 10.96.0.10:53: i/o timeout", "dial tcp " + ip(KindIPv4, "10.96.0.10") + ":53: i/o timeout"},
		{"ipv4 cidr", "allow 192.168.0.0/16", "allow " + ip(KindIPv4, "192.168.0.0") + "/16"},
		{"not an ipv4", "version 1.2.3.400 and 300.1.1.1", "version 1.2.3.400 and 300.1.1.1"},
		{"ipv6", "connect to [fe80::1ff:fe23:4567:890a]:443", "connect to [" + ip(KindIPv6, "fe80::1ff:fe23:4567:890a") + "]:443"},
		{"ipv6 full", "2001:0db8:85a3:0000:0000:8a2e:0370:7334 up", ip(KindIPv6, "2001:0db8:85a3:0000:0000:8a2e:0370:7334") + " up"},
		{"ipv6 loopback", "listening on ::1", "listening on " + ip(KindIPv6, "::1")},
		{"times stay", "at 12:30:45 and 2026-03-01T12:00:00Z", "at 12:30:45 and 2026-03-01T12:00:00Z"},
		{"mac stays", "hw aa:bb:cc:dd:ee:ff", "hw aa:bb:cc:dd:ee:ff"},
		{"cpp scope stays", "std::string", "std::string"},
		{"unspecified stays", "bind :: ok", "bind :: ok"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := r.Redact(tc.in)
			if got != tc.want {
				t.Fatalf("Redact(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
			if again := r.Redact(got); again != got {
				t.Fatalf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

func TestPseudonymsAreStableAndKeyed(t *testing.T) {
	a, b := New(testKey), New([]byte("other"))
	in := "from 10.0.0.5 to 10.0.0.5 and 10.0.0.6"
	out := a.Redact(in)
	parts := strings.Fields(out)
	if parts[1] != parts[3] || parts[1] == parts[5] {
		t.Fatalf("same address should map to the same pseudonym, different ones apart: %q", out)
	}
	if b.Redact(in) == out {
		t.Fatalf("pseudonyms must depend on the key")
	}
	if !IsPlaceholder(parts[1]) {
		t.Fatalf("%q is not recognised as a placeholder", parts[1])
	}
}

func TestKnownSecrets(t *testing.T) {
	r := New(testKey)
	r.AddSecrets("plainvalue-without-shape", "abc", "plainvalue")
	got, n := r.RedactCount("the key plainvalue-without-shape and plainvalue")
	if got != "the key [REDACTED:secret] and [REDACTED:secret]" || n != 2 {
		t.Fatalf("got %q (%d)", got, n)
	}
	if r.Redact("abc") != "abc" {
		t.Fatalf("secrets shorter than 6 bytes must be ignored")
	}
}

func TestCount(t *testing.T) {
	_, n := New(testKey).RedactCount("a@b.io 1.2.3.4 password=x nothing")
	if n != 3 {
		t.Fatalf("count %d, want 3", n)
	}
}

// FuzzRedact checks, on arbitrary text around a planted secret, that redaction never
// panics, keeps UTF-8 valid, removes the planted values and is idempotent.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{"", "x", "password", `{"a":"`, "::", "eyJ", "-----BEGIN PRIVATE KEY-----", "user@", "1.2.3."} {
		f.Add(s, s)
	}
	r := New(testKey)
	f.Fuzz(func(t *testing.T, prefix, suffix string) {
		in := prefix + " password=Sup3rS3cretValue mail ops@kubage-fuzz.example.org ip 203.0.113.77 " + suffix
		out := r.Redact(in)
		for _, leak := range []string{"Sup3rS3cretValue", "ops@kubage-fuzz.example.org", "203.0.113.77"} {
			if strings.Contains(out, leak) && !strings.Contains(prefix+suffix, leak) {
				t.Fatalf("%q leaked in %q", leak, out)
			}
		}
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of valid input: %q", out)
		}
		if again := r.Redact(out); again != out {
			t.Fatalf("not idempotent:\n%q\n%q", out, again)
		}
	})
}
