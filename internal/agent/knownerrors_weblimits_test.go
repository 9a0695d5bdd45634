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

// Size limits of web servers and application runtimes, in their own log formats; a default
// nobody set names the configuration files the server reads beside its workload.
func TestKnownErrorsWebLimits(t *testing.T) {
	cases := []depCase{
		{name: "nginx proxy_pass with a variable and no resolver", problem: "the edge proxy answers 502",
			objs: func() []runtime.Object {
				o := imaged("edge", "openresty/openresty:1.25.3.1-alpine", 1, mountAt("edge-nginx", "/etc/nginx/conf.d"), nil)
				return append(o, cmWith("edge-nginx", "default.conf", "server {\n  listen 8080;\n  set $backend http://api.shop.svc.cluster.local:8080;\n  location / { proxy_pass $backend; }\n}\n"), fx.Node("node-1"))
			},
			logs: logBook{"edge-": repeat(`2026/11/27 10:00:00 [error] 7#7: *3 no resolver defined to resolve api.shop.svc.cluster.local, client: 10.244.0.1, server: , request: "GET / HTTP/1.1", host: "shop.example.com"`, 3)},
			rule: "client-connection-setting", culprit: "Deployment/edge", affected: []string{"ConfigMap/edge-nginx"}, terms: []string{"resolver", "kube-dns"}},
		{name: "nginx too big header from an OAuth upstream", problem: "login redirects end in 502",
			objs: func() []runtime.Object {
				o := imaged("front", "nginx:1.27", 1, mountAt("front-conf", "/etc/nginx/conf.d"), nil)
				return append(o, cmWith("front-conf", "site.conf", "server {\n  listen 80;\n  proxy_buffer_size 4k;\n  location / { proxy_pass http://oauth2-proxy:4180; }\n}\n"), fx.Node("node-1"))
			},
			logs: logBook{"front-": repeat(`2026/11/27 10:00:00 [error] 30#30: *52 upstream sent too big header while reading response header from upstream, client: 10.244.2.1, server: app.example.com, request: "GET /oauth2/callback?code=x HTTP/1.1", upstream: "http://10.96.1.20:4180/oauth2/callback?code=x"`, 3)},
			rule: "server-limit-reached", culprit: "ConfigMap/front-conf", terms: []string{"proxy_buffer_size = 4k"}},
		{name: "nginx worker_connections at the default", problem: "the gateway drops connections at peak",
			objs: func() []runtime.Object {
				o := imaged("lb", "nginx:1.25-alpine", 2, mountAt("lb-conf", "/etc/nginx"), nil)
				return append(o, cmWith("lb-conf", "nginx.conf", "worker_processes auto;\nevents {}\nhttp {\n  server { listen 80; location / { proxy_pass http://web:8080; } }\n}\n"), fx.Node("node-1"))
			},
			logs: logBook{"lb-": repeat(`2026/11/27 10:00:00 [alert] 31#31: 512 worker_connections are not enough`, 3)},
			rule: "server-limit-reached", culprit: "Deployment/lb", affected: []string{"ConfigMap/lb-conf"}, terms: []string{"worker_connections", "512"}},
		{name: "uWSGI's default buffer against long cookies", problem: "some users get 502",
			objs: func() []runtime.Object {
				return append(app("portal", 2, withArgs("uwsgi", "--http", ":8000", "--module", "portal.wsgi", "--processes", "4"), nil), fx.Node("node-1"))
			},
			logs: logBook{"portal-": repeat(`invalid request block size: 4420 (max 4096)...skip`, 3)},
			rule: "server-limit-reached", culprit: "Deployment/portal", terms: []string{"--buffer-size", "4096 bytes"}},
		{name: "gunicorn request line limit set low", problem: "search with many filters fails",
			objs: func() []runtime.Object {
				return append(app("search-api", 1, withArgs("gunicorn", "api:app", "--limit-request-line", "2048"), nil), fx.Node("node-1"))
			},
			logs: logBook{"search-api-": repeat(`[2026-11-27 10:00:00 +0000] [9] [DEBUG] Invalid request from ip=10.244.0.3: Request Line is too large (3112 > 2048)`, 3)},
			rule: "server-limit-reached", culprit: "Deployment/search-api", terms: []string{"--limit-request-line = 2048"}},
		{name: "Spring multipart limit at its default", problem: "document uploads fail",
			objs: func() []runtime.Object {
				o := app("documents", 1, envFrom("documents-env"), nil)
				return append(o, cmWith("documents-env", "SPRING_PROFILES_ACTIVE", "k8s", "SERVER_PORT", "8080"), fx.Node("node-1"))
			},
			logs: logBook{"documents-": repeat(`2026-11-27T10:00:00.000Z ERROR 1 --- [nio-8080-exec-2] o.a.c.c.C.[.[.[/].[dispatcherServlet] : Servlet.service() threw exception: org.springframework.web.multipart.MaxUploadSizeExceededException: Maximum upload size exceeded`, 3)},
			rule: "server-limit-reached", culprit: "Deployment/documents", terms: []string{"spring.servlet.multipart.max-file-size", "1MB"}},
		{name: "PHP memory_limit in the env", problem: "the shop's admin pages show a blank page",
			objs: func() []runtime.Object {
				return append(app("shop", 1, all(withEnv("PHP_MEMORY_LIMIT", "64M"), withMemory("1Gi", "512Mi")), nil), fx.Node("node-1"))
			},
			logs: logBook{"shop-": repeat(`[27-Nov-2026 10:00:00 UTC] PHP Fatal error:  Allowed memory size of 67108864 bytes exhausted (tried to allocate 20480 bytes) in /var/www/html/wp-includes/class-wpdb.php on line 2056`, 3)},
			rule: "runtime-memory-setting", culprit: "Deployment/shop", terms: []string{"PHP_MEMORY_LIMIT = 64M", "1Gi"}},
	}
	runDepCases(t, cases)
	runSilentCases(t, []silentCase{
		{name: "nginx with a resolver already", problem: "the edge proxy answers 502", not: "client-connection-setting",
			objs: func() []runtime.Object {
				o := imaged("edge", "nginx:1.27", 1, mountAt("edge-nginx", "/etc/nginx/conf.d"), nil)
				return append(o, cmWith("edge-nginx", "default.conf", "resolver 10.96.0.10 valid=10s;\nserver { listen 8080; }\n"), fx.Node("node-1"))
			},
			logs: logBook{"edge-": repeat(`[error] 7#7: *3 no resolver defined to resolve api.shop.svc.cluster.local`, 3)}},
	})
}

