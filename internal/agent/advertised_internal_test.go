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

// The hosts of an advertised value that no other pod can call, in the forms servers take.
func TestUnroutableHandedOutHosts(t *testing.T) {
	for v, want := range map[string]string{
		"PLAINTEXT://localhost:9092,CONTROLLER://kafka-0.kafka-headless:9093": "localhost:9092",
		"INTERNAL://kafka-0.kafka:9092,EXTERNAL://0.0.0.0:9094":               "0.0.0.0:9094",
		"127.0.0.1":            "127.0.0.1",
		"[::1]:4222":           "::1:4222",
		"::":                   "::",
		"nats://10.0.3.4:4222": "",
		"kafka-0.kafka-headless.default.svc:9092": "",
		"127.example.com":                         "",
		"":                                        "",
	} {
		h, p := unroutable(v)
		if p != "" {
			h += ":" + p
		}
		if h != want {
			t.Errorf("unroutable(%q) = %q, want %q", v, h, want)
		}
	}
}
