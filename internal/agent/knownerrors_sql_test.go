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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// Well-known errors of SQL databases and their clients, each in the software's own log format.
func TestKnownErrorsSQL(t *testing.T) {
	pgImage := "docker.io/library/postgres:16.4"
	cases := []depCase{
		{name: "pgx client refused by pg_hba.conf lines in the server's ConfigMap", problem: "ledger cannot start",
			objs: func() []runtime.Object {
				o := app("ledger", 1, withEnv("PGHOST", "books-db", "PGPORT", "5432"), crashing)
				return append(o, serverOf("books-db", pgImage, 5432, mountAt("books-db-hba", "/etc/postgresql"),
					cmWith("books-db-hba", "pg_hba.conf", "local all all trust\nhost all all 127.0.0.1/32 trust\nhost all all 172.16.0.0/12 scram-sha-256\n"), fx.Node("node-1"))...)
			},
			logs: logBook{"ledger-": "level=error msg=\"connect failed\" err=\"failed to connect to `host=books-db user=app database=books`: server error (FATAL: no pg_hba.conf entry for host \\\"10.244.2.41\\\", user \\\"app\\\", database \\\"books\\\", no encryption (SQLSTATE 28000))\"\n"},
			rule: "server-access-rule", culprit: "ConfigMap/books-db-hba", affected: []string{"Service/books-db"}, terms: []string{"172.16.0.0/12", "pg_hba.conf"}},
		{name: "psycopg2 asks for TLS, the server runs with -c ssl=off", problem: "reports job keeps failing",
			objs: func() []runtime.Object {
				o := app("reports", 1, withEnv("DATABASE_URL", "postgresql://app@warehouse:5432/app?sslmode=require"), crashing)
				return append(o, serverOf("warehouse", pgImage, 5432, withArgs("postgres", "-c", "ssl=off", "-c", "max_connections=200"), fx.Node("node-1"))...)
			},
			logs: logBook{"reports-": "Traceback (most recent call last):\npsycopg2.OperationalError: server does not support SSL, but SSL was required\n"},
			rule: "client-connection-setting", culprit: "Deployment/warehouse", terms: []string{"ssl = off", "sslmode=require"}},
		{name: "SQLAlchemy 1.4 on a postgres:// URL from a Secret", problem: "survey-api crashes",
			objs: func() []runtime.Object {
				o := app("survey-api", 1, envFromSecret("survey-db"), crashing)
				return append(o, fx.Secret(ns, "survey-db", "DATABASE_URL"), fx.Node("node-1"))
			},
			logs: logBook{"survey-api-": "  File \"/app/db.py\", line 4, in <module>\nsqlalchemy.exc.NoSuchModuleError: Can't load plugin: sqlalchemy.dialects:postgres\n"},
			rule: "client-connection-setting", culprit: "Secret/survey-db", terms: []string{"postgresql://", "DATABASE_URL"}},
		{name: "SQLAlchemy on a postgres:// URL in a ConfigMap", problem: "flask app does not start",
			objs: func() []runtime.Object {
				o := app("flask", 1, envFrom("flask-env"), crashing)
				return append(o, cmWith("flask-env", "SQLALCHEMY_DATABASE_URI", "postgres://flask@pg.data.svc:5432/flask"), fx.Node("node-1"))
			},
			logs: logBook{"flask-": "sqlalchemy.exc.NoSuchModuleError: Can't load plugin: sqlalchemy.dialects:postgres\n"},
			rule: "client-connection-setting", culprit: "ConfigMap/flask-env", terms: []string{"SQLALCHEMY_DATABASE_URI = postgres://", "postgresql://"}},
		{name: "Connector/J without allowPublicKeyRetrieval in a mounted application.yml", problem: "orders-service is down",
			objs: func() []runtime.Object {
				o := app("orders-service", 1, mountAt("orders-config", "/config"), crashing)
				return append(o, cmWith("orders-config", "application.yml", "spring:\n  datasource:\n    url: jdbc:mysql://orders-mysql:3306/orders?useSSL=false\n    username: orders\n"), fx.Node("node-1"))
			},
			logs: logBook{"orders-service-": "2026-11-27T10:00:01.000Z WARN 1 --- [main] o.s.b.w.s.c.AnnotationConfigServletWebServerApplicationContext : Exception encountered during context initialization\nCaused by: java.sql.SQLNonTransientConnectionException: Public Key Retrieval is not allowed\n"},
			rule: "client-connection-setting", culprit: "ConfigMap/orders-config", terms: []string{"allowPublicKeyRetrieval", "Public Key Retrieval", "caching_sha2_password"}},
		{name: "mysqljs against MySQL 8 defaults", problem: "shop cannot log in to its database",
			objs: func() []runtime.Object {
				o := app("shop", 1, withEnv("MYSQL_HOST", "catalog-db"), crashing)
				return append(o, serverOf("catalog-db", "mysql:8.0.39", 3306, nil, fx.Node("node-1"))...)
			},
			logs: logBook{"shop-": "Error: ER_NOT_SUPPORTED_AUTH_MODE: Client does not support authentication protocol requested by server; consider upgrading MySQL client\n    at Handshake.Sequence._packetToError\n"},
			rule: "client-connection-setting", culprit: "Deployment/catalog-db", affected: []string{"Service/catalog-db"}, terms: []string{"caching_sha2_password", "default_authentication_plugin"}},
		{name: "MySQL root from another host", problem: "billing cannot connect to mysql",
			objs: func() []runtime.Object {
				o := app("billing", 1, withEnv("DB_HOST", "ledger-mysql", "DB_USER", "root"), crashing)
				return append(o, serverOf("ledger-mysql", "mysql:8.4", 3306, withEnv("MYSQL_DATABASE", "ledger"), fx.Node("node-1"))...)
			},
			logs: logBook{"billing-": "ERROR 1130 (HY000): Host '10.244.1.23' is not allowed to connect to this MySQL server\n"},
			rule: "server-access-rule", culprit: "Deployment/ledger-mysql", terms: []string{"MYSQL_ROOT_HOST", "user@host"}},
		{name: "Spring profile names no file with a datasource", problem: "billing-service crash loops",
			objs: func() []runtime.Object {
				o := app("billing-service", 1, all(withEnv("SPRING_PROFILES_ACTIVE", "prod"), mountAt("billing-config", "/config")), crashing)
				return append(o, cmWith("billing-config", "application-production.yml", "spring:\n  datasource:\n    url: jdbc:postgresql://pg:5432/billing\n"), fx.Node("node-1"))
			},
			logs: logBook{"billing-service-": "***************************\nAPPLICATION FAILED TO START\n***************************\n\nDescription:\n\nFailed to configure a DataSource: 'url' attribute is not specified and no embedded datasource could be configured.\n\nReason: Failed to determine a suitable driver class\n"},
			rule: "client-connection-setting", culprit: "Deployment/billing-service", affected: []string{"ConfigMap/billing-config"},
			terms: []string{"SPRING_PROFILES_ACTIVE = prod", "application-production.yml", "no application-prod.yml"}},
		{name: "a Ready Spring service logged the missing datasource once: the well-known error still explains it", problem: "billing-service answers 500",
			objs: func() []runtime.Object {
				o := app("billing-service", 1, all(withEnv("SPRING_PROFILES_ACTIVE", "prod"), mountAt("billing-config", "/config")), nil)
				return append(o, cmWith("billing-config", "application-production.yml", "spring:\n  datasource:\n    url: jdbc:postgresql://pg:5432/billing\n"), fx.Node("node-1"))
			},
			logs: logBook{"billing-service-": "INFO Started BillingApplication in 4.2 seconds\nERROR Failed to configure a DataSource: 'url' attribute is not specified and no embedded datasource could be configured.\nINFO Tomcat started on port 8080\n"},
			rule: "client-connection-setting", culprit: "Deployment/billing-service", affected: []string{"ConfigMap/billing-config"},
			terms: []string{"SPRING_PROFILES_ACTIVE = prod", "no application-prod.yml"}},
		{name: "statement_timeout in the server's postgresql.conf", problem: "the nightly export fails",
			objs: func() []runtime.Object {
				o := app("exporter", 1, withEnv("DATABASE_URL", "postgres://export@analytics-db:5432/dw"), crashing)
				return append(o, serverOf("analytics-db", pgImage, 5432, mountAt("analytics-pgconf", "/etc/postgresql"),
					cmWith("analytics-pgconf", "postgresql.conf", "listen_addresses = '*'\nstatement_timeout = 5s\nshared_buffers = 256MB\n"), fx.Node("node-1"))...)
			},
			logs: logBook{"exporter-": "ERROR: canceling statement due to statement timeout (SQLSTATE 57014)\n"},
			rule: "request-timeout-setting", culprit: "ConfigMap/analytics-pgconf", terms: []string{"statement_timeout = 5s"}},
		{name: "idle-in-transaction timeout on the server's command line", problem: "worker errors after pauses",
			objs: func() []runtime.Object {
				o := app("worker", 2, withEnv("PG_DSN", "host=jobs-pg dbname=jobs"), nil)
				return append(o, serverOf("jobs-pg", pgImage, 5432, withArgs("postgres", "-c", "idle_in_transaction_session_timeout=10s"), fx.Node("node-1"))...)
			},
			logs: logBook{"worker-": repeat(`2026-11-27 10:00:00,000 ERROR [worker] psycopg2.OperationalError: FATAL:  terminating connection due to idle-in-transaction timeout`, 3)},
			rule: "request-timeout-setting", culprit: "Deployment/jobs-pg", terms: []string{"idle_in_transaction_session_timeout = 10s"}},
		{name: "parallel query past the runtime's /dev/shm", problem: "BI dashboards error",
			objs: func() []runtime.Object {
				o := app("bi", 1, withEnv("PGHOST", "warehouse-pg"), crashing)
				return append(o, serverOf("warehouse-pg", "postgis/postgis:16-3.4", 5432, nil, fx.Node("node-1"))...)
			},
			logs: logBook{"bi-": "ERROR:  could not resize shared memory segment \"/PostgreSQL.1450751626\" to 50438144 bytes: No space left on device\n"},
			rule: "process-os-limit", culprit: "Deployment/warehouse-pg", terms: []string{"/dev/shm", "64 MB"}},
		{name: "SqlClient rejects SQL Server's self-signed certificate, connection string in a Secret", problem: "orders-api cannot migrate its database",
			objs: func() []runtime.Object {
				o := app("orders-api", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "ConnectionStrings__OrdersDb", ValueFrom: &corev1.EnvVarSource{
						SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "orders-api-db"}, Key: "ConnectionStrings__OrdersDb"}}}}
				}, crashing)
				return append(o, fx.Secret(ns, "orders-api-db", "ConnectionStrings__OrdersDb"), fx.Node("node-1"))
			},
			logs: logBook{"orders-api-": "fail: Orders.Api.Program[0]\n      Database migration failed, stopping\n      Microsoft.Data.SqlClient.SqlException (0x80131904): A connection was successfully established with the server, but then an error occurred during the pre-login handshake. (provider: TCP Provider, error: 35 - An internal exception was caught)\n       ---> System.Security.Authentication.AuthenticationException: The remote certificate was rejected by the provided RemoteCertificateValidationCallback.\n"},
			rule: "client-connection-setting", culprit: "Secret/orders-api-db", terms: []string{"TrustServerCertificate", "ConnectionStrings__OrdersDb"}},
	}
	runDepCases(t, cases)
	runSilentCases(t, []silentCase{
		{name: "pg_hba error with no hba lines anywhere", problem: "ledger cannot start", not: "server-access-rule",
			objs: func() []runtime.Object {
				o := app("ledger", 1, withEnv("PGHOST", "books-db"), crashing)
				return append(o, serverOf("books-db", pgImage, 5432, mountAt("books-conf", "/etc/postgresql"), cmWith("books-conf", "app.yaml", "database:\n  host: books-db\n  port: 5432\n"), fx.Node("node-1"))...)
			},
			logs: logBook{"ledger-": "FATAL: no pg_hba.conf entry for host \"10.244.2.41\", user \"app\", database \"books\"\n"}},
		{name: "a JDBC URL that allows key retrieval", problem: "orders-service is down", not: "client-connection-setting",
			objs: func() []runtime.Object {
				o := app("orders-service", 1, withEnv("SPRING_DATASOURCE_URL", "jdbc:mysql://db:3306/o?allowPublicKeyRetrieval=true&useSSL=false"), crashing)
				return append(o, fx.Node("node-1"))
			},
			logs: logBook{"orders-service-": "java.sql.SQLNonTransientConnectionException: Public Key Retrieval is not allowed\n"}},
		{name: "/dev/shm already a memory emptyDir", problem: "BI dashboards error", not: "process-os-limit",
			objs: func() []runtime.Object {
				o := app("bi", 1, withEnv("PGHOST", "warehouse-pg"), crashing)
				return append(o, serverOf("warehouse-pg", pgImage, 5432, withShm, fx.Node("node-1"))...)
			},
			logs: logBook{"bi-": "ERROR:  could not resize shared memory segment \"/PostgreSQL.1\" to 50438144 bytes: No space left on device\n"}},
	})
	_ = corev1.ReadWriteOnce
}
