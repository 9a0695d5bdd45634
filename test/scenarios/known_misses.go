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

// knownMisses are the tune-split scenarios the rule engine missed when the corpus was
// written, each with why in a line (pruned after three tune-split e2e runs of 2026-11-27 03:10–03:30 UTC). The e2e spec reports them and
// skips their assertion; delete a line once the engine hits, and the spec asserts it again.
// Held-out scenarios never appear here (TestCorpusShape checks it).
var knownMisses = map[string]string{
	// Wave 15 (three outside writers: clues in Go/Rust/.NET/PHP/Ruby/Node and infrastructure logs; multi-hop and
	// ranking Kubernetes faults; evidence in Kubernetes only and questions outside the catalogue), measured 2026-11-29
	// 09:52 UTC on c0eecc9 before any rule change: 6 of its 18 tune scenarios hit; all 18 hit after this session's work.
	// Wave 16 (two outside writers: incident tickets across stacks; platform components whose clue shows elsewhere),
	// measured 10:40 UTC on 5b6b778 (after the wave-15 work) before its rule changes: 3 of 12 tune scenarios hit. Still missed:
	"kibana-empty-since-search-upgrade":   "app-error-logged on DaemonSet fluent-bit; Elasticsearch 8's refusal of the _type parameter and Fluent Bit's Suppress_Type_Name option in ConfigMap fluent-bit-config are not known (measured 10:55 UTC)",
	"checkout-slo-board-not-in-grafana":   "no-problem-found: the dashboard sidecar's label value (grafana_dashboard \"true\" where it selects \"1\") is compared with nothing (measured 10:55 UTC)",
	"etl-runner-pending-pool-never-grows": "unschedulable-insufficient-resources on Deployment etl-runner; the cluster-autoscaler's 'max size reached' for its node group and its --nodes=1:1 argument are not read (measured 10:55 UTC)",
	// Wave 13 (two outside writers: clues in application logs; multi-hop Kubernetes faults), measured 2026-11-29
	// 06:40 UTC on 16340f0 before any rule change: 12 of its 25 tune scenarios hit; wave 14 (two outside writers:
	// events, conditions and specs; sidecar, provider and Running-but-erroring logs), measured 07:31 UTC on
	// 9a9da3f before its rule changes: 8 of 23. After this session's rule work these still miss:
	"analytics-clickhouse-networks-old-range": "dependency-auth-failed on Secret analytics-clickhouse (the client's words: 'Authentication failed: password is incorrect'); ClickHouse's own log says the address is not allowed (IP_ADDRESS_NOT_ALLOWED), set by <networks> in ConfigMap clickhouse-users, which no word of the log names (measured 08:01 UTC)",
	"airflow-sql-alchemy-conn-env-key-typo":   "crash-loop on Deployment airflow-scheduler quoting 'cannot use SQLite with the CeleryExecutor'; the misspelt key AIRFLOW__DATABASE__SQL_ALCHEMY_CON in ConfigMap airflow-env is not tied to the default it leaves in place (measured 08:01 UTC)",
	// Wave 12 (an outside writer: the dependency is the problem, and the platform around the app), measured
	// 2026-11-28 04:57 UTC on 7e3a3d6 before any rule change: 3 of its 11 tune scenarios hit in every asserted variant.
	// Wave 11a (an outside writer: the weekly failures, k8s debugging pages and runbooks) and wave 11b (an outside
	// writer: clues in applications' own log text), measured 2026-11-28 00:40–00:55 UTC on 1868f0d before any rule change.
	// Wave 9c (an outside writer: unused runbooks, data-store client issues), measured 2026-11-27 16:02–16:06 UTC on eafb5be.
	// Wave 9c, last two, measured 2026-11-27 16:34 UTC on eafb5be.
	// Wave 10a (an outside writer: public issues of widely used charts and operators, unused runbooks), measured 2026-11-27 21:58–21:59 UTC on 281bc15; the same seven miss on 8850bb2 (23:13 UTC).
	// Wave 8a (an outside writer's scenarios), measured 2026-11-27 12:54–13:05 UTC.
	// Wave 8b (GitHub issues and write-ups, an outside writer), first e2e run 2026-11-27 12:53 UTC.
	// Wave 8b, second half, first e2e run 2026-11-27 13:10 UTC.
	// Wave 8c (an outside writer's last batch of the day), measured 2026-11-27 13:50–14:00 UTC, again on main d4c50d6 at 14:29 UTC.
	// Wave 9a (public issues of widely deployed charts and operators, an outside writer), measured 2026-11-27 16:04–16:11 UTC on eafb5be.
	"acme-solver-blocked-by-namespace-policy": "ingress-tls-secret-missing on Secret shop-example-com-tls (a symptom); cert-manager's 'propagation check failed ... 504' and the NetworkPolicy allow-cert-manager that admits only cert-manager pods to the solver's port 8089 are not named (measured 16:27 UTC)",
	// Wave 9b (an outside writer's fresh batch), measured 2026-11-27 16:04–16:05 UTC on eafb5be.
	// Wave 9b (an outside writer's fresh batch), measured 2026-11-27 16:04–16:05 UTC on eafb5be, again (all 16) at 16:52 UTC.
	// Wave 9b, second half, measured 2026-11-27 16:32 UTC on eafb5be.
	"mysql-2-stale-claim-after-scale-up": "no-problem-found on Service mysql-read, targeted and target-less (measured 21:58 UTC after c1e4f0d; before it, pvc-storageclass-missing on StorageClass manual); mysql-2's 'Got fatal error 1236 ... Could not find first log file name' and the claim data-mysql-2 kept since the scale-down are not named",
	// Wave 7a (an outside writer's scenarios), first e2e run 2026-11-27 10:12–10:25 UTC.
	// Wave 10b (k8s-docs configuration pages, an outside writer), measured 2026-11-27 21:38 and 22:25 UTC on 281bc15; the same five miss on 8850bb2 (23:13 UTC).
	// Wave 17 (three outside writers: incident tickets; failure modes the Kubernetes docs describe; clues only in logs of
	// stacks the corpus lacked), measured 2026-11-29 13:30 UTC on dddcbc9: 5 of 21 tune scenarios hit target-less; 16 of 21
	// after this session's work (14:24 UTC, fa509ed). Still missed:
	"cart-service-pods-never-ready":          "config-setting-named on Deployment cart-service names another setting; that Akka's required-contact-point-nr of 3 exceeds the 2 replicas is not known (measured 14:24 UTC)",
	"quiz-players-see-different-scoreboards": "the denial in the static log names ServiceAccount quiz/quiz-live (the scenario's namespace is generated), so the Role is not evaluated; a Pending decoy wins target-less (measured 14:24 UTC)",
	"reviews-api-db-never-comes-up":          "target-less: pvc-storageclass-missing on StorageClass premium-rwo wins over the ResourceQuota that forbids claims of that class (targeted hits) (measured 14:24 UTC)",
	// Wave 18 (three outside writers: incident tickets; platform components and the teams depending on them; data stores
	// and queues seen from their clients), measured 2026-11-29 14:13 UTC on ef17f40 (engine f454584): 6 of 14 tune
	// scenarios hit target-less, the same 6 with the engine of the session's start (3921993). Not worked on except two:
	"bazel-cache-stuck-creating-on-nvme-node":  "volume-mount-failed ('PVC is not bound') on Deployment bazel-remote-cache; pvc-nodename-bypasses-scheduler (fa509ed, from this scenario) does not win in the e2e, unit-tested only (measured 14:24 UTC)",
	"catalog-api-mongo-no-primary-new-cluster": "crash-loop on Deployment catalog-api with Secret catalog-api-mongo-uri listed; the replicaSet=rs0 inside the URI is a Secret value, never read (measured 14:24 UTC)",
	"embeddings-api-lookups-time-out-new-pool": "targeted: dependency-unreachable on Service qdrant; the DaemonSet node-local-dns that does not tolerate the pool's taint is found target-less only (measured 14:24 UTC)",
	"payments-api-stuck-one-of-two-ready":      "readiness-probe-failing on Deployment payments-api; the sidecar's control-plane address mesh-xds:18000 and the egress policy that blocks it are not followed (measured 14:24 UTC)",
	"payments-kafka-produce-retries-forever":   "config-setting-named on the client; min.insync.replicas=3 above default.replication.factor=2 in ConfigMap kafka-broker-config is not compared (the catalogue compares it with the broker's replicas) (measured 14:24 UTC)",
	// Wave 19 (first run 17:57 UTC, engine 98718b5; 17:21 UTC full run, 09b0231).
	"billing-api-crashes-after-pw-rotation": "crash-loop on Deployment billing-api naming Secret billing-db-url; the '#' in the rotated password inside DATABASE_URL is a Secret value, never read (measured 17:21 UTC)",
	// Wave 20 (first run 17:30 UTC, engine 19168f3).
	"checkout-flag-flip-never-applied": "setting-switched-off; that Reloader in search mode reloads only for ConfigMaps annotated reloader.stakater.com/match is not known (measured 17:44 UTC)",
	"log-indices-never-pruned":         "job-backoff-limit on CronJob es-index-cleanup without the pod's text: its runs restart the pod in place and the Job controller deletes it when the run fails, so between runs no pod says 'exec: \"--config\": executable file not found' (hit at 17:44 UTC, missed in CI17 at 18:09 UTC: timing)",
	// Wave 21 (first run 20:38 UTC, engine 1fef97d).
	"ledger-live-balances-frozen": "image-pull-not-found on the unrelated Deployment ledger-pdf; both ledger pods are Ready, and Erlang's 'Invalid challenge reply' (a cookie mismatch) is not tied to the two workloads reading RELEASE_COOKIE from different keys (cookie, cookie-previous) of Secret ledger-erlang (measured 20:54 UTC)",
	// Wave 23 (first run 23:59 UTC, engine ec02f43; last run 00:30 UTC, engine bfe16a0).
	"signup-api-429-for-everyone":     "ingress-class-missing on IngressClass nginx (no IngressClass exists in the test cluster, a fault of its own); the single ValidationError naming Express's 'trust proxy' setting is not tied to TRUSTED_PROXY in ConfigMap signup-api-env, next to the TRUST_PROXY a working sibling sets (measured 00:30 UTC)",
	"loki-streams-missing-pod-labels": "app-error-logged on DaemonSet fluent-bit: 'could not get meta for POD' names no denial, so the ServiceAccount's bindings are not read, and ClusterRoleBinding fluent-bit binds the account of namespace kube-logging (measured 00:30 UTC)",
}
