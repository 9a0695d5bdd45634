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

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// A setting an error names in words is the env variable the container's own naming
// convention makes of it; with no shared prefix among its settings nothing is guessed.
func TestSettingInWordsFollowsTheEnvPrefix(t *testing.T) {
	objs := func(kv ...string) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("chat", 1, envFrom("chat-env"), crashing)
			return append(o, cmWith("chat-env", kv...), fx.Node("node-1"))
		}
	}
	log := logBook{"chat-": "chat 9.1 starting in production mode\nERROR: Failed to start the server\nERROR: license is not configured\n"}
	runDepCases(t, []depCase{
		{name: "MM_ settings, 'license is not configured'", problem: "chat is down after the move to production mode",
			objs: objs("MM_SQLSETTINGS_DRIVERNAME", "postgres", "MM_SERVICESETTINGS_LISTENADDRESS", ":8065", "MM_LOGSETTINGS_CONSOLELEVEL", "INFO"), logs: log,
			rule: "config-value-missing", culprit: "ConfigMap/chat-env", affected: []string{"Deployment/chat"},
			terms: []string{"MM_LICENSE", "chat-env"}},
	})
	e := engine(objs("DRIVER", "postgres", "LISTEN", ":8065", "LEVEL", "INFO")()...)
	e.Logs = log.source()
	if c := drive(t, e, sessionFor("chat is down")); c.RootCause.Rule == "config-value-missing" {
		t.Errorf("guessed a variable without a naming convention: %s", c.RootCause.Summary)
	}
}

// A phrase needle starts a word: "hostname resolution" is no DNS failure, and a line naming
// a setting no one provided is the error line.
func TestPhraseNeedleStartsAWord(t *testing.T) {
	if _, class := agent.ScoreLine("ERROR: Strict hostname resolution configured but no hostname setting provided"); class == agent.ErrDNS {
		t.Errorf("'hostname resolution' read as a name resolution failure")
	}
	if _, class := agent.ScoreLine("lookup db: Temporary failure in name resolution"); class != agent.ErrDNS {
		t.Errorf("name resolution failure not read as DNS: %v", class)
	}
	c := agent.ExtractClues([]string{"ERROR: Unexpected error when starting the server", "ERROR: Strict hostname resolution configured but no hostname setting provided"})
	if !contains(c.Keys, "hostname") || c.Class != agent.ErrConfig {
		t.Errorf("clue %q (%v) keys %v, want the setting line with key hostname", c.Line, c.Class, c.Keys)
	}
}