// A private CA the client does not trust: its CA bundle setting, or the system bundle alone.
func TestKnownErrorsTrust(t *testing.T) {
	cases := []depCase{
		{name: "Go client with no CA bundle against a private CA", problem: "the exporter cannot reach the API",
			objs: func() []runtime.Object {
				return append(app("exporter", 1, withEnv("API_URL", "https://billing-api.internal.example:8443"), crashing), fx.Node("node-1"))
			},
			logs: logBook{"exporter-": `level=error msg="scrape failed" err="Get \"https://billing-api.internal.example:8443/metrics\": tls: failed to verify certificate: x509: certificate signed by unknown authority"` + "\n"},
			rule: "client-connection-setting", culprit: "Deployment/exporter", terms: []string{"SSL_CERT_FILE", "private CA"}},
		{name: "Python requests pointed at the wrong bundle in a ConfigMap", problem: "webhook deliveries fail",
			objs: func() []runtime.Object {
				o := app("hooks", 1, envFrom("hooks-env"), nil)
				return append(o, cmWith("hooks-env", "REQUESTS_CA_BUNDLE", "/etc/ssl/certs/ca-certificates.crt"), fx.Node("node-1"))
			},
			logs: logBook{"hooks-": repeat(`requests.exceptions.SSLError: HTTPSConnectionPool(host='partner.example.net', port=443): Max retries exceeded with url: /hook (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate (_ssl.c:1006)')))`, 3)},
			rule: "client-connection-setting", culprit: "ConfigMap/hooks-env", terms: []string{"REQUESTS_CA_BUNDLE = /etc/ssl/certs/ca-certificates.crt"}},
	}
	runDepCases(t, cases)
}

