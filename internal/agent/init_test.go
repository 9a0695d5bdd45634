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
	"fmt"
	"testing"
)

func TestCommandHostsOfWaitLoops(t *testing.T) {
	cases := []struct {
		name string
		cmd  []string
		want []string
	}{
		{"nslookup with a namespace expansion", []string{"sh", "-c", "until nslookup myservice.$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace).svc.cluster.local; do sleep 2; done"}, []string{"myservice"}},
		{"nc with options and a port", []string{"sh", "-c", "until nc -z -w 2 orders-db 5432; do sleep 1; done"}, []string{"orders-db:5432"}},
		{"pg_isready -h", []string{"sh", "-c", "until pg_isready -h pg-main -p 5432; do sleep 1; done"}, []string{"pg-main"}},
		{"wget of a URL", []string{"sh", "-c", "until wget -q -O- http://config-api:8080/ready; do sleep 1; done"}, []string{"http://config-api:8080/ready"}},
		{"dig @server", []string{"dig", "@10.96.0.10", "cache"}, []string{"cache"}},
		{"a quoted script", []string{"/bin/sh", "-c", "while ! nc -z 'broker' 9092; do sleep 1; done"}, []string{"broker:9092"}},
		{"no network tool", []string{"/bin/prepare-assets", "--all"}, nil},
		{"a tool with nothing after it", []string{"ping"}, nil},
	}
	for _, tc := range cases {
		if got := commandHosts(tc.cmd); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
