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

package scenarios

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// Wave 19a: incident tickets as an on-call engineer receives them. Each scenario is one common
// production failure taken from a public issue (cited in its Source), told in the words of the
// ticket: the symptom, often vague or pointing the wrong way. The apps vary (Elixir, Kotlin,
// Deno, .NET, Symfony, Rails, Go, Keycloak, git over ssh) and so do their log formats; most
// need two hops from the symptom to the object to edit. Written blind by an outside hand;
// every Want was fixed from the source before anything ran.

func wave19aScenarios() []*Scenario {
	return append([]*Scenario{w19aBackupKeyScenario(), w19aFPMScenario(), w19aEnvOrderScenario(), w19aMaxClientsScenario()},
		wave19aMoreScenarios()...)
}

// OpenSSH ignores a private key that group or others may read ("UNPROTECTED PRIVATE KEY
// FILE"). A Secret volume's defaultMode is an octal file mode; the backup CronJob's manifest
// says 0420 (group-readable), so ssh drops the key and git's push is refused (publickey). The
// fix is the CronJob's volume mode (0400), not the key or the git server.
func w19aBackupKeyScenario() *Scenario {
	backup := w8cLabels("app.kubernetes.io/name", "kube-backup", "app.kubernetes.io/instance", "manifest-backup")
	wiki := w8cLabels("app.kubernetes.io/name", "wiki-export", "app.kubernetes.io/instance", "wiki-export")
	return &Scenario{
		Name:   "cluster-state-git-backup-rerun-fails",
		Covers: "the manual run manifest-backup-manual-7xk2p of CronJob manifest-backup fails (exit 128, BackoffLimitExceeded): 'Permissions 0420 for '/backup/.ssh/id_ed25519' are too open ... Load key: bad permissions ... Permission denied (publickey)'; the CronJob mounts Secret manifest-backup-ssh with defaultMode 0420, while wiki-export mounts its key with 0400 and its run completes",
		Source: w19aSrcSSHKey, Class: ClassClue, Hops: 1,
		Problem: "the nightly backup of our cluster manifests to git has not pushed anything for a week; I re-ran it by hand with kubectl create job --from=cronjob and it fails again, the deploy key still works from my laptop",
		Target:  target("CronJob", "manifest-backup"),
		Want:    Want{Culprit: Ref{Kind: "CronJob", Name: "manifest-backup"}, Terms: []string{"defaultMode"}},
		Setup: func(ctx context.Context, e *Env) error {
			key := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACBmR2l0U3luY0tleUV4YW1wbGVPbmx5Tm90UmVhbAAAAJgAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"
			hosts := "git.corp.example ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHh4eUV4YW1wbGVIb3N0S2V5Tm90UmVhbA==\n"
			return steps(
				func() error { return e.createServiceAccount(ctx, "manifest-backup") },
				func() error {
					return e.createSecret(ctx, "manifest-backup-ssh", map[string]string{"id_ed25519": key, "known_hosts": hosts})
				},
				func() error {
					return e.createSecret(ctx, "wiki-export-ssh", map[string]string{"id_ed25519": key, "known_hosts": hosts})
				},
				func() error {
					msg := "Permissions 0420 for '/backup/.ssh/id_ed25519' are too open.\nIt is required that your private key files are NOT accessible by others.\nThis private key will be ignored.\n" +
						"Load key \"/backup/.ssh/id_ed25519\": bad permissions\ngit@git.corp.example: Permission denied (publickey).\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists."
					cj := w11aCronJob("manifest-backup", "quay.io/plange/kube-backup:1.12.0-1", "15 1 * * *", false, backup)
					t := &cj.Spec.JobTemplate.Spec.Template
					t.Annotations = sim("fail", annExitCode, "128", annMessage, msg, annLogs, "w19a-manifest-backup-ssh")
					t.Spec.RestartPolicy = corev1.RestartPolicyNever
					t.Spec.ServiceAccountName = "manifest-backup"
					w9cFallbackToLogs(t)
					w8bEnv(t, "GIT_REPO", "git@git.corp.example:platform/cluster-state.git", "GIT_BRANCH", "master",
						"GIT_PREFIX_PATH", "prod-eu1", "GIT_SSH_KEY_PATH", "/backup/.ssh/id_ed25519",
						"RESOURCETYPES", "configmaps secrets ingresses deployments statefulsets daemonsets cronjobs services serviceaccounts roles rolebindings networkpolicies",
						"GLOBALRESOURCES", "namespaces persistentvolumes clusterroles clusterrolebindings")
					w19aSecretVolume(t, "sshkey", "manifest-backup-ssh", "/backup/.ssh", 0o420)
					w10aEmptyDir(t, "cache", "/backup/git", 0)
					cj.Spec.JobTemplate.Spec.BackoffLimit = ptr.To[int32](1)
					return e.w19aCreateManualRun(ctx, cj, "manifest-backup-manual-7xk2p")
				},
				func() error {
					cj := w11aCronJob("wiki-export", "registry.example/platform/wiki-export:2.3.0", "40 1 * * *", false, wiki, "--space=OPS", "--format=markdown")
					t := &cj.Spec.JobTemplate.Spec.Template
					t.Spec.RestartPolicy = corev1.RestartPolicyNever
					w8bEnv(t, "GIT_REPO", "git@git.corp.example:platform/ops-wiki-archive.git", "GIT_SSH_COMMAND", "ssh -i /export/.ssh/id_ed25519 -o UserKnownHostsFile=/export/.ssh/known_hosts")
					w19aSecretVolume(t, "sshkey", "wiki-export-ssh", "/export/.ssh", 0o400)
					return e.w19aCreateManualRun(ctx, cj, "wiki-export-manual-q4m8d")
				},
			)
		},
		Wait: all(w11aJobFailed("manifest-backup-manual-7xk2p", "BackoffLimitExceeded"), w9aJobComplete("wiki-export-manual-q4m8d")),
	}
}

