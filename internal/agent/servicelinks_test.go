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
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// A Service link variable the kubelet did not set (REDIS_SERVICE_HOST, CACHE_PORT_6379_TCP_ADDR)
// is explained by why it did not: links disabled, no such Service, or a Service younger than
// the container.
func TestServiceLinkVariables(t *testing.T) {
	cluster := func(spec func(*corev1.PodSpec), svcName string, svcAge time.Duration) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("worker", 1, spec, crashing)
			o = append(o, app("cache", 1, nil, nil)...)
			s := svcAt(svcName, "10.96.6.6", map[string]string{"app": "cache"}, 6379)
			s.CreationTimestamp = fx.Ago(svcAge)
			return append(o, s, fx.Node("node-1"))
		}
	}
	noLinks := func(s *corev1.PodSpec) { s.EnableServiceLinks = fx.Ptr(false) }
	cases := []depCase{
		{name: "enableServiceLinks false, Python KeyError", problem: "worker keeps crashing",
			objs: cluster(noLinks, "redis", 48*time.Hour),
			logs: logBook{"worker-": "Traceback (most recent call last):\n  File \"/app/worker.py\", line 9, in <module>\n    host = os.environ['REDIS_SERVICE_HOST']\nKeyError: 'REDIS_SERVICE_HOST'\n"},
			rule: "config-value-missing", culprit: "Deployment/worker", terms: []string{"enableServiceLinks", "REDIS_SERVICE_HOST"}},
		{name: "Docker-link style variable of a Service that does not exist", problem: "worker keeps crashing",
			objs: cluster(nil, "sessions-cache", 48*time.Hour),
			logs: logBook{"worker-": "FATAL config: SESSION_CACHE_PORT_6379_TCP_ADDR is not set\n"},
			rule: "config-value-missing", culprit: "Service/session-cache", affected: []string{"Deployment/worker"}, terms: []string{"sessions-cache"}},
		{name: "Service created after the container started", problem: "worker keeps crashing",
			objs: cluster(nil, "redis", 5*time.Minute),
			logs: logBook{"worker-": "panic: REDIS_SERVICE_PORT must be set\n"},
			rule: "config-value-missing", culprit: "Deployment/worker", affected: []string{"Service/redis"}, terms: []string{"after pod", "rollout restart"}},
	}
	runDepCases(t, cases)
}

// A Service named like the prefix of the application's settings injects NAME_PORT=tcp://IP:PORT,
// which the application reads as its own port setting.
func TestServiceLinkCollision(t *testing.T) {
	cluster := func(spec func(*corev1.PodSpec), extra ...runtime.Object) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("worker", 1, spec, crashing)
			o = append(o, app("cache", 1, nil, nil)...)
			return append(append(o, svcAt("redis-master", "10.96.5.1", map[string]string{"app": "cache"}, 6379), svcAt("redis", "10.96.5.2", map[string]string{"app": "cache"}, 6379),
				svcAt("api", "10.96.5.9", map[string]string{"app": "cache"}, 8080), fx.Node("node-1")), extra...)
		}
	}
	cases := []depCase{
		{name: "Python int() of REDIS_PORT, IP not the Service's", problem: "worker crash-loops after the release",
			objs: cluster(envFrom("worker-env"), cmWith("worker-env", "REDIS_HOST", "redis-master", "DJANGO_SETTINGS_MODULE", "app.settings")),
			logs: logBook{"worker-": "Traceback (most recent call last):\n  File \"/app/settings.py\", line 187, in <module>\n    REDIS_PORT = int(os.environ.get(\"REDIS_PORT\", \"6379\"))\nValueError: invalid literal for int() with base 10: 'tcp://10.96.143.27:6379'\n"},
			rule: "service-link-collision", culprit: "Deployment/worker", affected: []string{"Service/redis"}, terms: []string{"REDIS_PORT", "enableServiceLinks"}},
		{name: "Node parseInt of API_PORT, the Service's own IP", problem: "worker crash-loops",
			objs: cluster(withEnv("API_HOST", "api")),
			logs: logBook{"worker-": "RangeError [ERR_SOCKET_BAD_PORT]: options.port should be >= 0 and < 65536. Received type string ('tcp://10.96.5.9:8080').\n"},
			rule: "service-link-collision", culprit: "Deployment/worker", affected: []string{"Service/api"}, terms: []string{"API_PORT"}},
	}
	runDepCases(t, cases)
}
