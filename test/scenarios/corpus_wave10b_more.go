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

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Wave 10b, configuration: service accounts, pod DNS, security context, ConfigMap volumes and
// the Services of a StatefulSet.

func wave10bMoreScenarios() []*Scenario {
	return []*Scenario{
		{
			// The pull Secret was added to the namespace's default ServiceAccount, whose
			// imagePullSecrets the admission plugin copies into every pod using it; the worker
			// moved to its own ServiceAccount (for its Role) which lists none.
			Name: "reports-worker-sa-without-pull-secret", Covers: "the reports-worker 2.4.0 rollout is stuck: its new pod is in ImagePullBackOff '401 Unauthorized' on registry.private.example; the release switched serviceAccountName to reports-runner, which has no imagePullSecrets, while harbor-pull is only on the default ServiceAccount (reports-web, on default, pulls the same registry fine)",
			Source: w10bSrcTokenProjection + " (Add ImagePullSecrets to a ServiceAccount)", Class: ClassReference, Hops: 2,
			Problem: "the reports-worker 2.4.0 rollout is stuck; the new pod cannot pull its image although the registry credentials did not change",
			Target:  target("Deployment", "reports-worker"),
			Want:    Want{Culprit: Ref{Kind: "ServiceAccount", Name: "reports-runner"}, Terms: []string{"imagePullSecrets"}},
			Setup: func(ctx context.Context, e *Env) error {
				web := w8cLabels("app.kubernetes.io/name", "reports-web", "app.kubernetes.io/part-of", "reports")
				worker := w8cLabels("app.kubernetes.io/name", "reports-worker", "app.kubernetes.io/part-of", "reports")
				return steps(
					func() error {
						_, err := e.Client.CoreV1().Secrets(e.Namespace).Create(ctx, &corev1.Secret{
							ObjectMeta: metav1.ObjectMeta{Name: "harbor-pull"}, Type: corev1.SecretTypeDockerConfigJson,
							StringData: map[string]string{corev1.DockerConfigJsonKey: `{"auths":{"registry.private.example":{"auth":"cm9ib3QkYW5hbHl0aWNzK3B1bGw6cGxhY2Vob2xkZXI="}}}`},
						}, metav1.CreateOptions{})
						return wrap("Secret", "harbor-pull", err)
					},
					func() error {
						pull := []corev1.LocalObjectReference{{Name: "harbor-pull"}}
						sas := e.Client.CoreV1().ServiceAccounts(e.Namespace)
						sa, err := sas.Get(ctx, "default", metav1.GetOptions{})
						if apierrors.IsNotFound(err) {
							_, err = sas.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}, ImagePullSecrets: pull}, metav1.CreateOptions{})
							return err
						}
						if err != nil {
							return err
						}
						sa.ImagePullSecrets = pull
						_, err = sas.Update(ctx, sa, metav1.UpdateOptions{})
						return err
					},
					func() error { return e.createServiceAccount(ctx, "reports-runner") },
					func() error {
						return e.createRole(ctx, "reports-runner", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}},
							rbacv1.PolicyRule{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "create", "update"}})
					},
					func() error {
						return e.createRoleBinding(ctx, "reports-runner", "Role", "reports-runner", "reports-runner")
					},
					func() error {
						d := w8bDeployment("reports-web", "registry.private.example/analytics/reports-web:2.4.0", 2, web, nil, "http", 8080)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("reports-web", web, "http", 80)) },
					func() error {
						d := w8bDeployment("reports-worker", "registry.private.example/analytics/reports-worker:2.3.0", 1, worker, nil, "", 0)
						w8bEnv(&d.Spec.Template, "CELERY_BROKER_URL", "redis://reports-redis:6379/0", "LEADER_ELECTION", "true")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["rolled"] == "" {
					if err := readyReplicas("reports-worker", 1)(ctx, e); err != nil {
						return err
					}
					d, err := e.Client.AppsV1().Deployments(e.Namespace).Get(ctx, "reports-worker", metav1.GetOptions{})
					if err != nil {
						return err
					}
					d.Spec.Template.Spec.ServiceAccountName = "reports-runner"
					d.Spec.Template.Spec.Containers[0].Image = "registry.private.example/analytics/reports-worker:2.4.0"
					if _, err := e.Client.AppsV1().Deployments(e.Namespace).Update(ctx, d, metav1.UpdateOptions{}); err != nil {
						return err
					}
					e.State["rolled"] = "yes"
				}
				return podsWith(w8cLabels("app.kubernetes.io/name", "reports-worker"), waiting("ImagePullBackOff", "ErrImagePull"))(ctx, e)
			},
		},
		{
			// dnsPolicy None takes the pod's resolv.conf from dnsConfig alone: the team listed
			// the cluster DNS server and their corporate search domain for an LDAP lookup, but
			// not <ns>.svc.cluster.local, so the short name orders-db no longer resolves.
			Name: "orders-api-dnspolicy-none-no-search", Covers: "orders-api has no ready endpoints: Spring Boot fails at startup with 'Caused by: java.net.UnknownHostException: orders-db' although the Service orders-db exists and its postgres is Ready; the pod sets dnsPolicy None with searches [corp.example.com] only (orders-worker, on the default policy, reaches the same database)",
			Source: w10bSrcPodDNS, Class: ClassClue, Hops: 2,
			Problem: "orders-api has had no ready endpoints since this morning's change for the LDAP integration",
			Target:  target("Service", "orders-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "orders-api"}, Terms: []string{"dnsPolicy", "orders-db"}},
			Setup: func(ctx context.Context, e *Env) error {
				db := w8cLabels("app", "orders-db", "component", "postgres")
				api := w8cLabels("app", "orders-api", "component", "api")
				worker := w8cLabels("app", "orders-worker", "component", "worker")
				dbEnv := func(t *corev1.PodTemplateSpec) {
					w8bEnv(t, "SPRING_PROFILES_ACTIVE", "kubernetes", "SPRING_DATASOURCE_URL", "jdbc:postgresql://orders-db:5432/orders", "SPRING_DATASOURCE_USERNAME", "orders")
					envKeyFromSecret(t, "SPRING_DATASOURCE_PASSWORD", "orders-db-credentials", "password")
				}
				return steps(
					func() error {
						return e.createSecret(ctx, "orders-db-credentials", map[string]string{"password": "q8Xv-31Lm-Tz0w"})
					},
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("orders-db", "postgres:16.4", "orders-db", 1, db, nil, "postgres", 5432))
					},
					func() error { return e.createService(ctx, w8bService("orders-db", db, "postgres", 5432)) },
					func() error {
						d := w8bDeployment("orders-worker", "registry.example/orders/orders-worker:4.9.0", 1, worker, nil, "", 0)
						dbEnv(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("orders-api", "registry.example/orders/orders-api:4.9.0", 2, api, crash("1", "", "w10b-orders-spring-dns-none"), "http", 8080)
						dbEnv(&d.Spec.Template)
						w8bEnv(&d.Spec.Template, "SPRING_LDAP_URLS", "ldaps://ldap.corp.example.com:636")
						d.Spec.Template.Spec.DNSPolicy = corev1.DNSNone
						d.Spec.Template.Spec.DNSConfig = &corev1.PodDNSConfig{
							Nameservers: []string{"10.96.0.10"}, Searches: []string{"corp.example.com"},
							Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: ptr.To("2")}, {Name: "timeout", Value: ptr.To("2")}},
						}
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("orders-api", api, "http", 80)) },
				)
			},
			Wait: all(w8cStatefulSetReady("orders-db", 1), readyReplicas("orders-worker", 1), podsWith(w8cLabels("app", "orders-api"), crashLooping(2))),
		},
		{
			// The hardening added runAsNonRoot to the redis pod without a runAsUser; the
			// official redis image starts as root (its entrypoint drops to uid 999 itself), so
			// the kubelet refuses to start it and sessions-api finds nothing behind its Service.
			Name: "session-redis-runasnonroot-root-image", Covers: "sessions-api crash-loops on 'session store unavailable ... dial tcp 10.96.41.7:6379: connect: connection refused'; the session-redis pod never starts: CreateContainerConfigError 'container has runAsNonRoot and image will run as root' since its Deployment got runAsNonRoot without a runAsUser",
			Source: w10bSrcPSARoot, Class: ClassRanking, Hops: 3,
			Problem: "logins fail: sessions-api keeps restarting since yesterday's platform hardening changes",
			Target:  target("Deployment", "sessions-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "session-redis"}, Terms: []string{"runAsNonRoot"}},
			Setup: func(ctx context.Context, e *Env) error {
				redis := w8cLabels("app", "session-redis", "role", "cache", "owner", "identity")
				api := w8cLabels("app", "sessions-api", "role", "api", "owner", "identity")
				login := w8cLabels("app", "login-ui", "role", "web", "owner", "identity")
				return steps(
					func() error {
						d := w8bDeployment("session-redis", "redis:7.4.1", 1, redis,
							sim("create-config-error", annMessage, `container has runAsNonRoot and image will run as root (container: redis)`), "redis", 6379)
						d.Spec.Template.Spec.Containers[0].Name = "redis"
						w8cArgs(&d.Spec.Template, "redis-server", "--save", "", "--appendonly", "no", "--maxmemory", "256mb", "--maxmemory-policy", "allkeys-lru")
						w10bRestricted(&d.Spec.Template, 0)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("session-redis", redis, "redis", 6379)) },
					func() error {
						d := w8bDeployment("sessions-api", "registry.example/identity/sessions-api:3.2.0", 2, api, crash("1", "", "w10b-sessions-api-redis-refused"), "http", 8080)
						w8bEnv(&d.Spec.Template, "SESSION_STORE", "redis", "REDIS_ADDR", "session-redis:6379", "SESSION_TTL", "24h")
						w10bRestricted(&d.Spec.Template, 65532)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("sessions-api", api, "http", 80)) },
					func() error {
						d := w8bDeployment("login-ui", "registry.example/identity/login-ui:8.0.2", 2, login, nil, "http", 8080)
						w10bRestricted(&d.Spec.Template, 101)
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("login-ui", 2), podsWith(w8cLabels("app", "session-redis"), waiting("CreateContainerConfigError")),
				podsWith(w8cLabels("app", "sessions-api"), crashLooping(2))),
		},
		{
			// A ConfigMap volume with items projects only the keys it lists, and the kubelet
			// refuses the mount when a listed key is missing; 4.0's values renamed the key it
			// expects, the ConfigMap (owned by the platform repo) still has application.yaml.
			Name: "catalog-api-configmap-items-missing-key", Covers: "the catalog-api 4.0 rollout hangs with its new pod in ContainerCreating: FailedMount 'MountVolume.SetUp failed for volume \"config\" : configmap references non-existent config key: application-production.yaml'; the ConfigMap catalog-api-config has application.yaml and logback-spring.xml",
			Source: w10bSrcConfigMapItems, Class: ClassReference, Hops: 2,
			Problem: "the catalog-api 4.0 rollout hangs: the new pod never leaves ContainerCreating",
			Target:  target("Deployment", "catalog-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "catalog-api"}, Also: []Ref{{Kind: "ConfigMap", Name: "catalog-api-config"}}, Terms: []string{"application-production.yaml"}},
			Setup: func(ctx context.Context, e *Env) error {
				api := w8cLabels("app.kubernetes.io/name", "catalog-api", "app.kubernetes.io/part-of", "catalog")
				return steps(
					func() error {
						return e.createConfigMap(ctx, "catalog-api-config", map[string]string{
							"application.yaml":   "spring:\n  datasource:\n    url: jdbc:postgresql://catalog-db:5432/catalog\n  jpa:\n    open-in-view: false\nmanagement:\n  endpoints:\n    web:\n      exposure:\n        include: health,prometheus\n",
							"logback-spring.xml": "<configuration>\n  <include resource=\"org/springframework/boot/logging/logback/base.xml\"/>\n  <root level=\"INFO\"/>\n</configuration>\n",
						})
					},
					func() error {
						d := w8bDeployment("catalog-api", "registry.example/catalog/catalog-api:3.9.2", 2, api, nil, "http", 8080)
						d.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
							LocalObjectReference: corev1.LocalObjectReference{Name: "catalog-api-config"}}}}}
						d.Spec.Template.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/config", ReadOnly: true}}
						w8bEnv(&d.Spec.Template, "SPRING_CONFIG_ADDITIONAL_LOCATION", "file:/config/")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("catalog-api", api, "http", 80)) },
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["rolled"] == "" {
					if err := readyReplicas("catalog-api", 2)(ctx, e); err != nil {
						return err
					}
					d, err := e.Client.AppsV1().Deployments(e.Namespace).Get(ctx, "catalog-api", metav1.GetOptions{})
					if err != nil {
						return err
					}
					t := &d.Spec.Template
					t.Spec.Containers[0].Image = "registry.example/catalog/catalog-api:4.0.0"
					t.Spec.Volumes[0].ConfigMap.Items = []corev1.KeyToPath{{Key: "application-production.yaml", Path: "application.yaml"}, {Key: "logback-spring.xml", Path: "logback-spring.xml"}}
					t.Annotations = sim("mount-fail", annMessage, `MountVolume.SetUp failed for volume "config" : configmap references non-existent config key: application-production.yaml`)
					if _, err := e.Client.AppsV1().Deployments(e.Namespace).Update(ctx, d, metav1.UpdateOptions{}); err != nil {
						return err
					}
					e.State["rolled"] = "yes"
				}
				return podEvent("FailedMount", "non-existent config key")(ctx, e)
			},
		},
		{
			// A StatefulSet's pods get DNS names <pod>.<serviceName> only when that governing
			// Service is headless. zk-hs was rewritten without clusterIP: None, so no member can
			// resolve its peers, the ensemble never elects a leader and kafka cannot connect.
			Name: "kafka-zk-governing-service-not-headless", Covers: "the kafka brokers crash-loop on 'ZooKeeperClientTimeoutException: Timed out waiting for connection while in state: CONNECTING' to zk-cs:2181; the zookeeper pods run but are never Ready and log 'Cannot open channel to 1 at election address zk-0.zk-hs:3888 java.net.UnknownHostException: zk-0.zk-hs': their governing Service zk-hs has a cluster IP instead of clusterIP None",
			Source: w10bSrcStatefulSet, Class: ClassProvider, Hops: 3,
			Problem: "the kafka brokers crash-loop since the zookeeper chart was replaced by our own manifests",
			Target:  target("StatefulSet", "kafka"),
			Want:    Want{Culprit: Ref{Kind: "Service", Name: "zk-hs"}, Terms: []string{"zk-hs", "headless"}},
			Setup: func(ctx context.Context, e *Env) error {
				zk := w8cLabels("app.kubernetes.io/name", "zookeeper", "app.kubernetes.io/component", "ensemble", "app.kubernetes.io/part-of", "streaming")
				kafka := w8cLabels("app.kubernetes.io/name", "kafka", "app.kubernetes.io/component", "broker", "app.kubernetes.io/part-of", "streaming")
				return steps(
					func() error {
						return e.createConfigMap(ctx, "zk-config", map[string]string{"zoo.cfg": "tickTime=2000\ninitLimit=10\nsyncLimit=5\ndataDir=/data\nclientPort=2181\n" +
							"4lw.commands.whitelist=srvr,ruok,mntr\nquorumListenOnAllIPs=true\n" +
							"server.1=zk-0.zk-hs:2888:3888\nserver.2=zk-1.zk-hs:2888:3888\nserver.3=zk-2.zk-hs:2888:3888\n"})
					},
					func() error {
						s := w8bService("zk-hs", zk, "server", 2888)
						s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: "leader-election", Port: 3888, TargetPort: intstr.FromString("leader-election")})
						return e.createService(ctx, s)
					},
					func() error { return e.createService(ctx, w8bService("zk-cs", zk, "client", 2181)) },
					func() error {
						st := w8bStatefulSet("zk", "zookeeper:3.9.3", "zk-hs", 3, zk,
							sim("readiness-fail", annMessage, "Readiness probe failed: This ZooKeeper instance is not currently serving requests", annLogs, "w10b-zookeeper-election-unknown-host"), "client", 2181)
						st.Spec.Template.Spec.Containers[0].Ports = append(st.Spec.Template.Spec.Containers[0].Ports,
							corev1.ContainerPort{Name: "server", ContainerPort: 2888}, corev1.ContainerPort{Name: "leader-election", ContainerPort: 3888})
						st.Spec.Template.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 10, ProbeHandler: corev1.ProbeHandler{
							Exec: &corev1.ExecAction{Command: []string{"sh", "-c", "echo ruok | nc 127.0.0.1 2181 | grep imok"}}}}
						mountConfigMap(&st.Spec.Template, "zk-config", "/conf")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("kafka-headless", kafka, "broker", 9092)) },
					func() error {
						st := w8bStatefulSet("kafka", "bitnami/kafka:3.7.1", "kafka-headless", 3, kafka, crash("1", "", "w10b-kafka-zk-timeout"), "broker", 9092)
						w10bFieldEnv(&st.Spec.Template, "MY_POD_NAME", "metadata.name")
						w8bEnv(&st.Spec.Template, "KAFKA_CFG_ZOOKEEPER_CONNECT", "zk-cs:2181/kafka", "KAFKA_CFG_LISTENERS", "PLAINTEXT://:9092",
							"KAFKA_CFG_ADVERTISED_LISTENERS", "PLAINTEXT://$(MY_POD_NAME).kafka-headless:9092")
						return e.createStatefulSet(ctx, st)
					},
				)
			},
			Wait: all(podsWith(w8cLabels("app.kubernetes.io/name", "zookeeper"), runningNotReady), podsWith(w8cLabels("app.kubernetes.io/name", "kafka"), crashLooping(2))),
		},
	}
}
