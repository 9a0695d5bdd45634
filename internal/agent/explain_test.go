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

// A namespace scan finds a failed Job and a Service without endpoints on its own; the Job's
// error line calls that Service, so the Service's finding explains the Job's.
func TestErrorTextNamingAServiceIsExplainedByIt(t *testing.T) {
	ns := "shop"
	svc := ObjectRef{Kind: "Service", Namespace: ns, Name: "postgres"}
	job := ObjectRef{Kind: "Job", Namespace: ns, Name: "db-migrate"}
	other := ObjectRef{Kind: "Service", Namespace: ns, Name: "redis"}
	cases := []struct {
		name, line string
		explained  bool
	}{
		{"host and port", `psql: error: connection to server at "postgres" (10.96.4.4), port 5432 failed: Connection refused`, true},
		{"pod under the headless Service", "dial tcp: lookup postgres-0.postgres on 10.96.0.10:53: no such host", true},
		{"fully qualified", "dial tcp postgres.shop.svc.cluster.local:5432: connect: connection refused", true},
		{"another namespace's Service of that name", "dial tcp postgres.billing.svc:5432: i/o timeout", false},
		{"another Service", "dial tcp redis:6379: connect: connection refused", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			jobF := &candidate{Finding: Finding{Rule: "job-backoff-limit", Object: job, Culprit: job, Facts: map[string]string{"errorLine": tc.line}}}
			svcF := &candidate{Finding: Finding{Rule: "service-no-endpoints", Object: svc, Culprit: svc}}
			otherF := &candidate{Finding: Finding{Rule: "service-no-endpoints", Object: other, Culprit: other}}
			g := buildExplainGraph([]*candidate{jobF, svcF, otherF})
			if got := containsCand(g.explained(svcF), jobF); got != tc.explained {
				t.Fatalf("explained by Service postgres = %t, want %t", got, tc.explained)
			}
			if tc.explained && containsCand(g.roots(), jobF) {
				t.Fatalf("the Job's finding is still a root")
			}
		})
	}
}
