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
	"errors"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// A second round written from the monitoring-stack runbooks and the debugging pages, with
// the clue in text (termination messages, logs), RBAC near misses and chains of several
// hops. Each names the passage it follows.

const (
	srcKSMListErrors  = "runbooks/kube-state-metrics/KubeStateMetricsListErrors.md"
	srcAMFailedSend   = "runbooks/alertmanager/AlertmanagerFailedToSendAlerts.md"
	srcAMFailedReload = "runbooks/alertmanager/AlertmanagerFailedReload.md"
	srcTargetDown     = "runbooks/general/TargetDown.md"
	srcCronJobs       = "k8s-docs/concepts/workloads/controllers/cron-jobs.md"
	srcQuotaExceeded  = "runbooks/kubernetes/KubeQuotaExceeded.md"
)

// forbidden is the API server's refusal as client-go prints it.
func forbidden(e *Env, sa, verb, resource, name string) string {
	obj := resource
	if name != "" {
		obj = fmt.Sprintf("%s %q", resource, name)
	}
	return fmt.Sprintf(`%s is forbidden: User "system:serviceaccount:%s:%s" cannot %s resource %q in API group "" in the namespace %q`,
		obj, e.Namespace, sa, verb, resource, e.Namespace)
}

func runbookScenarios() []*Scenario {
	return []*Scenario{
		{
			// KubeStateMetricsListErrors: "Check service account token. Check networking rules."
			// The account is bound, but the binding's subject names it in another namespace.
			Name: "metrics-exporter-binding-other-namespace", Covers: "an exporter exits on 'secrets is forbidden … cannot list'; its RoleBinding names the ServiceAccount in namespace monitoring",
			Source: srcKSMListErrors, Class: ClassOutside, Hops: 3,
			Problem: "the metrics exporter keeps restarting with list errors", Target: target("Deployment", "metrics-exporter"),
			Want: Want{Culprit: Ref{Kind: "RoleBinding", Name: "exporter-read"}, Terms: []string{"monitoring"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createServiceAccount(ctx, "metrics-exporter") },
					func() error {
						return e.createRole(ctx, "exporter-read", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods", "services", "secrets"}, Verbs: []string{"get", "list", "watch"}})
					},
					func() error {
						_, err := e.Client.RbacV1().RoleBindings(e.Namespace).Create(ctx, &rbacv1.RoleBinding{
							ObjectMeta: metav1.ObjectMeta{Name: "exporter-read"},
							Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "metrics-exporter", Namespace: "monitoring"}},
							RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "exporter-read"},
						}, metav1.CreateOptions{})
						return wrap("RoleBinding", "exporter-read", err)
					},
					func() error {
						msg := "F0112 09:00:00.000000 1 main.go:211] failed to sync informers: failed to list *v1.Secret: " + forbidden(e, "metrics-exporter", "list", "secrets", "")
						d := deployment("metrics-exporter", "example/metrics-exporter:2.13", 1, crash("1", msg, "metrics-exporter-forbidden"))
						d.Spec.Template.Spec.ServiceAccountName = "metrics-exporter"
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("metrics-exporter", crashLooping(2)),
		},
		{
			// AlertmanagerFailedToSendAlerts: "have a look to alert-manager logs and act
			// (network, authorization token, firewall...)". The receiver's Service selects
			// a label its pods do not carry.
			Name: "alertmanager-webhook-relay-selector", Covers: "Running alertmanager logs 'Notify for alerts failed … connection refused' to its webhook relay; the relay's Service selector matches no pod",
			Source: srcAMFailedSend, Class: ClassProvider, Hops: 2,
			Problem: "alert notifications stopped arriving in the chat channel", Target: target("Deployment", "alertmanager"),
			Want: Want{Culprit: Ref{Kind: "Service", Name: "alert-relay"}, Terms: []string{"alert-relay", "app.kubernetes.io/name"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createDeployment(ctx, deployment("alert-relay", "example/alert-relay:0.4", 1, nil))
					},
					func() error {
						return e.createService(ctx, service("alert-relay", map[string]string{"app.kubernetes.io/name": "alert-relay"}, intstr.FromString("http")))
					},
					func() error {
						return e.createConfigMap(ctx, "alertmanager-config", map[string]string{"alertmanager.yaml": "route:\n  receiver: relay\nreceivers:\n- name: relay\n  webhook_configs:\n  - url: http://alert-relay:8080/hook\n"})
					},
					func() error {
						d := deployment("alertmanager", "quay.io/prometheus/alertmanager:v0.27.0", 1, running("alertmanager-webhook-refused"))
						mountConfigMap(&d.Spec.Template, "alertmanager-config", "/etc/alertmanager/config")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("alertmanager", runningReady),
		},
		{
			// TargetDown: "a common cause could be … a misconfigured NetworkPolicy".
			Name: "prometheus-scrape-blocked-by-policy", Covers: "Running Prometheus logs scrape timeouts to orders:8080; a NetworkPolicy on the orders pods admits only the storefront",
			Source: srcTargetDown, Class: ClassProvider, Hops: 2,
			Problem: "the orders scrape target is down in Prometheus", Target: target("Deployment", "prometheus"),
			Want: Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "orders-ingress"}, Terms: []string{"orders-ingress"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "orders", "example/orders:7.1", 8080, 8080) },
					func() error {
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{
							ObjectMeta: metav1.ObjectMeta{Name: "orders-ingress"},
							Spec: networkingv1.NetworkPolicySpec{
								PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "orders"}},
								PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
								Ingress: []networkingv1.NetworkPolicyIngressRule{{
									From:  []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "storefront"}}}},
									Ports: []networkingv1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(8080))}},
								}},
							},
						})
					},
					func() error {
						return e.createDeployment(ctx, deployment("storefront", "example/storefront:3.3", 1, nil))
					},
					func() error {
						return e.createDeployment(ctx, deployment("prometheus", "quay.io/prometheus/prometheus:v2.53.0", 1, running("prometheus-scrape-timeout")))
					},
				)
			},
			Wait: anyPod("prometheus", runningReady),
		},
		{
			// AlertmanagerFailedReload: "verify directly alertmanager.yaml file (default:
			// /etc/alertmanager/config/alertmanager.yaml)". The ConfigMap's key is .yml.
			Name: "alertmanager-config-key-yml", Covers: "alertmanager exits: open /etc/alertmanager/config/alertmanager.yaml: no such file; the mounted ConfigMap's key is alertmanager.yml",
			Source: srcAMFailedReload, Class: ClassClue, Hops: 2,
			Problem: "alertmanager-main keeps crashing after the config change", Target: target("Deployment", "alertmanager-main"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "alertmanager-main-config"}, Terms: []string{"alertmanager.yaml", "alertmanager.yml"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "alertmanager-main-config", map[string]string{"alertmanager.yml": "route:\n  receiver: default\nreceivers:\n- name: default\n"})
					},
					func() error {
						msg := `level=error caller=coordinator.go:118 component=configuration msg="Loading configuration file failed" file=/etc/alertmanager/config/alertmanager.yaml err="open /etc/alertmanager/config/alertmanager.yaml: no such file or directory"`
						d := deployment("alertmanager-main", "quay.io/prometheus/alertmanager:v0.27.0", 1, crash("1", msg, "alertmanager-config-missing"))
						mountConfigMap(&d.Spec.Template, "alertmanager-main-config", "/etc/alertmanager/config")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("alertmanager-main", crashLooping(2)),
		},
		{
			// debug-service: "If you are in a different Namespace … use <service>.<namespace>";
			// here the suffix names a namespace that does not exist while the Service is local.
			Name: "checkout-inventory-namespace-suffix", Covers: "checkout exits on 'lookup inventory.shop: no such host'; the URL in its ConfigMap adds a namespace suffix, the Service lives in the same namespace",
			Source: srcDebugService, Class: ClassClue, Hops: 2,
			Problem: "checkout is down", Target: target("Deployment", "checkout"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "checkout-env"}, Terms: []string{"inventory.shop"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "inventory", "example/inventory:2.0", 8080, 8080) },
					func() error {
						return e.createConfigMap(ctx, "checkout-env", map[string]string{"INVENTORY_URL": "http://inventory.shop:8080", "CURRENCY": "EUR"})
					},
					func() error {
						msg := `Get "http://inventory.shop:8080/v1/stock": ` + dnsFail("inventory.shop")
						d := deployment("checkout", "example/checkout:5.4", 1, crash("1", msg, "checkout-inventory-dns"))
						envFromConfigMap(&d.Spec.Template, "checkout-env")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("checkout", crashLooping(2)),
		},
		{
			// network-policies: "Each rule allows traffic which matches both the to and ports
			// sections" — ports of the destination pods, not the Service's port.
			Name: "invoicer-egress-service-port", Covers: "invoicer times out to billing-api:80; its egress NetworkPolicy allows port 80, but the billing pods listen on 8080 (the Service's targetPort)",
			Source: srcNetpol, Class: ClassProvider, Hops: 3,
			Problem: "invoices are not being generated", Target: target("Deployment", "invoicer"),
			Want: Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "invoicer-egress"}, Terms: []string{"invoicer-egress", "8080"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "billing-api", "example/billing-api:1.8", 80, 8080) },
					func() error {
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{
							ObjectMeta: metav1.ObjectMeta{Name: "invoicer-egress"},
							Spec: networkingv1.NetworkPolicySpec{
								PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "invoicer"}},
								PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
								Egress: []networkingv1.NetworkPolicyEgressRule{
									{
										To:    []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "billing-api"}}}},
										Ports: []networkingv1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(80))}},
									},
									{Ports: []networkingv1.NetworkPolicyPort{
										{Protocol: ptr.To(corev1.ProtocolUDP), Port: ptr.To(intstr.FromInt32(53))},
										{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(53))},
									}},
								},
							},
						})
					},
					func() error {
						msg := fmt.Sprintf(`Post "http://billing-api/v1/invoices": dial tcp %s:80: i/o timeout`, e.clusterIP(ctx, "billing-api"))
						return e.createDeployment(ctx, env(deployment("invoicer", "example/invoicer:3.0", 1, crash("1", msg, "invoicer-billing-timeout")), "BILLING_URL", "http://billing-api"))
					},
				)
			},
			Wait: anyPod("invoicer", crashLooping(2)),
		},
		{
			// configure-service-account: the account gets its rights from a Role; RBAC
			// resources are plural, so a rule on "persistentvolumeclaim" matches nothing.
			Name: "rbac-role-singular-resource", Covers: "RBAC question: the Role lists resource 'persistentvolumeclaim' (singular), so list on persistentvolumeclaims is denied",
			Source: srcServiceAccount, Class: ClassOutside, Hops: 2,
			Problem: "why can't the backup-agent service account list persistentvolumeclaims?", Target: target("ServiceAccount", "backup-agent"),
			Want: Want{Culprit: Ref{Kind: "Role", Name: "pvc-snapshotter"}, Terms: []string{"pvc-snapshotter", "persistentvolumeclaims"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createServiceAccount(ctx, "backup-agent") },
					func() error {
						return e.createRole(ctx, "pvc-snapshotter", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"persistentvolumeclaim"}, Verbs: []string{"get", "list", "watch"}})
					},
					func() error {
						return e.createRoleBinding(ctx, "backup-agent-pvcs", "Role", "pvc-snapshotter", "backup-agent")
					},
				)
			},
		},
		{
			// KubeJobFailed: "check the logs of the pods of the failed job". The Job's
			// account may update the ConfigMap but not patch it, which kubectl apply needs.
			Name: "release-job-role-lacks-patch", Covers: "a Job fails with 'configmaps \"release-manifest\" is forbidden … cannot patch'; its Role grants get and update only",
			Source: srcJobFailed, Class: ClassOutside, Hops: 3,
			Problem: "the publish-release job failed", Target: target("Job", "publish-release"),
			Want: Want{Culprit: Ref{Kind: "Role", Name: "release-bot"}, Terms: []string{"patch", "release-bot"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createServiceAccount(ctx, "release-bot") },
					func() error {
						return e.createConfigMap(ctx, "release-manifest", map[string]string{"version": "5.3.0"})
					},
					func() error {
						return e.createRole(ctx, "release-bot", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "update"}})
					},
					func() error { return e.createRoleBinding(ctx, "release-bot", "Role", "release-bot", "release-bot") },
					func() error {
						msg := "Error from server (Forbidden): " + forbidden(e, "release-bot", "patch", "configmaps", "release-manifest")
						j := job("publish-release", 1, sim("fail", annMessage, msg))
						j.Spec.Template.Spec.ServiceAccountName = "release-bot"
						_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
						return wrap("Job", j.Name, err)
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				return jobFailed(ctx, e, "publish-release", "BackoffLimitExceeded")
			},
		},
		{
			// cron-jobs: each run is a Job from the jobTemplate; a key its Secret lacks stops
			// every run at CreateContainerConfigError, and the fix is in the CronJob or Secret.
			Name: "nightly-report-cronjob-secret-key", Covers: "CronJob runs wait in CreateContainerConfigError: the Secret report-smtp has no key password",
			Source: srcCronJobs, Class: ClassReference, Hops: 3, Slow: true,
			Problem: "the nightly report e-mail never arrives", Target: target("CronJob", "nightly-report"),
			Want: Want{Culprit: Ref{Kind: "Secret", Name: "report-smtp"}, Also: []Ref{{Kind: "CronJob", Name: "nightly-report"}}, Terms: []string{"report-smtp", "password"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createSecret(ctx, "report-smtp", map[string]string{"username": "reports", "pass": "x"})
					},
					func() error {
						j := job("nightly-report", 0, sim("create-config-error", annMessage, fmt.Sprintf("couldn't find key password in Secret %s/report-smtp", e.Namespace)))
						envKeyFromSecret(&j.Spec.Template, "SMTP_PASSWORD", "report-smtp", "password")
						_, err := e.Client.BatchV1().CronJobs(e.Namespace).Create(ctx, &batchv1.CronJob{
							ObjectMeta: metav1.ObjectMeta{Name: "nightly-report"},
							Spec: batchv1.CronJobSpec{Schedule: "* * * * *", ConcurrencyPolicy: batchv1.ForbidConcurrent,
								JobTemplate: batchv1.JobTemplateSpec{Spec: j.Spec}},
						}, metav1.CreateOptions{})
						return wrap("CronJob", "nightly-report", err)
					},
				)
			},
			Wait: anyPod("nightly-report", waiting("CreateContainerConfigError")),
		},
		{
			// KubeQuotaExceeded: the quota refuses the database's pod; the web tier that took
			// the last slot crash-loops on connection refused to the database's Service.
			Name: "quota-starves-database", Covers: "web crash-loops on 'connection refused' to postgres; postgres-0 is never created because the pods ResourceQuota is used up",
			Source: srcQuotaExceeded, Class: ClassRanking, Hops: 3,
			Problem: "the web tier keeps crashing", Target: target("Deployment", "web"),
			Want: Want{Culprit: Ref{Kind: "ResourceQuota", Name: "team-pods"}, Terms: []string{"team-pods", "pods"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createQuota(ctx, "team-pods", corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")})
					},
					func() error {
						return e.createService(ctx, service("postgres", map[string]string{"app": "postgres"}, intstr.FromInt32(5432)))
					},
					func() error {
						msg := fmt.Sprintf("FATAL: could not connect to server: Connection refused. Is the server running on host \"postgres\" (%s) and accepting TCP/IP connections on port 5432?", e.clusterIP(ctx, "postgres"))
						return e.createDeployment(ctx, env(deployment("web", "example/web:12.0", 1, crash("1", msg, "web-postgres-refused")), "PGHOST", "postgres", "PGPORT", "5432"))
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				// The database comes after web holds the quota's only pod, as in a namespace that
				// filled up before the database was (re)deployed.
				if e.State["db"] == "" {
					if pods, err := e.pods(ctx, "web"); err != nil || len(pods) == 0 {
						return errors.Join(errors.New("web has no pod yet"), err)
					}
					s := plainStatefulSet("postgres", "postgres:16", 1, nil)
					s.Spec.Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "pg", ContainerPort: 5432}}
					if _, err := e.Client.AppsV1().StatefulSets(e.Namespace).Create(ctx, s, metav1.CreateOptions{}); err != nil {
						return wrap("StatefulSet", "postgres", err)
					}
					e.State["db"] = "created"
				}
				return all(anyPod("web", crashLooping(2)), func(ctx context.Context, e *Env) error {
					return podEventOn(ctx, e, "StatefulSet", "FailedCreate", "exceeded quota")
				})(ctx, e)
			},
		},
		{
			// dns-debugging-resolution + network-policies: the DNS exception of an egress policy
			// selects kube-system by a label the namespace does not carry.
			Name: "reindex-job-dns-namespace-label", Covers: "a Job fails on 'lookup search … i/o timeout'; its egress policy allows DNS only to namespaces labelled name=kube-system, which matches none",
			Source: srcDNS, Class: ClassProvider, Hops: 2,
			Problem: "the reindex job keeps failing", Target: target("Job", "reindex"),
			Want: Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "reindex-egress"}, Terms: []string{"reindex-egress", "DNS"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "search", "example/search:8.2", 9200, 9200) },
					func() error {
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{
							ObjectMeta: metav1.ObjectMeta{Name: "reindex-egress"},
							Spec: networkingv1.NetworkPolicySpec{
								PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "reindex"}},
								PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
								Egress: []networkingv1.NetworkPolicyEgressRule{
									{To: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "search"}}}}},
									{
										To:    []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"name": "kube-system"}}}},
										Ports: []networkingv1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolUDP), Port: ptr.To(intstr.FromInt32(53))}},
									},
								},
							},
						})
					},
					func() error {
						msg := "reindex failed: Get \"http://search:9200/_bulk\": dial tcp: lookup search on 10.96.0.10:53: read udp 10.244.2.9:51234->10.96.0.10:53: i/o timeout"
						j := job("reindex", 1, sim("fail", annMessage, msg))
						j.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "SEARCH_URL", Value: "http://search:9200"}}
						_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
						return wrap("Job", j.Name, err)
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error { return jobFailed(ctx, e, "reindex", "BackoffLimitExceeded") },
		},
		{
			// deployment: "the rollout gets stuck … insufficient quota, readiness probe failures,
			// image pull errors, … application runtime misconfiguration". Revision 2 reads a key
			// the ConfigMap lacks, while revision 1 keeps serving.
			Name: "catalog-rollout-new-configmap-key", Covers: "a rollout stalls: the new ReplicaSet's pods wait in CreateContainerConfigError on a key revision 2 added, the old pods keep running",
			Source: srcDeployment, Class: ClassRanking, Hops: 3,
			Problem: "the catalog 2.0 rollout is stuck", Target: target("Deployment", "catalog"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "catalog-settings"}, Also: []Ref{{Kind: "Deployment", Name: "catalog"}}, Terms: []string{"SEARCH_BACKEND", "catalog-settings"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "catalog-settings", map[string]string{"LOG_LEVEL": "info", "CACHE_TTL": "60s"})
					},
					func() error { return e.createDeployment(ctx, deployment("catalog", "example/catalog:1.9", 2, nil)) },
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				d, err := e.Client.AppsV1().Deployments(e.Namespace).Get(ctx, "catalog", metav1.GetOptions{})
				if err != nil {
					return err
				}
				if e.State["v2"] == "" {
					if d.Status.AvailableReplicas < 2 {
						return errors.New("1.9 not available yet")
					}
					t := &d.Spec.Template
					t.Spec.Containers[0].Image = "example/catalog:2.0"
					t.Annotations = sim("create-config-error", annMessage, fmt.Sprintf("couldn't find key SEARCH_BACKEND in ConfigMap %s/catalog-settings", e.Namespace))
					envKeyFromConfigMap(t, "SEARCH_BACKEND", "catalog-settings", "SEARCH_BACKEND")
					if _, err := e.Client.AppsV1().Deployments(e.Namespace).Update(ctx, d, metav1.UpdateOptions{}); err != nil {
						return err
					}
					e.State["v2"] = "yes"
					return errors.New("2.0 sent")
				}
				return anyPod("catalog", waiting("CreateContainerConfigError"))(ctx, e)
			},
		},
		{
			// service: "An ExternalName Service … maps a Service to a DNS name"; the name it
			// maps to is misspelt, so every lookup through it fails.
			Name: "payments-externalname-typo", Covers: "a consumer exits on 'lookup psp-gateway … no such host'; the ExternalName Service psp-gateway points at a misspelt external host",
			Source: srcService, Class: ClassProvider, Hops: 2,
			Problem: "card payments fail", Target: target("Deployment", "payments"),
			Want: Want{Culprit: Ref{Kind: "Service", Name: "psp-gateway"}, Terms: []string{"api.paymnets-provider.example.com"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						_, err := e.Client.CoreV1().Services(e.Namespace).Create(ctx, &corev1.Service{
							ObjectMeta: metav1.ObjectMeta{Name: "psp-gateway"},
							Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "api.paymnets-provider.example.com"},
						}, metav1.CreateOptions{})
						return wrap("Service", "psp-gateway", err)
					},
					func() error {
						msg := `charge failed: Post "https://psp-gateway/v2/charges": dial tcp: lookup psp-gateway on 10.96.0.10:53: no such host`
						return e.createDeployment(ctx, env(deployment("payments", "example/payments:6.1", 1, crash("1", msg, "")), "PSP_URL", "https://psp-gateway/v2"))
					},
				)
			},
			Wait: anyPod("payments", crashLooping(2)),
		},
	}
}
