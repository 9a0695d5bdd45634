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

package agent_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// An application that names itself in its error ("Unable to connect to Reports postgres
// DB") does not depend on its own Service: the database it is configured with is walked.
func TestAppNamingItselfIsNoDependency(t *testing.T) {
	runDepCases(t, []depCase{
		{name: "the client's own Service is loosely named; its configured database has no endpoints", problem: "reports is down",
			objs: func() []runtime.Object {
				o := app("reports", 1, withEnv("DB_HOST", "reports-db", "DB_PORT", "5432"), crashing)
				o = append(o, app("reports-postgres", 1, nil, nil)...)
				return append(o, svcAt("reports", "10.96.0.81", map[string]string{"app": "reports"}, 80),
					svcAt("reports-db", "10.96.0.82", map[string]string{"app": "postgres"}, 5432), fx.Node("node-1"))
			},
			logs: logBook{"reports-": "INFO starting reports\nERROR Unable to connect to reports postgres DB\nCaused by: java.net.ConnectException: Connection refused\n"},
			rule: "service-selector-mismatch", culprit: "Service/reports-db", affected: []string{"Deployment/reports"},
			terms: []string{"reports-db"}},
	})
}
