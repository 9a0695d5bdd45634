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

// wave11bLateScenarios: the database named in a mounted Spring properties file, and a Rails
// master key whose Secret key does not become the variable Rails reads.
func wave11bLateScenarios() []*Scenario {
	fulfillment := w8bLabels("fulfillment-service", "logistics", "app.kubernetes.io/component", "api")
	fulfillmentDB := w8bLabels("fulfillment-db", "logistics", "app.kubernetes.io/component", "database")
	tracker := w8cLabels("app", "tracker-web", "tier", "web", "team", "support")
	return []*Scenario{
		{
			// The JDBC URL in the mounted application.properties spells the database the
			// British way; the Postgres StatefulSet created it as fulfillment.
			Name: "fulfillment-spring-jdbc-database-name", Covers: "fulfillment-service (Spring Boot, HikariCP) fails on 'PSQLException: FATAL: database \"fulfilment\" does not exist'; spring.datasource.url in ConfigMap fulfillment-config (mounted application.properties) names fulfilment while the fulfillment-db StatefulSet sets POSTGRES_DB=fulfillment",
			Source: w11bSrcConfigMap + " (Add ConfigMap data to a Volume: a Spring properties file)", Class: ClassClue, Hops: 2,
			Problem: "fulfillment-service never becomes ready after the migration to the new cluster",
			Target:  target("Deployment", "fulfillment-service"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "fulfillment-config"}, Terms: []string{"fulfilment"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "fulfillment-config", map[string]string{"application.properties": "server.port=8080\nspring.datasource.url=jdbc:postgresql://fulfillment-db:5432/fulfilment\nspring.datasource.username=fulfillment\nspring.datasource.hikari.maximum-pool-size=10\nspring.jpa.hibernate.ddl-auto=validate\nmanagement.endpoint.health.probes.enabled=true\ncarrier.dhl.base-url=https://api-eu.dhl.com\n"})
					},
					func() error {
						return e.createSecret(ctx, "fulfillment-db-credentials", map[string]string{"POSTGRES_PASSWORD": "Fq2mW8zr4Tkc", "SPRING_DATASOURCE_PASSWORD": "Fq2mW8zr4Tkc"})
					},
					func() error {
						st := w8bStatefulSet("fulfillment-db", "postgres:16.4", "fulfillment-db", 1, fulfillmentDB, nil, "postgres", 5432)
						w8bEnv(&st.Spec.Template, "POSTGRES_DB", "fulfillment", "POSTGRES_USER", "fulfillment")
						envKeyFromSecret(&st.Spec.Template, "POSTGRES_PASSWORD", "fulfillment-db-credentials", "POSTGRES_PASSWORD")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("fulfillment-db", fulfillmentDB, "postgres", 5432))
					},
					func() error {
						d := w11bApp("fulfillment-service", "app", "registry.example/logistics/fulfillment-service:2.6.0", 2, fulfillment, crash("1", "", "w11b-fulfillment-spring-db-missing"), "http", 8080)
						mountConfigMap(&d.Spec.Template, "fulfillment-config", "/config")
						w8bEnv(&d.Spec.Template, "SPRING_CONFIG_ADDITIONAL_LOCATION", "file:/config/")
						envKeyFromSecret(&d.Spec.Template, "SPRING_DATASOURCE_PASSWORD", "fulfillment-db-credentials", "SPRING_DATASOURCE_PASSWORD")
						w8bReadiness(&d.Spec.Template, "/actuator/health/readiness", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.w11bServe(ctx, w11bApp("carrier-gateway", "gateway", "registry.example/logistics/carrier-gateway:1.3.1", 1, w8bLabels("carrier-gateway", "logistics"), nil, "http", 8080), 80)
					},
				)
			},
			Wait: all(podsWith(fulfillment, crashLooping(2)), w8cStatefulSetReady("fulfillment-db", 1)),
		},
		{
			// The master key went into the Secret under the file name Rails keeps it in;
			// envFrom turns that into a variable named master_key, not RAILS_MASTER_KEY.
			Name: "tracker-rails-master-key-unset", Covers: "tracker-web (Rails 7.1, require_master_key) exits on 'Missing encryption key to decrypt file with. Ask your team for your master key and write it to /rails/config/master.key or put it in the ENV['RAILS_MASTER_KEY'].'; Secret tracker-rails-secrets, loaded with envFrom, has the key master_key instead of RAILS_MASTER_KEY",
			Source: w11bSrcSecret + " (Using Secrets as environment variables: envFrom keys become variable names)", Class: ClassReference, Hops: 2,
			Problem: "support.example.com is down: tracker-web pods are in CrashLoopBackOff",
			Target:  target("Deployment", "tracker-web"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "tracker-rails-secrets"}, Terms: []string{"RAILS_MASTER_KEY"}},
			Setup: func(ctx context.Context, e *Env) error {
				pg := w8cLabels("app", "tracker-postgres", "tier", "db", "team", "support")
				return steps(
					func() error {
						return e.createSecret(ctx, "tracker-rails-secrets", map[string]string{"master_key": "9c4e1b7a2f6d8e03b5a7c9d1e2f4a6b8", "DATABASE_PASSWORD": "Tr4ck3r-Pg-55"})
					},
					func() error {
						return e.createConfigMap(ctx, "tracker-env", map[string]string{"RAILS_ENV": "production", "RAILS_LOG_TO_STDOUT": "1", "RAILS_SERVE_STATIC_FILES": "1",
							"DATABASE_HOST": "tracker-postgres", "DATABASE_USERNAME": "tracker", "WEB_CONCURRENCY": "2"})
					},
					func() error {
						return e.w11bStore(ctx, "tracker-postgres", "postgres:16.4", pg, nil, "postgres", 5432, "POSTGRES_DB", "tracker_production", "POSTGRES_USER", "tracker")
					},
					func() error {
						d := w11bApp("tracker-web", "web", "registry.example/support/tracker:2026.11.2", 2, tracker, crash("1", "", "w11b-tracker-rails-master-key"), "http", 3000)
						w8cArgs(&d.Spec.Template, "./bin/thrust", "./bin/rails", "server")
						envFromConfigMap(&d.Spec.Template, "tracker-env")
						envFromSecret(&d.Spec.Template, "tracker-rails-secrets")
						w8bReadiness(&d.Spec.Template, "/up", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("tracker-jobs", "jobs", "registry.example/support/tracker:2026.11.1", 1, w8cLabels("app", "tracker-jobs", "tier", "worker", "team", "support"), nil, "", 0)
						w8cArgs(&d.Spec.Template, "./bin/jobs")
						envFromConfigMap(&d.Spec.Template, "tracker-env")
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createIngress(ctx, w8cHostIngress("tracker-web", "support.example.com", "tracker-web", 80))
					},
				)
			},
			Wait: all(podsWith(tracker, crashLooping(2)), w8cStatefulSetReady("tracker-postgres", 1)),
		},
	}
}
