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
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The last two of wave 8b (see corpus_wave8b.go): a probe that keeps a migration lock stale,
// and a search domain with a wildcard record.

const (
	w8bSrcMigrationLock = "https://github.com/pmint93/helm-charts/issues/124 (Metabase: migration killed by the liveness probe, next runs find the migration lock taken)"
	w8bSrcWildcardNdots = "https://github.com/rancher/rancher/issues/16697 (ndots:5 plus a search domain with a wildcard record: external names resolve to the wildcard, certificate mismatch)"
)

func wave8bThirdScenarios() []*Scenario {
	return []*Scenario{
		{
			// The upgrade's first pod was killed by its liveness probe in the middle of the
			// Liquibase migrations; the lock row stayed, and every new pod now waits on it
			// until the same probe (60s, no startupProbe) kills it again.
			Name: "metabase-liveness-kills-migration-lock", Covers: "Metabase pods are killed by their liveness probe over and over; the log only says 'Migration lock is already taken. Waiting…': the first kill mid-migration left the lock, and the probe (initialDelaySeconds 60, no startupProbe) never lets a start finish",
			Source: w8bSrcMigrationLock, Class: ClassMechanism, Hops: 1,
			Problem: "Metabase restarts every minute since the 0.51 upgrade",
			Target:  target("Deployment", "metabase"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "metabase"}, Terms: []string{"liveness", "migration lock"}},
			Setup: func(ctx context.Context, e *Env) error {
				mb := map[string]string{"app.kubernetes.io/name": "metabase", "app.kubernetes.io/instance": "bi"}
				return steps(
					func() error { return w8bPostgres(ctx, e, "metabase-db", "bi", "primary") },
					func() error {
						return e.createSecret(ctx, "metabase-db", map[string]string{"MB_DB_USER": "metabase", "MB_DB_PASS": "p8Vw2Qx7Lm"})
					},
					func() error {
						d := w8bDeployment("metabase", "metabase/metabase:v0.51.4", 1, mb,
							sim("liveness-fail", annMessage, `Liveness probe failed: Get "http://10.244.2.19:3000/api/health": dial tcp 10.244.2.19:3000: connect: connection refused`, annLogs, "w8b-metabase-migration-lock"), "http", 3000)
						t := &d.Spec.Template
						w8bEnv(t, "MB_DB_TYPE", "postgres", "MB_DB_HOST", "metabase-db", "MB_DB_PORT", "5432", "MB_DB_DBNAME", "metabase", "JAVA_OPTS", "-Xmx1536m")
						envFromSecret(t, "metabase-db")
						probe := func(delay int32) *corev1.Probe {
							return &corev1.Probe{InitialDelaySeconds: delay, PeriodSeconds: 10, TimeoutSeconds: 5, FailureThreshold: 3,
								ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/api/health", Port: intstr.FromString("http")}}}
						}
						t.Spec.Containers[0].LivenessProbe, t.Spec.Containers[0].ReadinessProbe = probe(60), probe(30)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("metabase", mb, "http", 80)) },
				)
			},
			Wait: all(podsWith(map[string]string{"app.kubernetes.io/name": "metabase"}, restartedWith("Error", 137)), podEvent("Killing", "liveness")),
		},
		{
			// corp.example.com was added to the search list so that bare on-prem names
			// (ldap01) resolve; it has a wildcard record, and with ndots:5 api.github.com is
			// tried as api.github.com.corp.example.com first, which answers.
			Name: "release-bot-search-domain-wildcard", Covers: "a Ready bot logs 'x509: certificate is valid for *.corp.example.com, corp.example.com, not api.github.com' on every sync; its pod dnsConfig adds the search domain corp.example.com, which has a wildcard record, so with ndots:5 external names resolve inside it",
			Source: w8bSrcWildcardNdots, Class: ClassOutside, Hops: 1,
			Problem: "release-bot has posted empty digests since we gave it access to the on-prem LDAP",
			Target:  target("Deployment", "release-bot"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "release-bot"}, Terms: []string{"corp.example.com", "ndots"}},
			Setup: func(ctx context.Context, e *Env) error {
				bot := w8bLabels("release-bot", "devex")
				docs := w8bLabels("devex-docs", "devex")
				return steps(
					func() error {
						return e.createConfigMap(ctx, "release-bot-repos", map[string]string{"repos.yaml": "repos:\n  - acme/storefront\n  - acme/checkout\n  - acme/payments\nschedule: '*/5 * * * *'\nchannel: '#releases'\n"})
					},
					func() error {
						d := w8bDeployment("release-bot", "registry.example/devex/release-bot:1.12.0", 1, bot, running("w8b-release-bot-wildcard-search"), "http", 8080)
						t := &d.Spec.Template
						mountConfigMap(t, "release-bot-repos", "/etc/release-bot")
						w8bEnv(t, "GITHUB_API", "https://api.github.com", "LDAP_URL", "ldaps://ldap01:636")
						t.Spec.DNSConfig = &corev1.PodDNSConfig{Searches: []string{"corp.example.com"}}
						w8bReadiness(t, "/healthz", "http", 10)
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createDeployment(ctx, w8bDeployment("devex-docs", "registry.example/devex/docs:2026.11.20", 1, docs, nil, "http", 8080))
					},
				)
			},
			Wait: readyReplicas("release-bot", 1),
		},
	}
}
