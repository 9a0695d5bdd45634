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

// Well-known errors of SQL databases, their poolers and their client libraries.
// Each entry's source names where its text and mechanism come from.
var sqlErrors = []knownError{
	{class: "single-writer-store-shared", software: "SQLite",
		signs:     []string{`database is locked`, `database table is locked`, `sqlite_busy`},
		mechanism: "SQLite lets one process write its database file at a time, so several processes on one file lock each other out",
		consumer:  []settingSpec{{key: `(^|_)(type|engine|driver|dialect|db_type|database_type|database_url|db_url)$`, value: `sqlite`}},
		fix:       "run a single replica, or use a client-server database",
		source:    "https://www.sqlite.org/lockingv3.html"},
	{class: "pooler-transaction-mode", software: "PgBouncer",
		signs: []string{`prepared statement "?[^" ]{1,64}"? (already exists|does not exist)`, `prepared statement name is already in use`,
			`invalidsqlstatementnameerror`, `duplicatepreparedstatementerror`},
		mechanism: "in transaction pooling (pool_mode = transaction) each transaction may run on another server connection, but a prepared statement lives on the connection that prepared it",
		provider:  []settingSpec{{key: `(^|_)pool_mode$`, value: `transaction|statement`}},
		consumer:  []settingSpec{{key: `preparethreshold|statement_cache_size|prepared_statements`}},
		fix:       "use pool_mode = session, or disable server-side prepared statements in the client",
		source:    "https://www.pgbouncer.org/features.html"},
	{class: "write-to-read-replica", software: "PostgreSQL",
		signs:     []string{`cannot execute [a-z_ ()]{1,40} in a read-only transaction`, `read_only_sql_transaction`, `readonlysqltransaction`},
		mechanism: "a hot standby (read replica) runs every transaction read-only, so any write sent to it fails",
		provider:  []settingSpec{{key: `default_transaction_read_only$`, value: `on|true|1`}, {key: `(^|_)(replication_mode|role)$`, value: `slave|replica|standby|secondary`}, {key: `(^|_)primary_conninfo$`}},
		fix:       "point the application at the primary",
		source:    "https://www.postgresql.org/docs/current/hot-standby.html"},
	{class: "write-to-read-replica", software: "MySQL",
		signs:     []string{`running with the --(super-)?read-only option`, `er_option_prevents_statement`},
		mechanism: "a replica runs with read_only, so statements that write are refused",
		provider:  []settingSpec{{key: `(^|_)(super_)?read_only$`, value: `on|true|1`}, {key: `(^|_)(replication_mode|role)$`, value: `slave|replica|secondary`}},
		fix:       "point the application at the primary",
		source:    "https://dev.mysql.com/doc/refman/8.0/en/server-system-variables.html#sysvar_read_only"},
	{class: "server-access-rule", software: "PostgreSQL",
		signs:     []string{`no pg_hba\.conf entry for (host|replication connection from host)`},
		mechanism: "PostgreSQL refuses any connection that no line of pg_hba.conf admits by connection type, database, user and client address (CIDR), before it checks a password, so a client from a pod address range the file does not list is refused",
		provider:  []settingSpec{{key: `^(host|hostssl|hostnossl)$`, value: hbaLine}, {key: `(^|_)(hba_file|pghba_remove_filters|postgres_host_auth_method)$`, value: `\S`}},
		consumer:  []settingSpec{{key: `^(host|hostssl|hostnossl)$`, value: hbaLine}},
		fix:       "add a host line for the pods' address range to pg_hba.conf (the cluster's pod CIDR) and reload the server",
		source:    "https://www.postgresql.org/docs/current/auth-pg-hba-conf.html"},
	{class: "client-connection-setting", software: "PostgreSQL",
		signs:     []string{`server does not support ssl, but ssl was required`, `server refused tls connection`},
		mechanism: "with sslmode=require (or verify-ca, verify-full) a libpq or pgx client refuses a connection the server does not encrypt, and this server offers no TLS (ssl = off)",
		provider:  []settingSpec{{key: `^(ssl|postgresql_enable_tls)$`, value: `^(off|false|no|0)$`}},
		consumer:  []settingSpec{{key: `sslmode|ssl_mode`, value: `require|verify`}, {key: `(url|uri|dsn)$`, value: `sslmode=(require|verify)`}},
		fix:       "turn TLS on in the server (ssl = on with a certificate), or connect with sslmode=prefer or disable",
		source:    "https://www.postgresql.org/docs/current/libpq-ssl.html#LIBPQ-SSL-PROTECTION"},
	{class: "client-connection-setting", software: "SQLAlchemy",
		signs:     []string{`can't load plugin: sqlalchemy\.dialects:postgres\b`},
		mechanism: "SQLAlchemy 1.4 removed the postgres:// alias of its PostgreSQL dialect, so a connection URL that starts with postgres:// (the form Heroku and many charts write) no longer loads",
		consumer:  []settingSpec{{key: `(url|uri|dsn)$`, value: `^postgres://`, want: "must start with postgresql://, not postgres://"}},
		fix:       "write the URL as postgresql://... (or postgresql+psycopg2://...)",
		source:    "https://docs.sqlalchemy.org/en/20/changelog/changelog_14.html#change-3687655465c25a39b968b4f5f6e9170b"},
	{class: "client-connection-setting", software: "MySQL Connector/J",
		signs:     []string{`public key retrieval is not allowed`},
		mechanism: "MySQL 8's default authentication plugin caching_sha2_password needs the server's RSA public key to send a password over a connection without TLS, and Connector/J fetches that key only when the JDBC connection URL says allowPublicKeyRetrieval=true",
		consumer:  []settingSpec{{key: `(url|uri|dsn)$`, value: `^jdbc:mysql`, lacks: `allowpublickeyretrieval=true`, want: "must carry allowPublicKeyRetrieval=true (or useSSL=true)"}},
		fix:       "add allowPublicKeyRetrieval=true to the JDBC URL (or enable TLS, or give the user mysql_native_password)",
		source:    "https://dev.mysql.com/doc/connector-j/en/connector-j-connp-props-security.html"},
	{class: "client-connection-setting", software: "MySQL",
		signs:     []string{`authentication plugin '?caching_sha2_password'? cannot be loaded`, `er_not_supported_auth_mode`, `client does not support authentication protocol requested by server`},
		mechanism: "MySQL 8 creates users with the caching_sha2_password plugin by default, which older client libraries (mysqljs, PHP before 7.4, libmysqlclient 5.x) cannot speak, so the connection fails before the password is checked",
		provider:  []settingSpec{{key: `(^|_)(default_authentication_plugin|authentication_policy)$`, value: `caching_sha2`}, {key: `(^|_)(default_authentication_plugin|authentication_policy)$`, absent: "caching_sha2_password for new users, the MySQL 8 default"}},
		runs:      `mysql`,
		fix:       "give the application's user mysql_native_password (default_authentication_plugin), or upgrade the client library",
		source:    "https://dev.mysql.com/doc/refman/8.0/en/upgrading-from-previous-series.html#upgrade-caching-sha2-password"},
	{class: "server-access-rule", software: "MySQL",
		signs:     []string{`host '[^']{1,100}' is not allowed to connect to this (mysql|mariadb) server`},
		mechanism: "a MySQL account is a user@host pair, and the server refuses a client whose address matches no account's host (the official image creates root for localhost only unless MYSQL_ROOT_HOST says otherwise)",
		provider:  []settingSpec{{key: `(^|_)(mysql|mariadb)_root_host$`, value: `\S`}, {key: `(^|_)(mysql|mariadb)_root_host$`, name: "MYSQL_ROOT_HOST", absent: "root@localhost only"}},
		runs:      `mysql|mariadb`,
		fix:       "create the application's user for host '%' (or the pod address range), or set MYSQL_ROOT_HOST",
		source:    "https://dev.mysql.com/doc/refman/8.0/en/problems-connecting.html"},
	{class: "client-connection-setting", software: "Spring Boot",
		signs:     []string{`failed to configure a datasource: 'url' attribute is not specified`},
		mechanism: "Spring Boot takes the connection URL spring.datasource.url from SPRING_DATASOURCE_URL or from application-<profile>.yml of the active profiles; none gave one (a profile matching no file is ignored silently)",
		consumer: []settingSpec{{key: `(^|_)datasource_(jdbc_)?url$`, name: "spring.datasource.url", absent: "no datasource URL at all"}, {key: `spring_profiles_active$`},
			{key: `spring_config_(location|additional_location|name)$`}, {key: `^(url|jdbc_url)$`}},
		fix:    "set SPRING_DATASOURCE_URL, or activate (SPRING_PROFILES_ACTIVE) the profile whose file holds the URL",
		source: "https://docs.spring.io/spring-boot/reference/features/external-config.html#features.external-config.files.profile-specific"},
	{class: "request-timeout-setting", software: "PostgreSQL",
		signs:     []string{`canceling statement due to statement timeout`},
		mechanism: "PostgreSQL cancels any statement that runs longer than statement_timeout, which the server's configuration, the role or the client's connection options set",
		provider:  []settingSpec{{key: `(^|_)statement_timeout$`, value: `\S`}},
		consumer:  []settingSpec{{key: `(^|_)statement_timeout$`, value: `\S`}, {key: `(url|uri|dsn|options)$`, value: `statement_timeout`}},
		fix:       "raise statement_timeout where it is set, or make the query faster",
		source:    "https://www.postgresql.org/docs/current/runtime-config-client.html#GUC-STATEMENT-TIMEOUT"},
	{class: "request-timeout-setting", software: "PostgreSQL",
		signs:     []string{`terminating connection due to idle-in-transaction timeout`},
		mechanism: "PostgreSQL closes a session left idle inside an open transaction for longer than idle_in_transaction_session_timeout, and the client's next statement on that connection fails",
		provider:  []settingSpec{{key: `(^|_)idle_in_transaction_session_timeout$`, value: `\S`}},
		consumer:  []settingSpec{{key: `(^|_)idle_in_transaction_session_timeout$`, value: `\S`}, {key: `(url|uri|dsn|options)$`, value: `idle_in_transaction_session_timeout`}},
		fix:       "commit or roll back promptly (no slow work between BEGIN and COMMIT), or raise idle_in_transaction_session_timeout",
		source:    "https://www.postgresql.org/docs/current/runtime-config-client.html#GUC-IDLE-IN-TRANSACTION-SESSION-TIMEOUT"},
	{class: "process-os-limit", software: "PostgreSQL",
		signs:     []string{`could not resize shared memory segment`},
		mechanism: "PostgreSQL's parallel queries take dynamic shared memory from /dev/shm, which a container gets from its runtime at 64 MB unless an emptyDir with medium Memory is mounted there",
		consumer:  []settingSpec{{key: `^/dev/shm$`, value: `sizelimit`}, {key: `^/dev/shm$`, absent: "the container runtime's 64 MB /dev/shm (no emptyDir with medium Memory mounted there)"}},
		provider:  []settingSpec{{key: `^/dev/shm$`, value: `sizelimit`}, {key: `^/dev/shm$`, absent: "the container runtime's 64 MB /dev/shm (no emptyDir with medium Memory mounted there)"}},
		runs:      `postgres|postgis|timescale|spilo|pgvector`,
		fix:       "mount an emptyDir with medium: Memory at /dev/shm (sized for the parallel workers), or lower max_parallel_workers_per_gather",
		source:    "https://www.postgresql.org/docs/current/runtime-config-resource.html#GUC-DYNAMIC-SHARED-MEMORY-TYPE"},
}

// hbaLine is the rest of a pg_hba.conf line after its type: database, user, address, method.
const hbaLine = `^\S+\s+\S+\s+\S+\s+\S+`