// PHP-FPM serves one request per child; when all pm.max_children are busy new requests wait
// in the listen backlog. With 4 children per pod and checkout calls to a slow payment API
// (8-12 s each), the pool is full at the lunchtime peak and nginx gives up after
// fastcgi_read_timeout with 504. The pods are Ready and idle on CPU; the pool size is the cause.
func w19aFPMScenario() *Scenario {
	fpm := w8cLabels("app.kubernetes.io/name", "storefront", "app.kubernetes.io/instance", "shop", "app.kubernetes.io/component", "php-fpm")
	web := w8cLabels("app.kubernetes.io/name", "storefront", "app.kubernetes.io/instance", "shop", "app.kubernetes.io/component", "nginx")
	back := w8cLabels("app.kubernetes.io/name", "backoffice", "app.kubernetes.io/instance", "backoffice", "app.kubernetes.io/component", "php-fpm")
	pool := func(children int) string {
		return fmt.Sprintf("[www]\nlisten = 9000\npm = dynamic\npm.max_children = %d\npm.start_servers = 2\npm.min_spare_servers = 1\npm.max_spare_servers = 3\npm.max_requests = 500\n"+
			"request_slowlog_timeout = 10s\nslowlog = /proc/self/fd/2\ncatch_workers_output = yes\ndecorate_workers_output = no\nclear_env = no\n", children)
	}
	nginx := "server {\n    listen 8080;\n    server_name shop.example.com;\n    root /srv/public;\n    location = /healthz { access_log off; return 200 \"ok\"; }\n" +
		"    location / { try_files $uri /index.php$is_args$args; }\n    location ~ ^/index\\.php(/|$) {\n        fastcgi_pass shop-fpm:9000;\n" +
		"        fastcgi_split_path_info ^(.+\\.php)(/.*)$;\n        include fastcgi_params;\n        fastcgi_param SCRIPT_FILENAME /app/public/index.php;\n" +
		"        fastcgi_read_timeout 60s;\n        internal;\n    }\n}\n"
	return &Scenario{
		Name:   "shop-checkout-gateway-timeouts-at-lunch",
		Covers: "shop-nginx (Ready) logs 'upstream timed out (110: Operation timed out) while reading response header from upstream ... fastcgi://10.96.0.71:9000' and answers 504 on checkout; shop-fpm (Ready, 2 pods) logs '[pool www] server reached pm.max_children setting (4), consider raising it' while payment API calls take 8-12 s: ConfigMap shop-fpm-pool sets pm.max_children = 4 (backoffice-fpm's pool has 24)",
		Source: w19aSrcFPMChildren, Class: ClassOutside, Hops: 2,
		Problem: "checkout on shop.example.com returns 504 Gateway Time-out at the lunchtime peak; the shop pods are all Ready and barely use any CPU, so is the payment provider slow?",
		Target:  target("Deployment", "shop-nginx"),
		Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "shop-fpm-pool"}, Terms: []string{"pm.max_children"}},
		Setup: func(ctx context.Context, e *Env) error {
			return steps(
				func() error {
					return e.w10aConfigMap(ctx, "shop-fpm-pool", fpm, map[string]string{"zz-pool.conf": pool(4)})
				},
				func() error {
					return e.w10aConfigMap(ctx, "backoffice-fpm-pool", back, map[string]string{"zz-pool.conf": pool(24)})
				},
				func() error {
					return e.w10aConfigMap(ctx, "shop-nginx-conf", web, map[string]string{"default.conf": nginx})
				},
				func() error {
					d := w11bApp("shop-fpm", "php-fpm", "registry.example/shop/storefront-php:2026.03.2-fpm", 2, fpm, running("w19a-shop-fpm-children"), "fastcgi", 9000)
					w8bEnv(&d.Spec.Template, "APP_ENV", "prod", "APP_DEBUG", "0", "PSP_BASE_URL", "https://api.psp.example.com/v3", "PSP_TIMEOUT", "30",
						"MESSENGER_TRANSPORT_DSN", "redis://shop-redis:6379/messages")
					w19aConfigFile(&d.Spec.Template, "shop-fpm-pool", "zz-pool.conf", "/usr/local/etc/php-fpm.d/zz-pool.conf")
					if err := e.createDeployment(ctx, d); err != nil {
						return err
					}
					return e.createService(ctx, w18aFixedService("shop-fpm", fpm, "fastcgi", 9000, "10.96.0.71"))
				},
				func() error {
					d := w11bApp("backoffice-fpm", "php-fpm", "registry.example/shop/backoffice-php:2026.03.2-fpm", 1, back, nil, "fastcgi", 9000)
					w8bEnv(&d.Spec.Template, "APP_ENV", "prod", "APP_DEBUG", "0")
					w19aConfigFile(&d.Spec.Template, "backoffice-fpm-pool", "zz-pool.conf", "/usr/local/etc/php-fpm.d/zz-pool.conf")
					return e.w11bServe(ctx, d, 9000)
				},
				func() error {
					d := w11bApp("shop-nginx", "nginx", "docker.io/library/nginx:1.27.2-alpine", 2, web, running("w19a-shop-nginx-fastcgi"), "http", 8080)
					w19aConfigFile(&d.Spec.Template, "shop-nginx-conf", "default.conf", "/etc/nginx/conf.d/default.conf")
					w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
					return e.w11bServe(ctx, d, 80)
				},
			)
		},
		Wait: all(readyReplicas("shop-nginx", 2), readyReplicas("shop-fpm", 2), readyReplicas("backoffice-fpm", 1)),
	}
}

