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

	"k8s.io/apimachinery/pkg/util/intstr"
)

// Class 3 as applications really write it: the error line has company. A termination
// message that says only "see the logs", or a stack trace and shutdown chatter after the
// error, must not hide the line that names the dependency.

func noiseScenarios() []*Scenario {
	return []*Scenario{
		{
			// determine-reason-pod-failure: "information that you put in a termination message
			// should also be written to the general Kubernetes logs" — here only the log has it.
			Name: "ledger-generic-termination-message", Covers: "crash whose termination message is a generic 'fatal error, see logs'; the log names a misspelt host from a ConfigMap",
			Source: srcPodFailure, Class: ClassClue, Hops: 2,
			Problem: "ledger-api keeps restarting", Target: target("Deployment", "ledger-api"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "ledger-config"}, Terms: []string{"ledger-postgress"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "ledger-postgres", "postgres:16", 5432, 5432) },
					func() error {
						return e.createConfigMap(ctx, "ledger-config", map[string]string{"DB_HOST": "ledger-postgress", "DB_NAME": "ledger", "POOL_SIZE": "10"})
					},
					func() error {
						d := deployment("ledger-api", "example/ledger-api:4.2", 1, crash("1",
							"fatal error during startup; see the container log for details", "ledger-generic-termination"))
						envFromConfigMap(&d.Spec.Template, "ledger-config")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("ledger-api", crashLooping(1)),
		},
		{
			// KubePodCrashLooping runbook: read the previous container's log; a JVM prints the
			// error once and then a long stack trace and its shutdown hooks.
			Name: "search-indexer-error-before-stacktrace", Covers: "crash whose error line is followed by 80 lines of stack trace; the Service it calls selects no pod",
			Source: srcCrashLoop, Class: ClassClue, Hops: 2,
			Problem: "search-indexer is crash looping", Target: target("Deployment", "search-indexer"),
			Want: Want{Culprit: Ref{Kind: "Service", Name: "search-es"}, Terms: []string{"search-es"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createDeployment(ctx, deployment("elastic", "elasticsearch:8.13", 1, nil)) },
					// The Service selects app=elasticsearch; the pods are labelled app=elastic.
					func() error {
						return e.createServiceOn(ctx, "search-es", "elasticsearch", 9200, intstr.FromString("http"))
					},
					func() error {
						d := deployment("search-indexer", "example/search-indexer:2.7", 1, crash("1", "", "search-indexer-stacktrace"))
						return e.createDeployment(ctx, env(d, "ES_URL", "http://search-es:9200"))
					},
				)
			},
			Wait: anyPod("search-indexer", crashLooping(1)),
		},
	}
}
