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
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Corefile of the team's own resolver for the corp.internal zone; "." goes to the pod's
// /etc/resolv.conf, which with dnsPolicy Default is the node's systemd-resolved stub.
const w16bCorefile = "corp.internal:53 {\n    errors\n    cache 60\n    forward . 10.20.0.53 10.20.0.54\n}\n" +
	".:53 {\n    errors\n    health :8080\n    ready :8181\n    prometheus :9153\n    forward . /etc/resolv.conf\n    cache 30\n    loop\n    reload\n    loadbalance\n}\n"

// w16bVaultAgent is a Vault Agent config authenticating with the kubernetes method at mount,
// rendering the database credentials of role to /vault/secrets/<role>-db.properties.
func w16bVaultAgent(role, mount string) string {
	return "pid_file = \"/home/vault/.pid\"\nexit_after_auth = false\n\nvault {\n  address = \"https://vault.vault.svc:8200\"\n  ca_cert = \"/vault/tls/ca.crt\"\n}\n\n" +
		"auto_auth {\n  method \"kubernetes\" {\n    mount_path = \"" + mount + "\"\n    config = {\n      role = \"" + role + "\"\n    }\n  }\n" +
		"  sink \"file\" {\n    config = {\n      path = \"/home/vault/.vault-token\"\n    }\n  }\n}\n\n" +
		"template {\n  destination = \"/vault/secrets/" + role + "-db.properties\"\n  contents = <<EOT\n" +
		"{{ with secret \"database/creds/" + role + "\" }}spring.datasource.username={{ .Data.username }}\nspring.datasource.password={{ .Data.password }}{{ end }}\nEOT\n}\n"
}

// w16bLeaseHeld succeeds once Lease name is held by a pod whose name starts with prefix.
func w16bLeaseHeld(name, prefix string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		l, err := e.Client.CoordinationV1().Leases(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if l.Spec.HolderIdentity == nil || !strings.HasPrefix(*l.Spec.HolderIdentity, prefix) {
			return fmt.Errorf("lease %s not held by %s*", name, prefix)
		}
		return nil
	}
}