// Kubernetes expands $(VAR) in an env value only from variables defined earlier in the list.
// The Secret refactor appended PG_PASSWORD after DATABASE_URL, so the release connects with the
// literal password "$(PG_PASSWORD)" and Postgres refuses it; ledger-worker, whose list declares
// PG_PASSWORD first, connects with the same Secret.
func w19aEnvOrderScenario() *Scenario {
	web := w8bLabels("ledger-web", "ledger")
	worker := w8bLabels("ledger-worker", "ledger")
	db := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "ledger-db")
	url := "ecto://ledger:$(PG_PASSWORD)@ledger-db:5432/ledger"
	return &Scenario{
		Name:   "ledger-web-boot-loop-after-secret-move",
		Covers: "ledger-web (Elixir/Phoenix release) crash-loops on 'Postgrex.Error FATAL 28P01 (invalid_password) password authentication failed for user \"ledger\"' and ledger-db logs the failed logins; its env sets DATABASE_URL=ecto://ledger:$(PG_PASSWORD)@... before PG_PASSWORD (secretKeyRef), so the reference is not expanded; ledger-worker lists PG_PASSWORD first and runs",
		Source: w19aSrcEnvOrder, Class: ClassMechanism, Hops: 0,
		Problem: "ledger-web crash-loops since we moved the database password from the ConfigMap into a Secret; the password in the Secret is right, I logged in with psql using it",
		Target:  target("Deployment", "ledger-web"),
		Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "ledger-web"}, Terms: []string{"PG_PASSWORD"}},
		Setup: func(ctx context.Context, e *Env) error {
			return steps(
				func() error {
					return e.createSecret(ctx, "ledger-db-credentials", map[string]string{"password": "Vq7mZt2LxP9eR4sK"})
				},
				func() error {
					return e.createSecret(ctx, "ledger-web-secrets", map[string]string{"secret-key-base": "kW3t9yXq0vB6nR2mZpL8sD4fH7jC1aE5gU0iO9wQ3eT6rY2uI8oP4aS7dF1gH5jK"})
				},
				func() error {
					return e.w19aPostgres(ctx, "ledger-db", "ledger", db, running("w19a-ledger-db-auth"), "ledger-db-credentials", "password")
				},
				func() error {
					msg := "Running migrations for Ledger.Repo\n[error] Postgrex.Protocol (#PID<0.160.0>) failed to connect: ** (Postgrex.Error) FATAL 28P01 (invalid_password) password authentication failed for user \"ledger\"\n" +
						"** (DBConnection.ConnectionError) connection not available and request was dropped from queue after 2977ms."
					d := w11bApp("ledger-web", "ledger-web", "registry.example/ledger/ledger-web:3.2.0", 2, web, crash("1", msg, "w19a-ledger-web-ecto"), "http", 4000)
					d.Spec.Template.Spec.Containers[0].Command = []string{"/bin/sh", "-c", "/app/bin/migrate && exec /app/bin/server"}
					w9cFallbackToLogs(&d.Spec.Template)
					w8bEnv(&d.Spec.Template, "PHX_HOST", "ledger.example.com", "PORT", "4000", "DATABASE_URL", url, "POOL_SIZE", "10", "ECTO_IPV6", "false")
					envKeyFromSecret(&d.Spec.Template, "PG_PASSWORD", "ledger-db-credentials", "password")
					envKeyFromSecret(&d.Spec.Template, "SECRET_KEY_BASE", "ledger-web-secrets", "secret-key-base")
					return e.w11bServe(ctx, d, 80)
				},
				func() error {
					d := w11bApp("ledger-worker", "ledger-worker", "registry.example/ledger/ledger-web:3.2.0", 1, worker, nil, "metrics", 9568)
					d.Spec.Template.Spec.Containers[0].Command = []string{"/app/bin/ledger", "start"}
					envKeyFromSecret(&d.Spec.Template, "PG_PASSWORD", "ledger-db-credentials", "password")
					w8bEnv(&d.Spec.Template, "LEDGER_ROLE", "worker", "DATABASE_URL", url, "POOL_SIZE", "5", "OBAN_QUEUES", "settlements:5,exports:2")
					envKeyFromSecret(&d.Spec.Template, "SECRET_KEY_BASE", "ledger-web-secrets", "secret-key-base")
					return e.createDeployment(ctx, d)
				},
			)
		},
		Wait: all(podsWith(web, crashLooping(2)), readyReplicas("ledger-worker", 1), w8cStatefulSetReady("ledger-db", 1)),
	}
}

