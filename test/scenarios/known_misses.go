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
// written, each with why in a line (pruned after the e2e run of 2026-11-25 13:05 UTC). The e2e spec reports them and
// skips their assertion; delete a line once the engine hits, and the spec asserts it again.
// Held-out scenarios never appear here (TestCorpusShape checks it).
var knownMisses = map[string]string{
	// Class 1: no "explains" relation between findings.
	"insufficient-cpu":                  "ranked another scenario's node under MemoryPressure above the pod's own 16-CPU request (rule check; recheck after e7c8b4f)",
	"quota-blocks-hpa-scale-up":         "targeted: the HPA's metrics error wins over the pods ResourceQuota again; hit at 565a2ac, missed at 8cd4463",
	"postgres-oom-takes-down-consumers": "target-less depends on timing (missed in 1 of 4 runs: which pod is between crashes when the scan runs); keep reported until stable",

	// Class 2: consumers are not followed to their providers.
	"api-postgres-crashing": "stops at the consumer's readiness; does not follow DATABASE_URL (postgres-0.postgres) to the crash-looping StatefulSet",

	// Class 5: the summary lacks the mechanism's numbers or the container's own error.
	"cronjob-job-crash":            "the summary omits the container's own error text (template not found)",
	"pool-cpu-requests-overcommit": "the summary omits the per-pod request (1500m) against the pool node's 4 CPU",

	// Class 6: outside the catalogue.
	"rbac-role-lacks-list":         "target-less: a problem text naming the account is not turned into an RBAC question (targeted hits)",
	"controller-forbidden-in-logs": "quotes the forbidden error but names no Role: the bound Role lacks list on configmaps",
}
