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

// An error that names the environment variable the way the code reads it (ENV['X'],
// process.env.X, os.Getenv("X")) names the missing setting; a key in the loaded ConfigMap or
// Secret that is the same name but for a prefix, case or separators is pointed out.
func TestMissingSettingNamedAsCodeReadsIt(t *testing.T) {
	cases := []depCase{
		{name: "Rails asks for ENV['RAILS_MASTER_KEY']; the second Secret it loads holds master_key", problem: "tracker is down",
			objs: func() []runtime.Object {
				o := app("tracker", 1, all(envFrom("tracker-env"), envFromSecret("tracker-db"), envFromSecret("tracker-app-secrets")), crashing)
				return append(o, fx.ConfigMap(ns, "tracker-env", "RAILS_ENV", "RAILS_LOG_TO_STDOUT"), fx.Secret(ns, "tracker-db", "DATABASE_PASSWORD"),
					fx.Secret(ns, "tracker-app-secrets", "master_key", "SMTP_PASSWORD"), fx.Node("node-1"))
			},
			logs: logBook{"tracker-": "=> Booting Puma\nrake aborted!\nActiveSupport::EncryptedFile::MissingKeyError: Missing encryption key to decrypt file with. Ask your team for your master key and put it in ENV[\"RAILS_MASTER_KEY\"]\n/usr/local/bundle/gems/activesupport-7.1.3/lib/active_support/encrypted_file.rb:113:in `handle_missing_key'\nTasks: TOP => db:prepare\n"},
			rule: "config-value-missing", culprit: "Secret/tracker-app-secrets",
			terms: []string{"RAILS_MASTER_KEY", "master_key"}},
		{name: "a Go service reads os.Getenv(\"SENTRY_DSN\"); the Secret it loads says sentry-dsn", problem: "alerts API restarts",
			objs: func() []runtime.Object {
				o := app("alerts-api", 1, envFromSecret("alerts-api-keys"), crashing)
				return append(o, fx.Secret(ns, "alerts-api-keys", "sentry-dsn", "pagerduty-token"), fx.Node("node-1"))
			},
			logs: logBook{"alerts-api-": "2026/01/01 10:00:00 starting alerts-api v2.3.1\n2026/01/01 10:00:00 fatal: telemetry: os.Getenv(\"SENTRY_DSN\") returned an empty string; refusing to start without error reporting\n"},
			rule: "config-value-missing", culprit: "Secret/alerts-api-keys",
			terms: []string{"SENTRY_DSN", "sentry-dsn"}},
		{name: "Node asks for process.env.STRIPE_API_KEY; the ConfigMap it loads spells it stripe-api-key", problem: "payments crash",
			objs: func() []runtime.Object {
				o := app("payments", 1, envFrom("payments-config"), crashing)
				return append(o, fx.ConfigMap(ns, "payments-config", "PORT", "stripe-api-key"), fx.Node("node-1"))
			},
			logs: logBook{"payments-": "Server starting\nError: Stripe is not configured: set process.env.STRIPE_API_KEY\n    at Object.<anonymous> (/app/src/stripe.js:12:9)\n"},
			rule: "config-value-missing", culprit: "ConfigMap/payments-config",
			terms: []string{"STRIPE_API_KEY", "stripe-api-key"}},
	}
	runDepCases(t, cases)
}

func TestNearKey(t *testing.T) {
	for _, tc := range []struct {
		want string
		keys []string
		near string
	}{
		{"RAILS_MASTER_KEY", []string{"database_url", "master_key"}, "master_key"},
		{"STRIPE_API_KEY", []string{"stripe-api-key"}, "stripe-api-key"},
		{"DB_PASSWORD_FILE", []string{"DB_USER", "DB_PASSWORD"}, "DB_PASSWORD"},
		{"REDIS_URL", []string{"REDIS_HOST", "URL"}, ""}, // too short, not a near name
		{"API_TOKEN", []string{"API_TOKEN"}, ""},         // the key itself is not a near key
		{"KEY", []string{"key"}, ""},
	} {
		if got := agent.NearKeyForTest(tc.want, tc.keys); got != tc.near {
			t.Errorf("nearKey(%s, %v) = %q, want %q", tc.want, tc.keys, got, tc.near)
		}
	}
}