// Redis refuses a connection beyond maxclients with "ERR max number of clients reached".
// Redisson opens connectionMinimumIdleSize (24) connections per client at start and fails the
// start when it cannot. pricing-worker's two pods hold 48, exactly the maxclients someone set
// in the cache's redis.conf, so every quote-api pod dies at boot whatever its image.
func w19aMaxClientsScenario() *Scenario {
	cache := w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "rate-cache-redis")
	quote := w8bLabels("quote-api", "pricing")
	worker := w8bLabels("pricing-worker", "pricing")
	conf := "# rate cache: small instance, keep it bounded\nbind 0.0.0.0\nport 6379\nprotected-mode no\nmaxclients 48\nmaxmemory 512mb\nmaxmemory-policy allkeys-lru\n" +
		"timeout 0\ntcp-keepalive 60\nsave \"\"\nappendonly no\n"
	return &Scenario{
		Name:   "quote-api-dies-at-boot-after-rollout",
		Covers: "quote-api (Kotlin, Ktor, Redisson) crash-loops: 'Unable to init enough connections amount! Only 0 of 24 were initialized' caused by 'RedisException: ERR max number of clients reached' from rate-cache-redis (10.96.0.167); ConfigMap rate-cache-redis-config sets maxclients 48 and pricing-worker's two pods already hold 24 connections each",
		Source: w19aSrcMaxClients, Class: ClassProvider, Hops: 2,
		Problem: "quote-api 7.0 dies right after start on every pod; we rolled back the image and it still dies, while pricing-worker on the same Redis is happy",
		Target:  target("Deployment", "quote-api"),
		Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "rate-cache-redis-config"}, Terms: []string{"maxclients"}},
		Setup: func(ctx context.Context, e *Env) error {
			return steps(
				func() error {
					return e.w10aConfigMap(ctx, "rate-cache-redis-config", cache, map[string]string{"redis.conf": conf})
				},
				func() error {
					st := w8bStatefulSet("rate-cache-redis", "docker.io/library/redis:7.4.1", "rate-cache-redis", 1, cache, nil, "redis", 6379)
					st.Spec.Template.Spec.Containers[0].Name = "redis"
					st.Spec.Template.Spec.Containers[0].Args = []string{"redis-server", "/etc/redis/redis.conf"}
					mountConfigMap(&st.Spec.Template, "rate-cache-redis-config", "/etc/redis")
					if err := e.createStatefulSet(ctx, st); err != nil {
						return err
					}
					return e.createService(ctx, w18aFixedService("rate-cache-redis", cache, "redis", 6379, "10.96.0.167"))
				},
				func() error {
					d := w11bApp("pricing-worker", "worker", "registry.example/pricing/pricing-worker:5.8.0", 2, worker, nil, "metrics", 8081)
					w8bEnv(&d.Spec.Template, "REDIS_URL", "redis://rate-cache-redis:6379", "REDISSON_MIN_IDLE", "24", "REDISSON_POOL_SIZE", "64", "JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=75")
					return e.createDeployment(ctx, d)
				},
				func() error {
					msg := "org.redisson.client.RedisConnectionException: Unable to init enough connections amount! Only 0 of 24 were initialized. Redis server: rate-cache-redis/10.96.0.167:6379\n" +
						"Caused by: org.redisson.client.RedisException: ERR max number of clients reached. channel: [id: 0x6a1f2c3e, L:/10.244.2.41:51184 - R:rate-cache-redis/10.96.0.167:6379] data: CommandData [command=(PING)]"
					d := w11bApp("quote-api", "quote-api", "registry.example/pricing/quote-api:7.0.1", 2, quote, crash("1", msg, "w19a-quote-api-redisson"), "http", 8080)
					w8bEnv(&d.Spec.Template, "REDIS_URL", "redis://rate-cache-redis:6379", "REDISSON_MIN_IDLE", "24", "REDISSON_POOL_SIZE", "64", "KTOR_ENV", "prod")
					return e.w11bServe(ctx, d, 80)
				},
			)
		},
		Wait: all(podsWith(quote, crashLooping(2)), readyReplicas("pricing-worker", 2), w8cStatefulSetReady("rate-cache-redis", 1)),
	}
}
