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

// A database that refuses the client a privilege is answered with the init script its pod
// mounts that grants the client's user, the line for that user first.
func TestPrivilegeDeniedNamesTheInitScript(t *testing.T) {
	script := "#!/bin/bash\npsql <<-EOSQL\n  CREATE ROLE rewards LOGIN;\n  CREATE DATABASE rewards OWNER rewards;\n" +
		"  CREATE ROLE loyalty LOGIN;\n  CREATE DATABASE loyalty;\n  GRANT ALL PRIVILEGES ON DATABASE loyalty TO loyalty;\nEOSQL\n"
	objs := func() []runtime.Object {
		o := app("loyalty-api", 1, withEnv("DATABASE_HOST", "loyalty-postgres", "DATABASE_PORT", "5432", "DATABASE_USER", "loyalty"), crashing)
		o = append(o, app("loyalty-postgres", 1, mountCM("loyalty-db-init", "/docker-entrypoint-initdb.d"), nil)...)
		return append(o, cmWith("loyalty-db-init", "01-app-databases.sh", script),
			svcAt("loyalty-postgres", "10.96.3.4", map[string]string{"app": "loyalty-postgres"}, 5432), fx.Node("node-1"))
	}
	runDepCases(t, []depCase{
		{name: "permission denied for schema public", problem: "loyalty-api crash-loops while migrating", objs: objs,
			logs: logBook{"loyalty-api-": "INFO starting\nERROR loyalty_api: fatal error during startup error=while executing migrations: error returned from database: permission denied for schema public\n"},
			rule: "server-access-rule", culprit: "ConfigMap/loyalty-db-init", terms: []string{"public", "GRANT ALL PRIVILEGES ON DATABASE loyalty TO loyalty", "OWNER"}},
	})
}