// A non-root server on a port below 1024, and timeouts shorter than the work or longer than the server's.
func TestKnownErrorsPortsAndIdleTimeouts(t *testing.T) {
	cases := []depCase{
		{name: "nginx as non-root on port 80 in its mounted config", problem: "the web front never starts",
			objs: func() []runtime.Object {
				o := imaged("front", "nginxinc/nginx-unprivileged:1.27", 1, mountAt("front-site", "/etc/nginx/conf.d"), crashing)
				return append(o, cmWith("front-site", "default.conf", "server {\n  listen 80;\n  root /usr/share/nginx/html;\n}\n"), fx.Node("node-1"))
			},
			logs: logBook{"front-": "2026/11/27 10:00:00 [emerg] 1#1: bind() to 0.0.0.0:80 failed (13: Permission denied)\nnginx: [emerg] bind() to 0.0.0.0:80 failed (13: Permission denied)\n"},
			rule: "process-os-limit", culprit: "ConfigMap/front-site", terms: []string{"listen = 80", "NET_BIND_SERVICE"}},
		{name: "a Go server on :443 from its env", problem: "the api crash loops",
			objs: func() []runtime.Object {
				return append(app("api", 1, withEnv("LISTEN_ADDR", ":443"), crashing), fx.Node("node-1"))
			},
			logs: logBook{"api-": `{"level":"fatal","msg":"server exited","error":"listen tcp :443: bind: permission denied"}` + "\n"},
			rule: "process-os-limit", culprit: "Deployment/api", terms: []string{"LISTEN_ADDR = :443", "1024"}},
		{name: "HikariCP outliving the server's wait_timeout", problem: "orders fail after quiet periods",
			objs: func() []runtime.Object {
				o := app("orders", 2, withEnv("SPRING_DATASOURCE_URL", "jdbc:mysql://orders-db:3306/orders"), nil)
				return append(o, serverOf("orders-db", "mysql:8.0", 3306, withArgs("--wait-timeout=600"), fx.Node("node-1"))...)
			},
			logs: logBook{"orders-": repeat(`2026-11-27 10:00:00.000  WARN 1 --- [nio-8080-exec-3] com.zaxxer.hikari.pool.PoolBase : HikariPool-1 - Failed to validate connection com.mysql.cj.jdbc.ConnectionImpl@5c1a1c7e (No operations allowed after connection closed.). Possibly consider using a shorter maxLifetime value.`, 3)},
			rule: "request-timeout-setting", culprit: "Deployment/orders-db", terms: []string{"--wait-timeout = 600", "maxLifetime"}},
		{name: "InnoDB lock wait timeout lowered in my.cnf", problem: "checkout fails under load",
			objs: func() []runtime.Object {
				o := app("checkout", 1, withEnv("DB_HOST", "shop-db"), crashing)
				return append(o, serverOf("shop-db", "mysql:8.4", 3306, mountAt("shop-db-cnf", "/etc/mysql/conf.d"), cmWith("shop-db-cnf", "tuning.cnf", "[mysqld]\ninnodb_lock_wait_timeout = 5\nmax_connections = 300\n"), fx.Node("node-1"))...)
			},
			logs: logBook{"checkout-": "pymysql.err.OperationalError: (1205, 'Lock wait timeout exceeded; try restarting transaction')\n"},
			rule: "request-timeout-setting", culprit: "ConfigMap/shop-db-cnf", terms: []string{"innodb_lock_wait_timeout = 5"}},
	}
	runDepCases(t, cases)
	runSilentCases(t, []silentCase{
		{name: "a bind error on a high port is another story", problem: "the api crash loops", not: "process-os-limit",
			objs: func() []runtime.Object {
				return append(app("api", 1, withEnv("LISTEN_ADDR", ":8443"), crashing), fx.Node("node-1"))
			},
			logs: logBook{"api-": `{"level":"fatal","error":"listen tcp :8443: bind: permission denied"}` + "\n"}},
	})
}
