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
	"checkout-dashboards-no-data":         "app-error-logged on StatefulSet prometheus: the logged denial names ServiceAccount shop/prometheus (the log is static, the scenario's namespace generated), so the pod's own Role is not evaluated (measured 10:55 UTC)",
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
}
