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
	// Wave 7a (an outside writer's scenarios), first e2e run 2026-11-27 10:12–10:25 UTC.
	"fraud-scorer-dnspolicy-default":      "quotes the 'lookup risk-rules on 192.168.10.2:53: no such host' line but blames Service risk-rules as answering with errors (dependency-unreachable); the pod's dnsPolicy Default is not mentioned",
	"storefront-rails-pool-below-threads": "app-error-logged on Deployment storefront quoting a FATAL header line that holds only the request id; the ConnectionTimeoutError and the ConfigMap's pool: 5 are not named",
}
