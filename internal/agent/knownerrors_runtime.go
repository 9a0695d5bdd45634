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

// Well-known errors of language runtimes and pre-forking application servers.
// Each entry's source names where its text and mechanism come from.
var runtimeErrors = []knownError{
	{class: "worker-pool-by-cpus", software: "Celery",
		reasons: []string{"OOMKilled"}, program: `\bcelery\b.*\bworker\b`,
		mechanism: "the celery worker starts one prefork child process per CPU it sees when --concurrency is not set, and a container sees all the node's CPUs",
		consumer:  []settingSpec{{key: `^(-c|--concurrency|celery_worker_concurrency|celeryd_concurrency|worker_concurrency)$`, value: numericValue, absent: "one process per CPU of the node"}},
		unless:    []settingSpec{{key: `^(-p|--pool|celery_worker_pool|worker_pool)$`, value: `solo|threads|gevent|eventlet`}},
		fix:       "set --concurrency",
		source:    "https://docs.celeryq.dev/en/stable/userguide/workers.html#concurrency"},
	{class: "worker-pool-by-cpus", software: "Gunicorn",
		reasons: []string{"OOMKilled"}, program: `\bgunicorn\b`,
		mechanism: "gunicorn forks as many workers as its setting says, and a count derived from the CPU count (cpu_count() * 2 + 1, nproc) follows the node's CPUs, not the container's limits",
		consumer:  []settingSpec{{key: `^(-w|--workers|workers|web_concurrency|gunicorn_workers)$`, value: `cpu_count|nproc|processor`}},
		fix:       "set workers to a fixed number",
		source:    "https://docs.gunicorn.org/en/stable/design.html#how-many-workers"},
	{class: "worker-pool-by-cpus", software: "uWSGI",
		reasons: []string{"OOMKilled"}, program: `\buwsgi\b`,
		mechanism: "uWSGI's %k is the number of CPU cores of the node, so processes = %k forks one worker per node CPU",
		consumer:  []settingSpec{{key: `^(-p|--processes|--workers|processes|workers)$`, value: `%k`}},
		fix:       "set processes to a fixed number",
		source:    "https://uwsgi-docs.readthedocs.io/en/latest/Configuration.html#magic-variables"},
	{class: "worker-pool-by-cpus", software: "PM2",
		reasons: []string{"OOMKilled"}, program: `\bpm2(-runtime|-docker)?\b`,
		mechanism: "pm2 in cluster mode with instances max (or 0) starts one Node.js process per CPU of the node",
		consumer:  []settingSpec{{key: `^(-i|--instances|instances|pm2_instances)$`, value: `^(max|0|-1)$`}},
		fix:       "set instances to a fixed number",
		source:    "https://pm2.keymetrics.io/docs/usage/cluster-mode/"},
	{class: "runtime-memory-setting", software: "the JVM",
		signs:     []string{`outofmemoryerror: java heap space`},
		mechanism: "the JVM throws OutOfMemoryError: Java heap space when its heap is full, and the heap is capped by -Xmx or, without it, by -XX:MaxRAMPercentage of the container's memory limit (25% by default), not by the limit itself",
		consumer: []settingSpec{{key: `^-xmx\d`, value: `^`}, {key: jvmOpts, value: `xmx|maxrampercentage`},
			{key: jvmOpts + `|^-xmx\d`, value: `xmx|maxrampercentage|^$`, absent: "no -Xmx or -XX:MaxRAMPercentage: a heap of 25% of the container's memory limit"}},
		fix:    "raise -Xmx (or -XX:MaxRAMPercentage=75.0) within the memory limit, or raise the limit with it",
		source: "https://docs.oracle.com/en/java/javase/21/troubleshoot/troubleshooting-memory-leaks.html#GUID-19F6D28E-75A1-4480-9879-D0932B2F305B"},
	{class: "runtime-memory-setting", software: "the JVM",
		signs:     []string{`outofmemoryerror: metaspace`, `outofmemoryerror: compressed class space`},
		mechanism: "the JVM throws OutOfMemoryError: Metaspace when class metadata outgrows -XX:MaxMetaspaceSize (or the compressed class space), outside the heap and inside the container's memory limit",
		consumer:  []settingSpec{{key: jvmOpts, value: `maxmetaspacesize|compressedclassspacesize`}},
		fix:       "raise -XX:MaxMetaspaceSize (and the memory limit with it), or find the class loader leak (redeploys in one JVM)",
		source:    "https://docs.oracle.com/en/java/javase/21/troubleshoot/troubleshooting-memory-leaks.html#GUID-FB6D3C5F-3E6B-4C53-A4C0-7E1A6E6A4B64"},
	{class: "client-connection-setting", software: "a TLS client",
		signs: []string{`certificate signed by unknown authority`, `unable to get local issuer certificate`, `unable_to_get_issuer_cert_locally`,
			`self[ -]signed certificate in certificate chain`, `self_signed_cert_in_chain`, `unable to find valid certification path to requested target`},
		mechanism: "a TLS client accepts a server's certificate only when it chains to a CA it trusts: the image's system bundle, or the bundle its settings name (SSL_CERT_FILE for Go and OpenSSL, REQUESTS_CA_BUNDLE for Python, NODE_EXTRA_CA_CERTS for Node.js, a Java truststore), so a connection to a server signed by a private CA fails until that CA is added",
		consumer: []settingSpec{{key: caBundle, value: `\S`}, {key: jvmOpts, value: `truststore`}, {key: `(url|uri|dsn)$`, value: `sslrootcert=`},
			{key: caBundle, name: "SSL_CERT_FILE", absent: "only the image's system CA bundle, which holds no private CA"}},
		fix:    "mount the CA that signed the server's certificate and point the client at it (SSL_CERT_FILE, REQUESTS_CA_BUNDLE, NODE_EXTRA_CA_CERTS, a truststore)",
		source: "https://pkg.go.dev/crypto/x509#SystemCertPool; https://nodejs.org/api/cli.html#node_extra_ca_certsfile; https://requests.readthedocs.io/en/latest/user/advanced/#ssl-cert-verification"},
	{class: "runtime-memory-setting", software: "PHP",
		signs:     []string{`allowed memory size of \d{1,12} bytes exhausted`},
		mechanism: "PHP stops a script whose allocations pass its own memory_limit (128M by default), a cap well below the container's memory limit",
		consumer:  []settingSpec{{key: `(^|_)memory_limit$`, value: `\S`}, {key: `(^|_)memory_limit$`, absent: "128M, PHP's default memory_limit"}},
		fix:       "raise memory_limit (php.ini, PHP_MEMORY_LIMIT or WORDPRESS_MEMORY_LIMIT) within the container's memory limit",
		source:    "https://www.php.net/manual/en/ini.core.php#ini.memory-limit"},
	{class: "server-limit-reached", software: "Spring Boot",
		signs:     []string{`maxuploadsizeexceededexception`, `exceeds its maximum permitted size of \d{1,12} bytes`},
		mechanism: "Spring Boot refuses a multipart upload past spring.servlet.multipart.max-file-size (a limit of 1MB by default) or max-request-size (10MB)",
		consumer:  []settingSpec{{key: `(^|_)multipart_max_(file|request)_size$|^max_file_size$`, value: `\S`}, {key: `(^|_)multipart_max_file_size$|^max_file_size$`, name: "spring.servlet.multipart.max-file-size", absent: "1MB, Spring's default max-file-size"}},
		fix:       "raise spring.servlet.multipart.max-file-size and max-request-size (SPRING_SERVLET_MULTIPART_MAX_FILE_SIZE)",
		source:    "https://docs.spring.io/spring-boot/appendix/application-properties/index.html#application-properties.web.spring.servlet.multipart.max-file-size"},
	{class: "runtime-memory-setting", software: "Node.js",
		signs:     []string{`javascript heap out of memory`, `reached heap limit allocation failed`},
		mechanism: "Node.js dies with 'JavaScript heap out of memory' when V8's old space reaches its heap limit, set by --max-old-space-size (often in NODE_OPTIONS) or by V8's default, not by the container's memory limit",
		consumer: []settingSpec{{key: `max_old_space_size$`, value: `\d`}, {key: `(^|_)node_options$`, value: `max.old.space.size`},
			{key: `(^|_)node_options$|max_old_space_size$`, value: `max.old.space.size|^\d`, absent: "no --max-old-space-size: V8's default heap limit"}},
		fix:    "set --max-old-space-size (in NODE_OPTIONS) to about three quarters of the memory limit, or raise the limit",
		source: "https://nodejs.org/api/cli.html#--max-old-space-sizesize-in-mib"},
}

// caBundle are the settings that name the CA bundle a TLS client trusts.
const caBundle = `(^|_)(ssl_cert_file|ssl_cert_dir|requests_ca_bundle|curl_ca_bundle|node_extra_ca_certs|sslrootcert|ca_file|cafile|ca_cert|cacert|ca_bundle|ca_path|ca_crt|tls_ca|tls_ca_file|ssl_ca|ssl_ca_file|truststore|trust_store)$`

// jvmOpts are the settings a JVM's options come in.
const jvmOpts = `(^|_)(java_opts|java_tool_options|jdk_java_options|jvm_opts|jvm_flags|java_options|catalina_opts|jaeger_java_opts)$`
