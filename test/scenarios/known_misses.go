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
	// Wave 8a (an outside writer's scenarios), measured 2026-11-27 12:54–13:05 UTC.
	// Wave 8b (GitHub issues and write-ups, an outside writer), first e2e run 2026-11-27 12:53 UTC.
	// Wave 8b, second half, first e2e run 2026-11-27 13:10 UTC.
	// Wave 8c (an outside writer's last batch of the day), measured 2026-11-27 13:50–14:00 UTC, again on main d4c50d6 at 14:29 UTC.
	// Wave 7a (an outside writer's scenarios), first e2e run 2026-11-27 10:12–10:25 UTC.
}
