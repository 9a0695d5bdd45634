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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// A client's error about a dependency (credentials refused, a driver or URL scheme rejected,
// an option the server demands) names the client's own settings for that dependency, and
// their object is among the affected objects: that is where the address, scheme, option or
// user is changed, whatever the software and the spelling of the settings.
func TestConnectionSettingsNamed(t *testing.T) {
	secretEnv := func(env, secret, key string) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) {
			s.Containers[0].Env = append(s.Containers[0].Env, corev1.EnvVar{Name: env, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: key}}})
		}
	}
	secret := func(name string, keys ...string) *corev1.Secret {
		s := &corev1.Secret{ObjectMeta: fx.ConfigMap(ns, name).ObjectMeta, Data: map[string][]byte{}}
		for _, k := range keys {
			s.Data[k] = []byte("TOPSECRET-" + k)
		}
		return s
	}
	cases := []struct {
		name     string
		objs     func() []runtime.Object
		logs     logBook
		affected string
		terms    []string
		culprit  string // when set, the culprit too
	}{
		{name: "AMQP credentials refused: the broker URL in the ConfigMap the worker loads",
			objs: func() []runtime.Object {
				o := append(app("invoicer", 1, envFrom("invoicer-env"), crashing), app("mq", 1, nil, nil)...)
				return append(o, cmWith("invoicer-env", "BROKER_URL", "amqp://guest:guest@mq:5672//", "WORKERS", "4"), svcAt("mq", "10.96.0.50", map[string]string{"app": "mq"}, 5672), fx.Node("node-1"))
			},
			logs:     logBook{"invoicer-": "[2026-11-27 10:00:01,000: ERROR/MainProcess] consumer: Cannot connect to amqp://guest:**@mq:5672//: (403) ACCESS_REFUSED - Login was refused using authentication mechanism PLAIN.\n"},
			affected: "ConfigMap/invoicer-env", culprit: "ConfigMap/invoicer-env", terms: []string{"BROKER_URL = amqp://guest:***@mq:5672//", "user guest", "loopback_users"}},
		{name: "a SQL dialect the library no longer loads: the URL comes from a Secret key, named, never read",
			objs: func() []runtime.Object {
				o := app("pollster", 1, secretEnv("DB_URI", "pollster-db", "uri"), crashing)
				return append(o, secret("pollster-db", "uri"), fx.Node("node-1"))
			},
			logs:     logBook{"pollster-": "Traceback (most recent call last):\n  File \"/app/main.py\", line 9, in <module>\nsqlalchemy.exc.NoSuchModuleError: Can't load plugin: sqlalchemy.dialects:postgres\n"},
			affected: "Secret/pollster-db", terms: []string{"DB_URI in Secret pollster-db key uri", "postgresql://"}},
		{name: "a JDBC option the MySQL server demands: the driver named only in the stack frames",
			objs: func() []runtime.Object {
				o := app("ledger", 1, envFrom("ledger-runtime"), crashing)
				return append(o, cmWith("ledger-runtime", "JAVA_OPTS", "-Xmx512m", "SPRING_DATASOURCE_URL", "jdbc:mysql://ledger-db:3306/ledger?useSSL=false"), fx.Node("node-1"))
			},
			logs:     logBook{"ledger-": "Caused by: java.sql.SQLNonTransientConnectionException: Public Key Retrieval is not allowed\n\tat com.mysql.cj.jdbc.exceptions.SQLError.createSQLException(SQLError.java:111)\n\tat com.mysql.cj.jdbc.ConnectionImpl.createNewIO(ConnectionImpl.java:828)\n"},
			affected: "ConfigMap/ledger-runtime", terms: []string{"SPRING_DATASOURCE_URL = jdbc:mysql://ledger-db:3306/ledger?useSSL=false", "Public Key Retrieval", "allowPublicKeyRetrieval=true"}},
		{name: "MongoDB refuses a user created in admin: the URI, in a Secret, is named with the database users are looked up in",
			objs: func() []runtime.Object {
				o := append(app("stock", 1, secretEnv("MONGODB_URI", "stock-mongo", "uri"), crashing), app("mongo", 1, nil, nil)...)
				return append(o, secret("stock-mongo", "uri"), svcAt("mongo", "10.96.0.70", map[string]string{"app": "mongo"}, 27017), fx.Node("node-1"))
			},
			logs:     logBook{"stock-": "node:internal/process/promises:288\nMongoServerError: Authentication failed.\n    at Connection.onMessage (/app/node_modules/mongodb/lib/cmap/connection.js:207:30)\n"},
			affected: "Secret/stock-mongo", terms: []string{"MONGODB_URI", "authSource=admin"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := engine(tc.objs()...)
			e.Logs = tc.logs.source()
			c := drive(t, e, agent.Session{ID: "t", Problem: "it keeps failing", Namespace: ns})
			rc := c.RootCause
			t.Logf("%s on %s: %s", rc.Rule, rc.Culprit, rc.Summary)
			if tc.culprit != "" && rc.Culprit.Kind+"/"+rc.Culprit.Name != tc.culprit {
				t.Errorf("culprit %s, want %s", rc.Culprit, tc.culprit)
			}
			found := false
			for _, r := range rc.AffectedObjects {
				found = found || r.Kind+"/"+r.Name == tc.affected
			}
			if !found {
				t.Errorf("affectedObjects %v lack %s", rc.AffectedObjects, tc.affected)
			}
			for _, w := range tc.terms {
				if !strings.Contains(rc.Summary, w) {
					t.Errorf("summary lacks %q", w)
				}
			}
			if strings.Contains(rc.Summary, "TOPSECRET") {
				t.Errorf("a Secret value reached the summary: %s", rc.Summary)
			}
		})
	}
}
