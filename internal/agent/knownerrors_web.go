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

// Well-known errors of web servers, reverse proxies and web frameworks.
// Each entry's source names where its text and mechanism come from.
var webErrors = []knownError{
	{class: "server-limit-reached", software: "nginx",
		signs:     []string{`client intended to send too large body`, `413 request entity too large`},
		mechanism: "nginx answers 413 Request Entity Too Large to a request whose body passes its client_max_body_size limit (1 MB by default; proxy-body-size in ingress-nginx's ConfigMap, or the nginx.ingress.kubernetes.io/proxy-body-size annotation)",
		provider:  nginxBody, consumer: nginxBody,
		runs:   `nginx|openresty`,
		fix:    "raise client_max_body_size (proxy-body-size) to the largest upload the application takes",
		source: "https://nginx.org/en/docs/http/ngx_http_core_module.html#client_max_body_size"},
	{class: "client-connection-setting", software: "CoreDNS",
		signs:     []string{`plugin/loop: loop \([0-9a-f.:\[\]]+ -> [0-9a-f.:\[\]]*:53\) detected`},
		mechanism: "CoreDNS's loop plugin found that its upstream connection sends its queries back to itself (forward . /etc/resolv.conf on a pod whose resolv.conf points at a local stub such as systemd-resolved's 127.0.0.53, or at this very Service), and exits rather than loop, so the resolver crash-loops and every lookup through it is refused",
		consumer:  []settingSpec{{key: `^forward$`, value: `/etc/resolv\.conf`, name: "forward in the Corefile"}},
		runs:      `coredns`,
		fix:       "forward . to real upstream resolvers (their IPs) instead of /etc/resolv.conf, or give the resolver's pods a resolv.conf that does not point back at it",
		source:    "https://coredns.io/plugins/loop/#troubleshooting"},
	{class: "request-timeout-setting", software: "nginx",
		signs:     []string{`upstream timed out \(110: (connection|operation) timed out\) while reading response header from upstream`},
		mechanism: "nginx gives up on an upstream that sends no response header within proxy_read_timeout (a timeout of 60 s by default; proxy-read-timeout in ingress-nginx) and answers 504 Gateway Time-out",
		provider:  nginxRead, consumer: nginxRead,
		runs:   `nginx|openresty`,
		fix:    "raise proxy_read_timeout (proxy-read-timeout) above the slowest response, or make the upstream answer sooner",
		source: "https://nginx.org/en/docs/http/ngx_http_proxy_module.html#proxy_read_timeout"},
	{class: "client-connection-setting", software: "nginx",
		signs:     []string{`no resolver defined to resolve`},
		mechanism: "nginx resolves a proxy_pass host written with a variable at request time, and only through its resolver directive (it does not read /etc/resolv.conf), so with no resolver every such upstream connection fails",
		consumer:  []settingSpec{{key: `^resolver$`, absent: "no resolver directive"}},
		runs:      `nginx|openresty`,
		fix:       "add a resolver naming the cluster DNS Service (resolver kube-dns.kube-system.svc.cluster.local valid=10s), or proxy_pass a fixed host name",
		source:    "https://nginx.org/en/docs/http/ngx_http_core_module.html#resolver"},
	{class: "server-limit-reached", software: "nginx",
		signs:     []string{`upstream sent too big header while reading response header from upstream`},
		mechanism: "nginx answers 502 when an upstream's response headers (large cookies or tokens, as OAuth proxies send) do not fit in proxy_buffer_size, a limit of one memory page (4k or 8k) by default; proxy-buffer-size in ingress-nginx",
		provider:  nginxBuffer, consumer: nginxBuffer,
		runs:   `nginx|openresty`,
		fix:    "raise proxy_buffer_size (and proxy_buffers) to hold the upstream's headers, e.g. 16k",
		source: "https://nginx.org/en/docs/http/ngx_http_proxy_module.html#proxy_buffer_size"},
	{class: "server-limit-reached", software: "nginx",
		signs:     []string{`worker_connections are not enough`},
		mechanism: "each nginx worker serves at most worker_connections connections at once (a limit of 512 by default, counting upstream connections too), and refuses more",
		consumer:  []settingSpec{{key: `^worker_connections$`, value: `\d`}, {key: `^worker_connections$`, absent: "512 connections per worker, nginx's default"}},
		runs:      `nginx|openresty`,
		fix:       "raise worker_connections in the events block (and worker_rlimit_nofile with it)",
		source:    "https://nginx.org/en/docs/ngx_core_module.html#worker_connections"},
	{class: "server-limit-reached", software: "uWSGI",
		signs:     []string{`invalid request block size: \d{1,9} \(max \d{1,9}\)`},
		mechanism: "uWSGI drops a request whose headers are larger than its buffer-size limit (4096 bytes by default), as long cookies or tokens make them",
		consumer:  []settingSpec{{key: `^(-b|--buffer-size|buffer_size|uwsgi_buffer_size)$`, value: `\d`}, {key: `^(-b|--buffer-size|buffer_size|uwsgi_buffer_size)$`, absent: "4096 bytes, uWSGI's default buffer-size"}},
		runs:      `uwsgi`,
		fix:       "raise buffer-size (for example --buffer-size 32768)",
		source:    "https://uwsgi-docs.readthedocs.io/en/latest/Options.html#buffer-size"},
	{class: "server-limit-reached", software: "Gunicorn",
		signs:     []string{`request line is too large \(\d{1,9} > \d{1,9}\)`, `request header fields too large`},
		mechanism: "gunicorn refuses a request line or header longer than its limit (--limit-request-line, 4094 bytes by default, and --limit-request-field_size), as long query strings make them",
		consumer:  []settingSpec{{key: `^(--limit-request-line|--limit_request_line|limit_request_line)$`, value: `\d`}, {key: `^(--limit-request-line|limit_request_line)$`, absent: "4094 bytes, gunicorn's default request line limit"}},
		runs:      `gunicorn`,
		fix:       "raise --limit-request-line (0 for no limit), or send long parameters in the body",
		source:    "https://docs.gunicorn.org/en/stable/settings.html#limit-request-line"},
	{class: "process-os-limit", software: "a non-root server",
		signs: []string{`bind\(\) to [0-9a-f.:\[\]]{1,50}:\d{1,3} failed \(13: permission denied\)`, `listen tcp [0-9a-f.:\[\]]{0,50}:\d{1,3}: bind: permission denied`,
			`eacces: permission denied [0-9a-f.:]{0,50}:\d{1,3}\b`, `cannot bind to port \d{1,3}\b.{0,40}permission denied`},
		mechanism: "the kernel limits ports below 1024 to root: a process that is not root cannot bind one unless its container holds the NET_BIND_SERVICE capability (or the node lowers net.ipv4.ip_unprivileged_port_start), so a server image run as a non-root user must listen on a higher port",
		consumer:  []settingSpec{{key: `^listen$|(^|_)(port|http_port|server_port|listen_port|listen|bind|addr|listen_addr|bind_address)$`, value: `(^|[:\s])\d{1,3}($|[\s;])`}},
		fix:       "listen on a port of 1024 or above (and point the Service's targetPort at it), or add the NET_BIND_SERVICE capability",
		source:    "https://kubernetes.io/docs/tasks/configure-pod-container/security-context/#set-capabilities-for-a-container; https://man7.org/linux/man-pages/man7/capabilities.7.html"},
	{class: "request-timeout-setting", software: "Gunicorn",
		signs:     []string{`\[critical\] worker timeout \(pid:\s?\d{1,9}\)`},
		mechanism: "gunicorn's arbiter kills a worker that stays silent longer than its --timeout (30 s by default), so a request that takes longer is cut off and the worker restarts",
		consumer: []settingSpec{{key: `^(-t|--timeout|timeout|gunicorn_timeout)$`, value: `^\d`}, {key: `^gunicorn_cmd_args$`, value: `--timeout|-t `},
			{key: `^(-t|--timeout|timeout|gunicorn_timeout|gunicorn_cmd_args)$`, absent: "a timeout of 30 seconds, gunicorn's default"}},
		runs:   `gunicorn`,
		fix:    "raise --timeout above the slowest request (or move long work to a background worker)",
		source: "https://docs.gunicorn.org/en/stable/settings.html#timeout"},
	{class: "server-access-rule", software: "Django",
		signs:     []string{`disallowedhost`, `invalid http_host header: '[^']{1,200}'\. you may need to add`},
		mechanism: "Django refuses (400) a request whose Host header is not in ALLOWED_HOSTS, and kubelet probes and other pods call it by pod IP or Service name, not by its public host name",
		consumer:  []settingSpec{{key: `(^|_)allowed_hosts$`, value: `\S`}, {key: `(^|_)allowed_hosts$`, absent: "an empty ALLOWED_HOSTS, which with DEBUG off admits no host at all"}},
		fix:       "add the Service name and the Ingress host to ALLOWED_HOSTS (and send probes with a Host header it admits)",
		source:    "https://docs.djangoproject.com/en/stable/ref/settings/#allowed-hosts"},
	{class: "server-access-rule", software: "Keycloak",
		signs:     []string{`error="?ssl_required`},
		mechanism: "Keycloak refuses logins over plain HTTP from non-local addresses (the realm's sslRequired external), and behind an Ingress that ends TLS it sees plain HTTP unless told to trust the proxy's X-Forwarded-Proto header",
		consumer: []settingSpec{{key: `(^|_)(kc_proxy_headers|kc_proxy|proxy_address_forwarding)$`, value: `^(none|false|)$`},
			{key: `(^|_)(kc_proxy_headers|kc_proxy|proxy_address_forwarding)$`, absent: "no proxy headers trusted, so it takes every request for plain HTTP"}},
		runs:   `keycloak`,
		fix:    "set KC_PROXY_HEADERS=xforwarded (KC_PROXY=edge before Keycloak 24) and have the Ingress send X-Forwarded-Proto",
		source: "https://www.keycloak.org/server/reverseproxy"},
}

var (
	nginxBody = []settingSpec{{key: `(^|_)(client_max_body_size|proxy_body_size)$`, value: `\S`},
		{key: `(^|_)(client_max_body_size|proxy_body_size)$`, absent: "a body limit of 1m, nginx's default"}}
	nginxBuffer = []settingSpec{{key: `(^|_)proxy_buffer_size$`, value: `\S`},
		{key: `(^|_)proxy_buffer_size$`, absent: "one memory page (4k or 8k), nginx's default proxy_buffer_size"}}
	nginxRead = []settingSpec{{key: `(^|_)proxy_read_timeout$`, value: `\S`},
		{key: `(^|_)proxy_read_timeout$`, absent: "a read timeout of 60s, nginx's default"}}
)
