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
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Wave 7a: scenarios written by an outside writer from pages and runbooks the corpus used
// little (topology spread, EndpointSlices, DNS policy, service-account token automounting,
// access modes, ephemeral volumes, IngressClass, TTL of finished Jobs, LimitRange ratios,
// disruption budgets, DaemonSet tolerations), as a team would lay them out: their own label
// conventions, healthy neighbours, the symptom on another object than the cause, and a third
// of them with the only clue in a container log.

const (
	srcW7Spread        = "k8s-docs/concepts/scheduling-eviction/topology-spread-constraints.md"
	srcW7EndpointSlice = "k8s-docs/concepts/services-networking/endpoint-slices.md"
	srcW7DNSPodService = "k8s-docs/concepts/services-networking/dns-pod-service.md"
	srcW7DNSCustom     = "k8s-docs/tasks/administer-cluster/dns-custom-nameservers.md"
	srcW7ServiceAcct   = "k8s-docs/tasks/configure-pod-container/configure-service-account.md"
	srcW7PV            = "k8s-docs/concepts/storage/persistent-volumes.md"
	srcW7Taints        = "k8s-docs/concepts/scheduling-eviction/taint-and-toleration.md"
	srcW7JobFailed     = "runbooks/kubernetes/KubeJobFailed.md"
	srcW7Logging       = "k8s-docs/concepts/cluster-administration/logging.md"
	srcW7RunningPod    = "k8s-docs/tasks/debug/debug-application/debug-running-pod.md"
)

// createScopedClusterRole creates the cluster-scoped ClusterRole ClusterName(name), removed by Cleanup.
func (e *Env) createScopedClusterRole(ctx context.Context, name string, rules ...rbacv1.PolicyRule) error {
	cr := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: e.ClusterName(name), Labels: map[string]string{LabelScenario: e.Namespace}}, Rules: rules}
	if _, err := e.Client.RbacV1().ClusterRoles().Create(ctx, cr, metav1.CreateOptions{}); err != nil {
		return wrap("ClusterRole", cr.Name, err)
	}
	e.onCleanup(func(ctx context.Context) error {
		return ignoreNotFound(e.Client.RbacV1().ClusterRoles().Delete(ctx, cr.Name, metav1.DeleteOptions{}))
	})
	return nil
}

// createStaticPV creates a hostPath PersistentVolume ClusterName(name) bound in advance to
// claim (claimRef), the way an administrator pre-provisions one, removed by Cleanup.
func (e *Env) createStaticPV(ctx context.Context, name, claim, size string, mode corev1.PersistentVolumeAccessMode) error {
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: e.ClusterName(name), Labels: map[string]string{LabelScenario: e.Namespace}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{mode},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			StorageClassName:              "manual",
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/srv/" + name}},
			ClaimRef:                      &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: e.Namespace, Name: claim},
		},
	}
	if _, err := e.Client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
		return wrap("PersistentVolume", pv.Name, err)
	}
	e.onCleanup(func(ctx context.Context) error {
		return ignoreNotFound(e.Client.CoreV1().PersistentVolumes().Delete(ctx, pv.Name, metav1.DeleteOptions{}))
	})
	return nil
}

// labelScenarioNode adds labels to a node of the scenario (a merge patch: the node's kubelet
// and the node controller write the same object).
func (e *Env) labelScenarioNode(ctx context.Context, node string, kv map[string]string) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": kv}})
	if err != nil {
		return err
	}
	_, err = e.Client.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

func wave7aScenarios() []*Scenario {
	return append(wave7aFirstScenarios(), wave7aMoreScenarios()...)
}