func wave16bControlScenarios() []*Scenario {
	corpDNS := w8bLabels("corp-dns", "platform-dns", "k8s-app", "corp-dns")
	runner := w8bLabels("ci-runner", "ci", "app.kubernetes.io/component", "runner")
	docs := w8bLabels("docs-site", "ci", "app.kubernetes.io/component", "web")
	const skip = "pod-defaults.platform.example.com/skip"
	hook := w8bLabels("pod-defaults-webhook", "platform", "app.kubernetes.io/component", "webhook", skip, "true")
	cache := w8bLabels("orders-cache", "orders", "app.kubernetes.io/component", "cache", skip, "true")
	orders := w8cLabels("app", "orders-api", "team", "orders", "tier", "api")
	return []*Scenario{
		{
			// CoreDNS' loop plugin sends a random HINFO query to itself at start; when "." is
			// forwarded to /etc/resolv.conf and the pod (dnsPolicy Default) inherits a node
			// resolv.conf pointing back at a local stub, the query comes back and CoreDNS exits
			// FATAL. The runner that uses this resolver only sees refused lookups.
			Name: "ci-jobs-pending-runner-cannot-reach-git", Covers: "the Running ci-runner logs 'dial tcp: lookup git.corp.internal on 10.96.0.153:53: ... connection refused' and picks no job; its dnsConfig nameserver is Service corp-dns, whose CoreDNS pods crash-loop on '[FATAL] plugin/loop: Loop (127.0.0.1:51284 -> :53) detected for zone \".\"': the Corefile in ConfigMap corp-dns forwards . to /etc/resolv.conf from a dnsPolicy Default pod",
			Source: w16bSrcCoreDNSLoop, Class: ClassProvider, Hops: 2,
			Problem: "every CI job has been pending since Friday's node image rollout: the ci-runner pod is Running but never picks anything up from git.corp.internal",
			Target:  target("Deployment", "ci-runner"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "corp-dns"}, Terms: []string{"loop"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createConfigMap(ctx, "corp-dns", map[string]string{"Corefile": w16bCorefile}) },
					func() error {
						d := w11bApp("corp-dns", "coredns", "registry.k8s.io/coredns/coredns:v1.11.3", 2, corpDNS, crash("1", "", "w16b-corp-dns-loop"), "dns", 53)
						w10aMain(&d.Spec.Template, "coredns", "-conf", "/etc/coredns/Corefile")
						w16bDNSPorts(&d.Spec.Template)
						d.Spec.Template.Spec.DNSPolicy = corev1.DNSDefault
						w14bMountCM(&d.Spec.Template, &d.Spec.Template.Spec.Containers[0], "corp-dns", "/etc/coredns", "")
						if err := e.createDeployment(ctx, d); err != nil {
							return err
						}
						return e.createService(ctx, w16bDNSService("corp-dns", corpDNS, "10.96.0.153"))
					},
					func() error {
						d := w11bApp("ci-runner", "gitlab-runner", "docker.io/gitlab/gitlab-runner:v17.5.3", 1, runner, running("w16b-ci-runner-dns"), "metrics", 9252)
						w8bEnv(&d.Spec.Template, "CI_SERVER_URL", "https://git.corp.internal/", "RUNNER_EXECUTOR", "kubernetes", "KUBERNETES_NAMESPACE", "ci-jobs")
						d.Spec.Template.Spec.DNSPolicy = corev1.DNSNone
						d.Spec.Template.Spec.DNSConfig = &corev1.PodDNSConfig{Nameservers: []string{"10.96.0.153"},
							Searches: []string{"corp.internal"}, Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: ptr.To("2")}}}
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.w11bServe(ctx, w11bApp("docs-site", "docs", "registry.example/ci/docs-site:2026.11.3", 1, docs, nil, "http", 8080), 80)
					},
				)
			},
			Wait: all(podsWith(corpDNS, crashLooping(2)), readyReplicas("ci-runner", 1), readyReplicas("docs-site", 1)),
		},
		{
			// A mutating webhook with failurePolicy Fail that no one can reach blocks every pod
			// create it matches. Its controller-runtime server exits because the serving cert is
			// read from tls.crt/tls.key, while the Secret, made by an old script, holds
			// cert.pem/key.pem; the app team only sees FailedCreate on their ReplicaSet.
			Name: "orders-api-zero-pods-platform-release", Covers: "orders-api has 0 pods: its ReplicaSet's FailedCreate says 'failed calling webhook \"pod-defaults.platform.example.com\"'; the webhook's Service has no ready pod because pod-defaults-webhook crash-loops on 'problem running manager ... open /tmp/k8s-webhook-server/serving-certs/tls.crt: no such file or directory': Secret pod-defaults-webhook-cert holds cert.pem and key.pem (orders-cache, opted out, runs)",
			Source: w16bSrcWebhookCerts, Class: ClassRanking, Hops: 3,
			Problem: "the orders-api deploy from CI shows 0/3 ready and kubectl get pods lists none of its pods",
			Target:  target("Deployment", "orders-api"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "pod-defaults-webhook-cert"}, Terms: []string{"tls.crt"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createSecret(ctx, "pod-defaults-webhook-cert", map[string]string{
							"cert.pem": "-----BEGIN CERTIFICATE-----\nMIIDPjCCAiagAwIBAgIUZ2Q0NDFmZTQ3YzI1NDc0ZWE5YjUwDQYJKoZIhvcNAQEL\nBQAwHTEbMBkGA1UEAwwScG9kLWRlZmF1bHRzLWNhLWNhMB4XDTI2MDYwMTAwMDAw\n-----END CERTIFICATE-----\n",
							"key.pem":  "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7q2mX8Hc1k9Zp\n-----END PRIVATE KEY-----\n"})
					},
					func() error {
						d := w11bApp("pod-defaults-webhook", "manager", "registry.example/platform/pod-defaults-webhook:1.6.0", 2, hook, crash("1", "", "w16b-pod-defaults-webhook"), "webhook", 9443)
						w10aMain(&d.Spec.Template, "manager", "--health-probe-bind-address=:8081", "--metrics-bind-address=:8080")
						w14bMountSecret(&d.Spec.Template, &d.Spec.Template.Spec.Containers[0], "pod-defaults-webhook-cert", "/tmp/k8s-webhook-server/serving-certs")
						if err := e.createDeployment(ctx, d); err != nil {
							return err
						}
						return e.createService(ctx, w10aServiceTo("pod-defaults-webhook", hook, "https", 443, "webhook"))
					},
					func() error {
						return e.w16bPodWebhook(ctx, "pod-defaults", "pod-defaults.platform.example.com", "pod-defaults-webhook", "/mutate-v1-pod", skip)
					},
					func() error {
						return e.w14bStore(ctx, "orders-cache", "docker.io/library/redis:7.2.5", cache, nil, "redis", 6379, nil)
					},
					func() error {
						d := w11bApp("orders-api", "orders-api", "registry.example/orders/orders-api:8.2.0", 3, orders, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "REDIS_ADDR", "orders-cache:6379", "LOG_FORMAT", "json")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(hook, crashLooping(2)), w8cStatefulSetReady("orders-cache", 1), func(ctx context.Context, e *Env) error {
				return podEventOn(ctx, e, "ReplicaSet", "FailedCreate", "failed calling webhook")
			}),
		},
		{
			// Two releases of one operator share a leader-election id: the old Deployment,
			// left behind when the team moved to the new chart, keeps renewing the Lease, so
			// the new manager waits forever in 'attempting to acquire leader lease' and never
			// starts its controllers. Nothing fails; only the holder names the leftover.
			Name: "snapshot-operator-idle-after-chart-move", Covers: "snapshot-operator 2.0.1 is Running and Ready but reconciles nothing: its log repeats 'lock is held by snapshot-controller-..._... and has not yet expired' / 'failed to acquire lease .../5e3a91c2.snapshots.example.com'; the Lease is renewed by the pod of the old Deployment snapshot-controller (1.8.3), left running when the chart replaced it",
			Source: w16bSrcLeaderLease, Class: ClassOutside, Hops: 3,
			Problem: "no volume snapshots have been taken since we installed the snapshot-operator chart on Tuesday; its pod is Running and Ready",
			Target:  target("Deployment", "snapshot-operator"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "snapshot-controller"}, Terms: []string{"lease"}},
			Setup: func(ctx context.Context, e *Env) error {
				const id = "5e3a91c2.snapshots.example.com"
				old := w8bLabels("snapshot-controller", "snapshots", "app.kubernetes.io/version", "1.8.3")
				operator := w8bLabels("snapshot-operator", "snapshots", "app.kubernetes.io/instance", "snapshot-operator")
				manager := func(name, image, logs string, lbl map[string]string) error {
					d := w11bApp(name, "manager", image, 1, lbl, running(logs), "metrics", 8080)
					w10aMain(&d.Spec.Template, "manager", "--leader-elect", "--leader-election-id="+id, "--health-probe-bind-address=:8081")
					w15aServiceAccount(&d.Spec.Template, name)
					return e.createDeployment(ctx, d)
				}
				leases := rbacv1.PolicyRule{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch"}}
				events := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}}
				return steps(
					func() error { return e.createServiceAccount(ctx, "snapshot-controller") },
					func() error { return e.createServiceAccount(ctx, "snapshot-operator") },
					func() error { return e.createRole(ctx, "snapshots-leader-election", leases, events) },
					func() error {
						return e.createRoleBinding(ctx, "snapshot-controller-leader-election", "Role", "snapshots-leader-election", "snapshot-controller")
					},
					func() error {
						return e.createRoleBinding(ctx, "snapshot-operator-leader-election", "Role", "snapshots-leader-election", "snapshot-operator")
					},
					func() error {
						return manager("snapshot-controller", "registry.example/platform/snapshot-controller:1.8.3", "w16b-snapshot-controller-leader", old)
					},
					func() error {
						e.w16bHoldLease(id, old)
						return manager("snapshot-operator", "registry.example/platform/snapshot-operator:2.0.1", "w16b-snapshot-operator-waiting", operator)
					},
				)
			},
			Wait: all(readyReplicas("snapshot-controller", 1), readyReplicas("snapshot-operator", 1),
				w16bLeaseHeld("5e3a91c2.snapshots.example.com", "snapshot-controller-")),
		},
	}
}
