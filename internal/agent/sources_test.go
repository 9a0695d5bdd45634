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

	fx "github.com/kubage/kubage/test/fixtures"
)

// A container failing on an error nothing in the cluster explains is answered with where its
// settings come from: the ConfigMaps and Secrets it reads, after the workload, and the
// setting whose words come closest to the error.
func TestUnexplainedErrorNamesTheSettingsItReads(t *testing.T) {
	withSources := func(p *corev1.PodSpec) {
		c := &p.Containers[0]
		c.EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "ledger-env"}}}}
		c.Env = []corev1.EnvVar{{Name: "SIGNING_KEY", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "ledger-keys"}, Key: "signing-key"}}}}
		c.VolumeMounts = []corev1.VolumeMount{{Name: "rules", MountPath: "/etc/ledger"}}
		p.Volumes = []corev1.Volume{{Name: "rules", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "ledger-rules"}}}}}
	}
	objs := func() []runtime.Object {
		o := app("ledger", 1, withSources, crashing)
		return append(o, cmWith("ledger-env", "LEDGER_REGION", "eu-west", "LOG_FORMAT", "json"),
			cmWith("ledger-rules", "rounding.yaml", "rounding_mode: bankers\nscale: 4\n"),
			fx.Secret(ns, "ledger-keys", "signing-key"), fx.Node("node-1"))
	}
	line := "INFO starting ledger 4.2\nFATAL unsupported rounding for bankers: the ledger cannot post entries\nINFO shutting down\n"
	runDepCases(t, []depCase{
		{name: "crash loop: the sources after the workload, the closest setting named", problem: "ledger keeps restarting",
			objs: objs, logs: logBook{"ledger-": line},
			rule: "crash-loop", culprit: "Deployment/ledger",
			affected: []string{"ConfigMap/ledger-env", "ConfigMap/ledger-rules", "Secret/ledger-keys"},
			terms:    []string{"rounding_mode = bankers", "LEDGER_REGION", "signing-key", "values not read", "rounding.yaml"}},
	})
	// The Secret's value is never read into the answer.
	e := engine(objs()...)
	e.Logs = logBook{"ledger-": line}.source()
	rc := drive(t, e, sessionFor("ledger keeps restarting")).RootCause
	if got := rc.AffectedObjects; len(got) == 0 || got[0].Kind != "Deployment" {
		t.Errorf("the workload must lead; got %v", got)
	}
	if strings.Contains(rc.Summary, "c2lnbmluZy1rZXk") || strings.Contains(rc.Summary, "signing-key-value") {
		t.Errorf("a Secret value leaked: %s", rc.Summary)
	}
}

// When a check names the cause, the configuration the container reads is not listed: it
// would only dilute a proven answer.
func TestExplainedErrorListsNoSources(t *testing.T) {
	objs := func() []runtime.Object {
		o := app("web", 1, envFrom("web-config"), crashing)
		return append(o, cmWith("web-config", "DB_HOST", "pg-primary", "LOG_FORMAT", "json"), fx.Node("node-1"))
	}
	e := engine(objs()...)
	e.Logs = logBook{"web-": "ERROR cannot open database err=\"dial tcp: lookup pg-primary on 10.96.0.10:53: no such host\"\n"}.source()
	rc := drive(t, e, sessionFor("web keeps crashing")).RootCause
	if rc.Rule != "dependency-host-unknown" {
		t.Fatalf("rule %s, want dependency-host-unknown: %s", rc.Rule, rc.Summary)
	}
	if strings.Contains(rc.Summary, "check these first") {
		t.Errorf("a proven cause was diluted with the settings' sources: %s", rc.Summary)
	}
}