func wave7aFirstScenarios() []*Scenario {
	quotes := map[string]string{"app.kubernetes.io/name": "quotes-web", "app.kubernetes.io/part-of": "quotes"}
	return []*Scenario{
		{
			// topology-spread-constraints: a node without the topologyKey label is not a
			// candidate; the key is misspelt (zones), so no node qualifies.
			Name: "quotes-spread-topologykey-typo", Covers: "the quotes Ingress answers 503: the Service has no endpoints because every quotes-web pod is Pending; its topologySpreadConstraint uses topology.kubernetes.io/zones, a label no node has",
			Source: srcW7Spread, Class: ClassProvider, Hops: 2,
			Problem: "quotes.example.com is returning 503 since the HA rollout", Target: target("Ingress", "quotes"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "quotes-web"}, Terms: []string{"topology.kubernetes.io/zones"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := labelledDeployment("quotes-web", "registry.example/quotes/web:3.4.0", quotes, nil)
						d.Spec.Replicas = ptr.To[int32](3)
						d.Spec.Template.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
							MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zones", WhenUnsatisfiable: corev1.DoNotSchedule,
							LabelSelector: &metav1.LabelSelector{MatchLabels: quotes},
						}}
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, service("quotes-web", quotes, intstr.FromString("http"))) },
					func() error { return e.createIngress(ctx, ingress("quotes", "quotes-web", 80)) },
					// Healthy neighbour.
					func() error {
						return e.createDeployment(ctx, labelledDeployment("quotes-pricing", "registry.example/quotes/pricing:1.9.2",
							map[string]string{"app.kubernetes.io/name": "quotes-pricing", "app.kubernetes.io/part-of": "quotes"}, nil))
					},
				)
			},
			Wait: podsWith(quotes, unschedulable("topology spread")),
		},
		{
			// endpoint-slices: a selectorless Service gets its endpoints from slices labelled
			// kubernetes.io/service-name; the hand-made slice carries the wrong Service name.
			Name: "legacy-erp-endpointslice-label", Covers: "invoice-sync crash-loops on connection refused to the legacy-erp Service: it has no selector, and the EndpointSlice made for it is labelled kubernetes.io/service-name=legacy-erp-db",
			Source: srcW7EndpointSlice, Class: ClassProvider, Hops: 2,
			Problem: "invoices are not syncing to the ERP anymore", Target: target("Deployment", "invoice-sync"),
			Want: Want{Culprit: Ref{Kind: "EndpointSlice", Name: "legacy-erp-1"}, Terms: []string{"kubernetes.io/service-name"}},
			Setup: func(ctx context.Context, e *Env) error {
				external := func(svc, slice, label, ip string) error {
					s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: svc}, Spec: corev1.ServiceSpec{
						Ports: []corev1.ServicePort{{Name: "postgres", Port: 5432, TargetPort: intstr.FromInt(5432)}}}}
					if err := e.createService(ctx, s); err != nil {
						return err
					}
					_, err := e.Client.DiscoveryV1().EndpointSlices(e.Namespace).Create(ctx, &discoveryv1.EndpointSlice{
						ObjectMeta: metav1.ObjectMeta{Name: slice, Labels: map[string]string{
							discoveryv1.LabelServiceName: label, discoveryv1.LabelManagedBy: "platform-team"}},
						AddressType: discoveryv1.AddressTypeIPv4,
						Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
						Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("postgres"), Port: ptr.To[int32](5432), Protocol: ptr.To(corev1.ProtocolTCP)}},
					}, metav1.CreateOptions{})
					return wrap("EndpointSlice", slice, err)
				}
				return steps(
					func() error { return external("legacy-erp", "legacy-erp-1", "legacy-erp-db", "192.0.2.44") },
					// Noise: another external database wired correctly.
					func() error { return external("tax-engine", "tax-engine-1", "tax-engine", "192.0.2.61") },
					func() error {
						return e.createDeployment(ctx, env(deployment("tax-sync", "registry.example/finance/tax-sync:2.0.1", 1, nil), "TAX_DB_HOST", "tax-engine"))
					},
					func() error {
						msg := "erp sync: ping failed: " + refused(e.clusterIP(ctx, "legacy-erp"), 5432)
						d := deployment("invoice-sync", "registry.example/finance/invoice-sync:5.2.0", 1, crash("1", msg, ""))
						return e.createDeployment(ctx, env(d, "ERP_DB_HOST", "legacy-erp", "ERP_DB_PORT", "5432", "ERP_DB_NAME", "erp"))
					},
				)
			},
			Wait: anyPod("invoice-sync", crashLooping(1)),
		},
		{
			// dns-pod-service: dnsPolicy Default inherits the node's resolver, which does not
			// know cluster names; the log quotes the node's nameserver.
			Name: "fraud-scorer-dnspolicy-default", Covers: "fraud-scorer crash-loops; only its log says 'lookup risk-rules on 192.168.10.2:53: no such host' while the risk-rules Service exists: the pods use dnsPolicy Default",
			Source: srcW7DNSPodService, Class: ClassClue, Hops: 1,
			Problem: "fraud-scorer keeps crashing after last week's manifest cleanup", Target: target("Deployment", "fraud-scorer"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "fraud-scorer"}, Terms: []string{"dnsPolicy"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createBackend(ctx, "risk-rules", "registry.example/risk/rules:1.12.0", 8080, 8080)
					},
					func() error {
						d := deployment("fraud-scorer", "registry.example/risk/fraud-scorer:3.7.1", 1, crash("1", "", "fraud-scorer-node-resolver"))
						d.Spec.Template.Spec.DNSPolicy = corev1.DNSDefault
						return e.createDeployment(ctx, env(d, "RULES_URL", "http://risk-rules:8080/v1/rules", "MODEL_PATH", "/models/gbm-2026-01.bin"))
					},
				)
			},
			Wait: anyPod("fraud-scorer", crashLooping(1)),
		},
		{
			// configure-service-account: opting a ServiceAccount out of token automounting
			// leaves every pod that uses it without /var/run/secrets/kubernetes.io/serviceaccount.
			Name: "platform-agent-sa-automount-off", Covers: "platform-agent crash-loops; only its log says 'open /var/run/secrets/kubernetes.io/serviceaccount/token: no such file'; its ServiceAccount sets automountServiceAccountToken false",
			Source: srcW7ServiceAcct, Class: ClassClue, Hops: 2,
			Problem: "platform-agent pods are restarting over and over", Target: target("Deployment", "platform-agent"),
			Want: Want{Culprit: Ref{Kind: "ServiceAccount", Name: "platform-agent"}, Terms: []string{"automount"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						_, err := e.Client.CoreV1().ServiceAccounts(e.Namespace).Create(ctx, &corev1.ServiceAccount{
							ObjectMeta:                   metav1.ObjectMeta{Name: "platform-agent", Labels: map[string]string{"app.kubernetes.io/name": "platform-agent"}},
							AutomountServiceAccountToken: ptr.To(false),
						}, metav1.CreateOptions{})
						return wrap("ServiceAccount", "platform-agent", err)
					},
					func() error {
						return e.createRole(ctx, "platform-agent", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps", "pods"}, Verbs: []string{"get", "list", "watch"}},
							rbacv1.PolicyRule{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "create", "update"}})
					},
					func() error {
						return e.createRoleBinding(ctx, "platform-agent", "Role", "platform-agent", "platform-agent")
					},
					func() error {
						d := deployment("platform-agent", "registry.example/platform/agent:v0.19.2", 1, crash("1", "", "platform-agent-token-missing"))
						d.Spec.Template.Spec.ServiceAccountName = "platform-agent"
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("platform-agent", crashLooping(1)),
		},
		{
			// persistent-volumes (access modes): ReadWriteOncePod lets one pod in the whole
			// cluster use the volume; the second replica is unschedulable.
			Name: "media-library-rwop-second-replica", Covers: "media-api runs one of its two replicas: the claim both mount is ReadWriteOncePod, so the scheduler keeps the second pod Pending",
			Source: srcW7PV, Class: ClassSingle, Hops: 1,
			Problem: "media-api is running with a single replica and the second never starts", Target: target("Deployment", "media-api"),
			Want: Want{Culprit: Ref{Kind: "PersistentVolumeClaim", Name: "media-library"}, Terms: []string{"ReadWriteOncePod"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createStaticPV(ctx, "media-library", "media-library", "50Gi", corev1.ReadWriteOncePod)
					},
					func() error {
						c := pvc("media-library", "manual", "50Gi", corev1.ReadWriteOncePod)
						c.Spec.VolumeName = e.ClusterName("media-library")
						return e.createPVC(ctx, c)
					},
					func() error {
						d := deployment("media-api", "registry.example/media/api:6.0.3", 2, nil)
						claimVolume(&d.Spec.Template, "media-library")
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createDeployment(ctx, deployment("media-transcoder", "registry.example/media/transcoder:2.2.0", 1, nil))
					},
				)
			},
			Wait: all(anyPod("media-api", runningReady), anyPod("media-api", unschedulable("ReadWriteOncePod"))),
		},
		{
			// taint-and-toleration: a DaemonSet gets no pod on a node whose taint it does not
			// tolerate, and its status still looks complete.
			Name: "log-shipper-gpu-taint-untolerated", Covers: "a log-shipper DaemonSet reports every desired pod ready, but the GPU node of its pool has none: the node's nvidia.com/gpu taint is not tolerated",
			Source: srcW7Taints, Class: ClassOutside, Hops: 1,
			Problem: "we get no logs at all from the GPU nodes since they joined the cluster", Target: target("DaemonSet", "log-shipper"),
			Want: Want{Culprit: Ref{Kind: "DaemonSet", Name: "log-shipper"}, Terms: []string{"nvidia.com/gpu"}},
			Setup: func(ctx context.Context, e *Env) error {
				gpuTaint := corev1.Taint{Key: "nvidia.com/gpu", Value: "present", Effect: corev1.TaintEffectNoSchedule}
				return steps(
					func() error { _, err := e.createNode(ctx, nodeSpec{name: "cpu-a", kwok: true}); return err },
					func() error {
						name, err := e.createNode(ctx, nodeSpec{name: "gpu-a", kwok: true, taints: []corev1.Taint{gpuTaint}})
						if err != nil {
							return err
						}
						e.State["gpu-node"] = name
						return e.labelScenarioNode(ctx, name, map[string]string{"nvidia.com/gpu.present": "true"})
					},
					func() error {
						return e.createDaemonSet(ctx, "log-shipper", "fluent/fluent-bit:3.0.4", nil, func(t *corev1.PodTemplateSpec) { e.pin(t) })
					},
					func() error {
						d := deployment("inference", "registry.example/ml/inference:2026.02", 1, nil)
						e.pin(&d.Spec.Template)
						d.Spec.Template.Spec.NodeSelector["nvidia.com/gpu.present"] = "true"
						d.Spec.Template.Spec.Tolerations = append(d.Spec.Template.Spec.Tolerations,
							corev1.Toleration{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(anyPod("inference", runningReady), func(ctx context.Context, e *Env) error {
				ds, err := e.Client.AppsV1().DaemonSets(e.Namespace).Get(ctx, "log-shipper", metav1.GetOptions{})
				if err != nil {
					return err
				}
				if ds.Status.DesiredNumberScheduled != 1 || ds.Status.NumberReady != 1 {
					return fmt.Errorf("log-shipper: %d desired, %d ready", ds.Status.DesiredNumberScheduled, ds.Status.NumberReady)
				}
				return nil
			}),
		},
		{
			// KubeJobFailed: the month-end Job fails; the bucket it writes to is misspelt in its
			// ConfigMap, the neighbouring export's ConfigMap has the right one.
			Name: "ledger-close-bucket-typo", Covers: "a month-end Job fails with exit 1 and no termination message; its Python traceback ends in NoSuchBucket for acme-ledger-exprots-prod, the EXPORT_BUCKET of its ConfigMap",
			Source: srcW7JobFailed, Class: ClassClue, Hops: 2,
			Problem: "the month-end ledger close job failed", Target: target("Job", "ledger-close"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "ledger-close-config"}, Terms: []string{"acme-ledger-exprots-prod"}},
			Setup: func(ctx context.Context, e *Env) error {
				mk := func(name, cm string, a map[string]string) error {
					j := job(name, 1, a)
					j.Spec.Template.Labels = map[string]string{"app": name, "team": "finance-platform"}
					envFromConfigMap(&j.Spec.Template, cm)
					_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
					return wrap("Job", name, err)
				}
				return steps(
					func() error {
						return e.createConfigMap(ctx, "ledger-close-config", map[string]string{"EXPORT_BUCKET": "acme-ledger-exprots-prod", "EXPORT_PREFIX": "closes/", "AWS_REGION": "eu-west-1"})
					},
					func() error {
						return e.createConfigMap(ctx, "statements-config", map[string]string{"EXPORT_BUCKET": "acme-ledger-exports-prod", "EXPORT_PREFIX": "statements/", "AWS_REGION": "eu-west-1"})
					},
					func() error { return mk("statements-export", "statements-config", nil) },
					func() error {
						return mk("ledger-close", "ledger-close-config", sim("fail", annExitCode, "1", annLogs, "ledger-close-nosuchbucket"))
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				return jobFailed(ctx, e, "ledger-close", "BackoffLimitExceeded")
			},
		},
		{
			// logging: the proxy is healthy; its error log, between access-log lines, says the
			// request bodies are larger than client_max_body_size allows.
			Name: "uploads-proxy-client-body-413", Covers: "Running nginx whose error log repeats 'client intended to send too large body'; nginx.conf from a ConfigMap sets client_max_body_size 1m",
			Source: srcW7Logging, Class: ClassOutside, Hops: 2,
			Problem: "editors get a 413 error when they upload product photos", Target: target("Deployment", "uploads-proxy"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "uploads-proxy-conf"}, Terms: []string{"client_max_body_size"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createBackend(ctx, "assets-api", "registry.example/media/assets-api:4.1.0", 80, 8080)
					},
					func() error {
						return e.createConfigMap(ctx, "uploads-proxy-conf", map[string]string{"nginx.conf": "events {}\nhttp {\n  client_max_body_size 1m;\n  server {\n" +
							"    listen 8080;\n    server_name uploads.example.com;\n    location /api/ { proxy_pass http://assets-api:80; proxy_read_timeout 60s; }\n" +
							"    location /healthz { return 200 'ok'; }\n  }\n}\n"})
					},
					func() error {
						d := deployment("uploads-proxy", "nginx:1.25.4", 1, running("uploads-proxy-body-size"))
						mountConfigMap(&d.Spec.Template, "uploads-proxy-conf", "/etc/nginx")
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createService(ctx, service("uploads-proxy", map[string]string{"app": "uploads-proxy"}, intstr.FromString("http")))
					},
					func() error { return e.createIngress(ctx, ingress("uploads", "uploads-proxy", 80)) },
				)
			},
			Wait: all(anyPod("uploads-proxy", runningReady), anyPod("assets-api", runningReady)),
		},
		{
			// debug-running-pod: Ready, /up answers 200, but requests wait for a database
			// connection: database.yml's pool of 5 is smaller than Puma's 16 threads.
			Name: "storefront-rails-pool-below-threads", Covers: "Running Rails app whose log repeats ActiveRecord::ConnectionTimeoutError; database.yml from a ConfigMap sets pool: 5 while RAILS_MAX_THREADS is 16",
			Source: srcW7RunningPod, Class: ClassOutside, Hops: 2,
			Problem: "product pages intermittently show a 500 under load", Target: target("Deployment", "storefront"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "storefront-database"}, Terms: []string{"pool"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "postgres", "postgres:16.2", 5432, 5432) },
					func() error {
						return e.createConfigMap(ctx, "storefront-database", map[string]string{"database.yml": "production:\n  adapter: postgresql\n  host: postgres\n" +
							"  database: storefront_production\n  username: storefront\n  password: <%= ENV['DATABASE_PASSWORD'] %>\n  pool: 5\n  checkout_timeout: 5\n"})
					},
					func() error {
						d := deployment("storefront", "registry.example/shop/storefront:2026.02.15", 2, running("storefront-ar-pool-timeout"))
						d.Spec.Template.Spec.Containers[0].Ports[0].ContainerPort = 3000
						mountConfigMap(&d.Spec.Template, "storefront-database", "/rails/config/db")
						return e.createDeployment(ctx, env(d, "RAILS_ENV", "production", "RAILS_MAX_THREADS", "16", "DATABASE_CONFIG", "/rails/config/db/database.yml"))
					},
				)
			},
			Wait: all(anyPod("storefront", runningReady), readyReplicas("storefront", 2)),
		},
		{
			// configure-service-account / RBAC: a ClusterRole bound with a RoleBinding grants
			// it in that namespace only; listing pods cluster-wide needs a ClusterRoleBinding.
			Name: "ops-bot-clusterrole-via-rolebinding", Covers: "RBAC question: ops-bot may list pods in its namespace but not in all namespaces: its ClusterRole is bound with a RoleBinding, not a ClusterRoleBinding",
			Source: srcW7ServiceAcct, Class: ClassOutside, Hops: 2,
			Problem: "why can't the ops-bot service account list pods in all namespaces?", Target: target("ServiceAccount", "ops-bot"),
			Want: Want{Culprit: Ref{Kind: "RoleBinding", Name: "ops-bot-pod-reader"}, Terms: []string{"ClusterRoleBinding"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createServiceAccount(ctx, "ops-bot") },
					func() error {
						return e.createScopedClusterRole(ctx, "pod-reader", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods", "pods/log"}, Verbs: []string{"get", "list", "watch"}})
					},
					func() error {
						return e.createRoleBinding(ctx, "ops-bot-pod-reader", "ClusterRole", e.ClusterName("pod-reader"), "ops-bot")
					},
				)
			},
		},
	}
}

// ingressWithClass is ingress(name, svc, 80) served by IngressClass class.
func ingressWithClass(name, svc, class string) *networkingv1.Ingress {
	i := ingress(name, svc, 80)
	i.Spec.IngressClassName = ptr.To(class)
	return i
}
