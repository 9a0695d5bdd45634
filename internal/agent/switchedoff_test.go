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

// A Ready worker whose configuration switches its work off, and whose log says so at warning
// level, is a finding on the setting; a switch its log never mentions, or one that is on, is not.
func TestSettingSwitchedOff(t *testing.T) {
	idle := `{"level":"info","msg":"connected to broker","host":"rabbitmq:5672"}` + "\n" +
		`{"level":"warn","logger":"worker","msg":"consumers disabled by configuration, not subscribing to any queue"}` + "\n" +
		strings.Repeat(`{"level":"warn","logger":"worker","msg":"idle: 0 consumers running","queue":"email.send","queue_depth":4180}`+"\n", 4)
	worker := func(value string) func() []runtime.Object {
		return func() []runtime.Object {
			return append(app("worker", 1, envFrom("worker-env"), nil),
				cmWith("worker-env", "AMQP_URL", "amqp://rabbitmq:5672/notifications", "CONSUMERS_ENABLED", value, "BETA_UI_ENABLED", "false"), fx.Node("node-1"))
		}
	}
	problem := "customers stopped getting emails; the worker pods are Running and Ready"
	runDepCases(t, []depCase{
		{name: "the log says the consumers are disabled", problem: problem, objs: worker("false"), logs: logBook{"worker-": idle},
			rule: "setting-switched-off", culprit: "ConfigMap/worker-env", terms: []string{"CONSUMERS_ENABLED", "idle: 0 consumers running"}},
		{name: "a switch that is on is no finding", problem: problem, objs: worker("true"), logs: logBook{"worker-": idle}, rule: "no-problem-found"},
		{name: "an off switch the log never mentions is no finding", problem: problem, objs: worker("false"),
			logs: logBook{"worker-": strings.Repeat(`{"level":"info","msg":"processed","queue":"email.send"}`+"\n", 5)}, rule: "no-problem-found"},
	})
}
