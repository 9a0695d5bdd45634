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
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// An env var the downward API fills with the container's own limit, read in another unit
// than its divisor gives: named in megabytes, used as $(VAR)m on a JVM command line, or
// counted in millicores; with and without a log to read.
func TestDownwardAPIUnitMismatch(t *testing.T) {
	withResource := func(env, field, divisor, limit string, args ...string) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) {
			c := &s.Containers[0]
			ref := &corev1.ResourceFieldSelector{Resource: field}
			if divisor != "" {
				ref.Divisor = resource.MustParse(divisor)
			}
			c.Env = append(c.Env, corev1.EnvVar{Name: env, ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: ref}})
			name := corev1.ResourceMemory
			if field == "limits.cpu" || field == "requests.cpu" {
				name = corev1.ResourceCPU
			}
			c.Resources.Limits = corev1.ResourceList{name: resource.MustParse(limit)}
			c.Resources.Requests = corev1.ResourceList{name: resource.MustParse(limit)}
			c.Args = args
		}
	}
	cases := []depCase{
		{name: "a JVM heap flag built from limits.memory in bytes", problem: "the indexer keeps restarting",
			objs: func() []runtime.Object {
				return append(app("indexer", 1, withResource("JVM_HEAP", "limits.memory", "", "2Gi", "java", "-Xmx$(JVM_HEAP)m", "-jar", "/srv/indexer.jar"), crashing), fx.Node("node-1"))
			},
			logs: logBook{"indexer-": "starting indexer\nError occurred during initialization of VM\nCould not reserve enough space for 2199023255552KB object heap\n"},
			rule: "resource-env-unit-mismatch", culprit: "Deployment/indexer", terms: []string{"JVM_HEAP", "divisor", "2147483648", "$(JVM_HEAP)m"}},
		{name: "a name in megabytes from requests.memory, no log readable", problem: "cache pods crash",
			objs: func() []runtime.Object {
				return append(app("cache", 1, withResource("CACHE_SIZE_MB", "requests.memory", "1", "512Mi"), crashing), fx.Node("node-1"))
			},
			logs: nil, rule: "resource-env-unit-mismatch", culprit: "Deployment/cache", terms: []string{"CACHE_SIZE_MB", "divisor"}},
		{name: "a CPU budget in millicores from limits.cpu in cores", problem: "workers exit at start",
			objs: func() []runtime.Object {
				return append(app("workers", 1, withResource("WORKER_MILLICORES", "limits.cpu", "", "500m"), crashing), fx.Node("node-1"))
			},
			logs: logBook{"workers-": "FATAL worker budget 1 millicores is below the minimum of 100\n"},
			rule: "resource-env-unit-mismatch", culprit: "Deployment/workers", terms: []string{"WORKER_MILLICORES", "millicores", "divisor"}},
		{name: "the divisor matches the name: no unit mismatch", problem: "the indexer keeps restarting",
			objs: func() []runtime.Object {
				return append(app("indexer", 1, withResource("HEAP_MB", "limits.memory", "1Mi", "2Gi", "java", "-Xmx$(HEAP_MB)m"), crashing), fx.Node("node-1"))
			},
			logs: logBook{"indexer-": "Exception in thread \"main\" java.lang.IllegalStateException: index directory is locked\n"},
			rule: "crash-loop", culprit: "Deployment/indexer"},
	}
	runDepCases(t, cases)
}
