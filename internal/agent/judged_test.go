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

package agent_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// A Ready client that says a provider's value is wrong ("Eviction policy is allkeys-lru. It
// should be noeviction") is answered with the provider's configuration that holds it: the Redis
// it is configured to call, not another Redis with the same line.
func TestJudgedValueInProviderConfig(t *testing.T) {
	objs := func() []runtime.Object {
		o := app("worker", 1, withEnv("QUEUE_REDIS_URL", "redis://queue-redis:6379/0"), nil)
		o = append(o, app("queue-redis", 1, mountCM("queue-redis-config", "/usr/local/etc/redis"), nil)...)
		o = append(o, app("cache-redis", 1, mountCM("cache-redis-config", "/usr/local/etc/redis"), nil)...)
		return append(o,
			cmWith("queue-redis-config", "redis.conf", "port 6379\nmaxmemory 256mb\nmaxmemory-policy allkeys-lru\n"),
			cmWith("cache-redis-config", "redis.conf", "port 6379\nmaxmemory 512mb\nmaxmemory-policy allkeys-lru\n"),
			svcAt("queue-redis", "10.96.3.1", map[string]string{"app": "queue-redis"}, 6379),
			svcAt("cache-redis", "10.96.3.2", map[string]string{"app": "cache-redis"}, 6379), fx.Node("node-1"))
	}
	log := "LOG [QueueConfig] connecting to redis://queue-redis:6379/0\n" + strings.Repeat("IMPORTANT! Eviction policy is allkeys-lru. It should be \"noeviction\"\n", 3) +
		strings.Repeat("ERROR [EmailProcessor] job 48213 failed: Error: Missing key for job 48213. moveToFinished\n    at ScriptsError (/app/node_modules/bullmq/dist/cjs/classes/scripts.js:612:24)\n", 3)
	runDepCases(t, []depCase{
		{name: "BullMQ judges its Redis's eviction policy", problem: "emails get lost; the worker is Ready", objs: objs, logs: logBook{"worker-": log},
			rule: "config-value-rejected", culprit: "ConfigMap/queue-redis-config", terms: []string{"noeviction", "allkeys-lru"}},
	})
}
