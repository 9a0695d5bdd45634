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
// DB") does not depend on its own Service: the database it calls is walked, also when the
// session asks about the application alone.
func TestAppNamingItselfIsNoDependency(t *testing.T) {
	objs := func() []runtime.Object {
		o := app("reports", 1, withEnv("DB_HOST", "reports-db", "DB_PORT", "5432"), crashing)
		o = append(o, app("reports-postgres", 1, nil, nil)...)
		return append(o, svcAt("reports", "10.96.0.81", map[string]string{"app": "reports"}, 80),
			svcAt("reports-db", "10.96.0.82", map[string]string{"app": "postgres"}, 5432), fx.Node("node-1"))
	}
	logs := logBook{"reports-": "2026-11-28 03:58:14,744 ERROR reports.core :: Reports Initialization FAILED\nclojure.lang.ExceptionInfo: Unable to connect to Reports postgres DB. {}\n" +
		"Caused by: org.postgresql.util.PSQLException: Connection to reports-db:5432 refused. Check that the hostname and port are correct.\nCaused by: java.net.ConnectException: Connection refused\n"}
	runDepCases(t, []depCase{
		{name: "the client's own Service is loosely named; the database it calls has no endpoints", problem: "reports is down",
			objs: objs, logs: logs, rule: "service-selector-mismatch", culprit: "Service/reports-db", affected: []string{"Deployment/reports"},
			terms: []string{"reports-db"}},
	})
	e := engine(objs()...)
	e.Logs = logs.source()
	s := sessionFor("reports is down")
	s.Target = deploy("reports")
	if rc := drive(t, e, s).RootCause; rc.Culprit.Name != "reports-db" {
		t.Errorf("asked about reports, got %s on %s: %s", rc.Rule, rc.Culprit, rc.Summary)
	}
}
