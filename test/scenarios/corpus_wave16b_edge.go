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
)

func wave16bEdgeScenarios() []*Scenario {
	payouts := w8cLabels("app", "payouts-api", "team", "payments", "tier", "api")
	refunds := w8cLabels("app", "refunds-api", "team", "payments", "tier", "api")
	uploads := w8bLabels("uploads-api", "uploads", "app.kubernetes.io/component", "api")
	media := w8bLabels("media", "uploads", "app.kubernetes.io/component", "api")
	etl := w8bLabels("etl-runner", "data-platform", "app.kubernetes.io/component", "worker")
	return []*Scenario{
		{
			// The Vault Agent sidecar retries auto-auth forever with backoff; when mount_path
			// names a path where no auth method is mounted, Vault answers 400 'no handler for
			// route', no token is written, no template renders, and the app that waits for its
			// secrets file gives up. The sibling service's agent config uses auth/kubernetes.
			Name: "payouts-api-crashloop-after-secrets-move", Covers: "payouts-api crash-loops on 'secrets file /vault/secrets/payouts-db.properties did not appear within 30s'; its vault-agent sidecar runs and logs 'error authenticating ... URL: PUT https://vault.vault.svc:8200/v1/auth/k8s/login Code: 400 ... no handler for route \"auth/k8s/login\"': mount_path in ConfigMap vault-agent-payouts is auth/k8s while Vault's kubernetes method (and refunds-api's agent config) is at auth/kubernetes",
			Source: w16bSrcVaultAuthPath, Class: ClassClue, Hops: 1,
			Problem: "payouts-api restarts every minute since its database password moved to Vault; refunds-api made the same move yesterday and is fine",
			Target:  target("Deployment", "payouts-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "vault-agent-payouts"}, Terms: []string{"mount_path"}},
			Setup: func(ctx context.Context, e *Env) error {
				app := func(name, role string, lbl, ann map[string]string) error {
					d := w11bApp(name, name, "registry.example/payments/"+name+":4.2.0", 2, lbl, ann, "http", 8080)
					w8bEnv(&d.Spec.Template, "SPRING_PROFILES_ACTIVE", "prod", "SPRING_CONFIG_IMPORT", "optional:file:/vault/secrets/"+role+"-db.properties")
					w15aServiceAccount(&d.Spec.Template, name)
					a := w10aContainer(&d.Spec.Template, "vault-agent", "docker.io/hashicorp/vault:1.17.6", "", 0, "agent", "-config=/etc/vault/agent.hcl")
					w14bEnv(a, "VAULT_LOG_LEVEL", "info", "SKIP_SETCAP", "true")
					w14bMountCM(&d.Spec.Template, a, "vault-agent-"+role, "/etc/vault", "")
					w10aEmptyDir(&d.Spec.Template, "vault-secrets", "/vault/secrets", 0, 1)
					w10aEmptyDir(&d.Spec.Template, "home-vault", "/home/vault", 1)
					return e.w11bServe(ctx, d, 80)
				}
				return steps(
					func() error { return e.createServiceAccount(ctx, "payouts-api") },
					func() error { return e.createServiceAccount(ctx, "refunds-api") },
					func() error {
						return e.createConfigMap(ctx, "vault-agent-payouts", map[string]string{"agent.hcl": w16bVaultAgent("payouts", "auth/k8s")})
					},
					func() error {
						return e.createConfigMap(ctx, "vault-agent-refunds", map[string]string{"agent.hcl": w16bVaultAgent("refunds", "auth/kubernetes")})
					},
					func() error {
						return app("payouts-api", "payouts", payouts, w10aOn("payouts-api", "crashloop", "w16b-vault-agent-auth-route", annExitCode, "1",
							annMessage, "java.lang.IllegalStateException: secrets file /vault/secrets/payouts-db.properties did not appear within 30s"))
					},
					func() error { return app("refunds-api", "refunds", refunds, nil) },
				)
			},
			Wait: all(podsWith(payouts, crashLooping(2)), readyReplicas("refunds-api", 2)),
		},
		{
			// ingress-nginx caps request bodies at 1m unless the Ingress sets
			// nginx.ingress.kubernetes.io/proxy-body-size; nginx.org/client-max-body-size is the
			// F5 NGINX controller's annotation and is ignored. nginx answers 413 itself, so the
			// backend never sees the upload; only the controller's error log names the body size.
			Name: "uploads-large-files-rejected", Covers: "uploads over 1 MB to uploads.example.com get 413 and uploads-api logs nothing; the ingress-nginx controller logs 'client intended to send too large body: 26214400 bytes ... server: uploads.example.com'; Ingress uploads carries nginx.org/client-max-body-size (another controller's annotation) instead of nginx.ingress.kubernetes.io/proxy-body-size, which Ingress media sets to 64m",
			Source: w16bSrcNginxBodySize, Class: ClassClue, Hops: 2,
			Problem: "uploading files larger than about a megabyte to uploads.example.com fails with 413 Request Entity Too Large; small files work and the uploads-api pods log nothing for the failing requests",
			Target:  target("Deployment", "uploads-api"),
			Want:    Want{Culprit: Ref{Kind: "Ingress", Name: "uploads"}, Terms: []string{"proxy-body-size"}},
			Setup: func(ctx context.Context, e *Env) error {
				var class string
				return steps(
					func() error {
						var err error
						class, err = e.w9aIngressNginx(ctx, "nginx", "v1.11.3", "w16b-ingress-nginx-body-size",
							map[string]string{"use-forwarded-headers": "true", "enable-real-ip": "true", "proxy-read-timeout": "120", "allow-snippet-annotations": "false"})
						return err
					},
					func() error {
						return e.w11bServe(ctx, w11bApp("uploads-api", "uploads-api", "registry.example/uploads/uploads-api:2.7.0", 2, uploads, nil, "http", 8080), 80)
					},
					func() error {
						return e.w11bServe(ctx, w11bApp("media", "media", "registry.example/uploads/media:1.19.2", 1, media, nil, "http", 8080), 80)
					},
					func() error {
						return e.createIngress(ctx, w9aIngress("uploads", class, "uploads.example.com", "/", "uploads-api", "http",
							map[string]string{"nginx.org/client-max-body-size": "50m", "nginx.ingress.kubernetes.io/proxy-read-timeout": "300"}, ""))
					},
					func() error {
						return e.createIngress(ctx, w9aIngress("media", class, "www.example.com", "/media", "media", "http",
							map[string]string{"nginx.ingress.kubernetes.io/proxy-body-size": "64m"}, ""))
					},
				)
			},
			Wait: all(readyReplicas("ingress-nginx-controller", 2), readyReplicas("uploads-api", 2), readyReplicas("media", 1)),
		},
		{
			// cluster-autoscaler only grows a node group up to the max of its --nodes=min:max:name
			// flag; at the max it logs 'Skipping node group ... - max size reached' and the
			// pods the group was meant for stay Pending on Insufficient cpu. The scheduler's
			// event points at the pods' requests; the autoscaler's log points at its own args.
			Name: "etl-runner-pending-pool-never-grows", Covers: "two of four etl-runner pods stay Pending on 'Insufficient cpu' on the one batch-spot node and no node is added: the Running cluster-autoscaler logs 'Pod .../etl-runner-... is unschedulable', 'Skipping node group batch-spot - max size reached', 'No expansion options'; its Deployment args say --nodes=1:1:batch-spot (general-2026 has 1:8)",
			Source: w16bSrcAutoscalerMax, Class: ClassClue, Hops: 2,
			Problem: "half of the etl-runner pods have been Pending for an hour and no new batch node shows up, although the batch pool is supposed to grow on demand",
			Target:  target("Deployment", "etl-runner"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "cluster-autoscaler"}, Terms: []string{"--nodes"}},
			Setup: func(ctx context.Context, e *Env) error {
				ca := w8bLabels("cluster-autoscaler", "platform", "app.kubernetes.io/instance", "cluster-autoscaler")
				return steps(
					func() error {
						return e.w15bPoolNode(ctx, "batch-a", false, w8cLabels("eks.amazonaws.com/nodegroup", "batch-spot", "node.kubernetes.io/lifecycle", "spot"))
					},
					func() error { return e.createServiceAccount(ctx, "cluster-autoscaler") },
					func() error {
						d := w11bApp("cluster-autoscaler", "cluster-autoscaler", "registry.k8s.io/autoscaling/cluster-autoscaler:v1.31.1", 1, ca,
							running("w16b-cluster-autoscaler-max-size"), "http", 8085)
						w10aMain(&d.Spec.Template, "cluster-autoscaler", "./cluster-autoscaler", "--cloud-provider=aws", "--namespace=kube-system",
							"--nodes=1:8:general-2026", "--nodes=1:1:batch-spot", "--expander=least-waste", "--balance-similar-node-groups",
							"--skip-nodes-with-system-pods=false", "--scale-down-utilization-threshold=0.5", "--v=4")
						w15aServiceAccount(&d.Spec.Template, "cluster-autoscaler")
						w8bEnv(&d.Spec.Template, "AWS_REGION", "eu-west-1")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w11bApp("etl-runner", "etl-runner", "registry.example/data/etl-runner:2026.11.4", 4, etl, nil, "metrics", 9100)
						d.Spec.Template.Spec.Containers[0].Resources = requests("1500m", "2Gi")
						e.w8cOnPool(&d.Spec.Template, "eks.amazonaws.com/nodegroup", "batch-spot")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(etl, unschedulable("Insufficient cpu")),
				readyReplicas("cluster-autoscaler", 1)),
		},
	}
}
