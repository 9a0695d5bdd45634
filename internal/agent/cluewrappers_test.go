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

// A framework's wrapper says that something failed beneath it; the quoted line is the
// innermost cause, in every stack that wraps errors, and the wrapper is still quoted when
// the tail holds nothing else.
func TestRootCauseBeneathFrameworkWrappers(t *testing.T) {
	cases := []struct {
		name, text string
		want       []string
		not        string
		class      ErrClass
	}{
		{name: "Spring Boot on MySQL: the last Caused by, not the context-initialization warning",
			text: "2026-03-01 10:00:00.123  INFO 1 --- [           main] c.e.orders.OrdersApplication : Starting OrdersApplication\n" +
				"2026-03-01 10:00:03.100  WARN 1 --- [           main] ConfigServletWebServerApplicationContext : Exception encountered during context initialization - cancelling refresh attempt: org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'entityManagerFactory': Invocation of init method failed; nested exception is org.hibernate.exception.JDBCConnectionException: Unable to open JDBC Connection for DDL execution\n" +
				"2026-03-01 10:00:03.200 ERROR 1 --- [           main] o.s.boot.SpringApplication : Application run failed\n\n" +
				"org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'entityManagerFactory'\n\tat org.springframework.boot.SpringApplication.run(SpringApplication.java:1306)\n" +
				"Caused by: org.hibernate.exception.JDBCConnectionException: Unable to open JDBC Connection for DDL execution\n\t... 32 common frames omitted\n" +
				"Caused by: java.sql.SQLNonTransientConnectionException: Public Key Retrieval is not allowed\n\tat com.mysql.cj.jdbc.exceptions.SQLError.createSQLException(SQLError.java:110)\n\t... 46 common frames omitted",
			want: []string{"Public Key Retrieval is not allowed"}},
		{name: "Spring on PostgreSQL with another wrapper and logback's pattern",
			text: "10:00:01.000 [main] ERROR o.s.boot.SpringApplication - Application run failed\n" +
				"org.springframework.context.ApplicationContextException: Failed to start bean 'inventoryScheduler'\n\tat org.springframework.context.support.DefaultLifecycleProcessor.doStart(DefaultLifecycleProcessor.java:181)\n" +
				"Caused by: org.postgresql.util.PSQLException: FATAL: database \"stock_prod\" does not exist\n\tat org.postgresql.core.v3.ConnectionFactoryImpl.doAuthentication(ConnectionFactoryImpl.java:646)\n\t... 20 more",
			want: []string{`database "stock_prod" does not exist`}, class: ErrConfig},
		{name: "Spring's failure analysis block, after the context warning",
			text: "2026-03-01 10:00:03.100  WARN 1 --- [main] s.c.a.AnnotationConfigApplicationContext : Exception encountered during context initialization - cancelling refresh attempt: org.springframework.beans.factory.UnsatisfiedDependencyException: Error creating bean with name 'ledgerRepository'\n" +
				"2026-03-01 10:00:03.200 ERROR 1 --- [main] o.s.b.d.LoggingFailureAnalysisReporter :\n\n***************************\nAPPLICATION FAILED TO START\n***************************\n\nDescription:\n\n" +
				"Failed to configure a DataSource: 'url' attribute is not specified and no embedded datasource could be configured.\n\nReason: Failed to determine a suitable driver class",
			want: []string{"Failed to configure a DataSource"}},
		{name: "Quarkus wraps its start failure",
			text: "2026-03-01 10:00:00,001 ERROR [io.quarkus.runtime.Application] (main) Failed to start application (with profile [prod]): java.lang.RuntimeException: Failed to start quarkus\n\tat io.quarkus.runner.ApplicationImpl.doStart(Unknown Source)\n" +
				"Caused by: io.vertx.core.VertxException: Connection refused: pricing-db/10.96.14.2:5432\n\t... 12 more",
			want: []string{"Connection refused: pricing-db"}, class: ErrRefused},
		{name: ".NET inner exception after the aggregate wrapper",
			text: "Unhandled exception. System.AggregateException: One or more errors occurred. (Exception while connecting)\n" +
				" ---> Npgsql.PostgresException (0x80004005): 28P01: password authentication failed for user \"billing\"\n   at Npgsql.Internal.NpgsqlConnector.Open()",
			want: []string{"password authentication failed"}, class: ErrAuth},
		{name: "Python: the cause above 'the direct cause', not the wrapper raised from it",
			text: "Traceback (most recent call last):\n  File \"/srv/worker/config.py\", line 9, in load\n    with open(path) as f:\n" +
				"FileNotFoundError: [Errno 2] No such file or directory: '/etc/worker/rules.toml'\n\nThe above exception was the direct cause of the following exception:\n\n" +
				"Traceback (most recent call last):\n  File \"/srv/worker/main.py\", line 3, in <module>\n    config.load()\n" +
				"worker.errors.StartupError: fatal: worker startup failed, timed out waiting for configuration",
			want: []string{"rules.toml"}, not: "StartupError", class: ErrConfig},
		{name: "Node's unhandled rejection carries its reason",
			text: "node:internal/process/promises:288\n            triggerUncaughtException(err, true /* fromPromise */);\n            ^\n\n" +
				"[UnhandledPromiseRejection: This error originated either by throwing inside of an async function without a catch block, or by rejecting a promise which was not handled with .catch(). The promise rejected with the reason \"MongoServerError: bad auth : Authentication failed.\".] {\n  code: 'ERR_UNHANDLED_REJECTION'\n}\n\nNode.js v18.19.0",
			want: []string{"Authentication failed"}, class: ErrAuth},
		{name: "a wrapper alone in the tail is still quoted",
			text: "2026-03-01 10:00:03.200 ERROR 1 --- [main] o.s.boot.SpringApplication : Application run failed",
			want: []string{"Application run failed"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := ExtractClues(strings.Split(tc.text, "\n"))
			if !c.IsError() {
				t.Fatalf("no error line found; clue %+v", c)
			}
			for _, w := range tc.want {
				if !strings.Contains(c.Line, w) {
					t.Errorf("quoted %q, want it to carry %q", c.Line, w)
				}
			}
			if tc.not != "" && strings.Contains(c.Line, tc.not) {
				t.Errorf("quoted %q, a wrapper (%q)", c.Line, tc.not)
			}
			if tc.class != ErrNone && c.Class != tc.class {
				t.Errorf("class %q, want %q (line %q)", c.Class, tc.class, c.Line)
			}
		})
	}
}
