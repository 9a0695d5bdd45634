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
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// quietRun diagnoses objs target-less with container logs unreachable.
func quietRun(t *testing.T, objs []runtime.Object) agent.RootCause {
	t.Helper()
	e := agent.NewRuleEngine(fake.NewClientset(append(objs, fx.Node("node-1"))...))
	e.Now = func() time.Time { return fx.Now }
	e.Logs = logBook(nil).source()
	rc := drive(t, e, agent.Session{ID: "t", Problem: "web keeps failing", Namespace: ns}).RootCause
	t.Logf("%s on %s/%s: %s", rc.Rule, rc.Culprit.Kind, rc.Culprit.Name, rc.Summary)
	return rc
}

// Exit 127 without a word, and the script the command runs is not in the ConfigMap mounted
// where the command looks for it: that ConfigMap is the culprit.
func TestQuietCrashCommandFileMissingFromVolume(t *testing.T) {
	objs := app("web", 1, func(s *corev1.PodSpec) {
		s.Containers[0].Command = []string{"/bin/sh", "/opt/scripts/start.sh"}
		s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "scripts", MountPath: "/opt/scripts"}}
		s.Volumes = []corev1.Volume{{Name: "scripts", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-scripts"}}}}}
	}, func(p *corev1.Pod) { fx.CrashLoop(p, 127, "Error", 5) })
	objs = append(objs, cmWith("web-scripts", "start-v2.sh", "exec web"))
	rc := quietRun(t, objs)
	if rc.Rule != "config-file-missing" || rc.Culprit.Kind != "ConfigMap" || rc.Culprit.Name != "web-scripts" {
		t.Fatalf("want config-file-missing on ConfigMap web-scripts, got %s on %s/%s", rc.Rule, rc.Culprit.Kind, rc.Culprit.Name)
	}
	for _, w := range []string{"start.sh", "start-v2.sh", "127"} {
		if !strings.Contains(rc.Summary, w) {
			t.Errorf("summary lacks %q", w)
		}
	}
}

// A password from an optional Secret key that was renamed: the kubelet starts the container
// with the variable unset, and it exits 1 without a message.
func TestQuietCrashOptionalSecretKeyMissing(t *testing.T) {
	objs := app("web", 1, func(s *corev1.PodSpec) {
		s.Containers[0].Env = []corev1.EnvVar{{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "web-db"}, Key: "password", Optional: ptr.To(true)}}}}
	}, crashing)
	objs = append(objs, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "web-db", Namespace: ns}, Data: map[string][]byte{"pass": []byte("HUSH-HUSH")}})
	rc := quietRun(t, objs)
	if rc.Rule != "config-value-missing" || rc.Culprit.Kind != "Secret" || rc.Culprit.Name != "web-db" {
		t.Fatalf("want config-value-missing on Secret web-db, got %s on %s/%s", rc.Rule, rc.Culprit.Kind, rc.Culprit.Name)
	}
	if !strings.Contains(rc.Summary, "password") || !strings.Contains(rc.Summary, "optional") || strings.Contains(rc.Summary, "HUSH") {
		t.Errorf("summary: %s", rc.Summary)
	}
}

// Settings loaded with envFrom from an optional ConfigMap that does not exist.
func TestQuietCrashOptionalConfigMapAbsent(t *testing.T) {
	objs := app("web", 1, func(s *corev1.PodSpec) {
		s.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "web-settings"}, Optional: ptr.To(true)}}}
	}, crashing)
	rc := quietRun(t, objs)
	if rc.Rule != "config-value-missing" || rc.Culprit.Kind != "ConfigMap" || rc.Culprit.Name != "web-settings" {
		t.Fatalf("want config-value-missing on ConfigMap web-settings, got %s on %s/%s", rc.Rule, rc.Culprit.Kind, rc.Culprit.Name)
	}
}

// An optional reference that resolves is no suspect: the generic crash stays.
func TestQuietCrashOptionalReferencePresentIsNoCulprit(t *testing.T) {
	objs := app("web", 1, func(s *corev1.PodSpec) {
		s.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "web-settings"}, Optional: ptr.To(true)}}}
	}, crashing)
	objs = append(objs, cmWith("web-settings", "MODE", "prod"))
	rc := quietRun(t, objs)
	if rc.Culprit.Kind == "ConfigMap" {
		t.Fatalf("a ConfigMap that exists was blamed: %s", rc.Summary)
	}
}

// The log names the missing setting, and the container loads its settings from an optional
// ConfigMap that does not exist: that ConfigMap is the fault, not the workload's env.
func TestMissingSettingFromAbsentOptionalConfigMap(t *testing.T) {
	objs := app("web", 1, func(s *corev1.PodSpec) {
		s.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "web-settings"}, Optional: ptr.To(true)}}}
	}, crashing)
	e := agent.NewRuleEngine(fake.NewClientset(append(objs, fx.Node("node-1"))...))
	e.Now = func() time.Time { return fx.Now }
	e.Logs = logBook{"web-": "boot: reading settings\nFATAL: required setting MAPS_TILE_URL is not set\n"}.source()
	rc := drive(t, e, agent.Session{ID: "t", Problem: "web crashes", Namespace: ns, Target: deploy("web")}).RootCause
	t.Logf("%s on %s/%s: %s", rc.Rule, rc.Culprit.Kind, rc.Culprit.Name, rc.Summary)
	if rc.Rule != "config-value-missing" || rc.Culprit.Kind != "ConfigMap" || rc.Culprit.Name != "web-settings" || !strings.Contains(rc.Summary, "MAPS_TILE_URL") {
		t.Fatalf("want config-value-missing on ConfigMap web-settings naming MAPS_TILE_URL")
	}
}

// mountCM mounts ConfigMap name at dir in the first container.
func mountCM(name, dir string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		s.Volumes = []corev1.Volume{{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}}}
		s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "conf", MountPath: dir}}
	}
}

// A parse error naming a file its ConfigMap provides blames that ConfigMap, with where the
// content breaks; the same file is blamed when the container says nothing at all.
func TestConfigFileThatDoesNotParse(t *testing.T) {
	for _, msg := range []string{"", "load config: parse /etc/web/config.json: invalid character '}' looking for beginning of object key string"} {
		objs := app("web", 1, mountCM("web-config", "/etc/web"), func(p *corev1.Pod) {
			crashing(p)
			p.Status.ContainerStatuses[0].LastTerminationState.Terminated.Message = msg
		})
		objs = append(objs, cmWith("web-config", "config.json", "{\"smtp\": {\"host\": \"mail\",\n \"port\": 25,}}", "notes.txt", "{not json but not meant to be"))
		rc := quietRun(t, objs)
		if rc.Rule != "config-file-invalid" || rc.Culprit.Name != "web-config" || !strings.Contains(rc.Summary, "config.json") || !strings.Contains(rc.Summary, "line 2") {
			t.Errorf("message %q: want config-file-invalid on ConfigMap web-config naming config.json and line 2", msg)
		}
	}
}

// Valid files, and an error about something else, leave the ConfigMap alone.
func TestConfigFileThatParsesIsNoCulprit(t *testing.T) {
	objs := app("web", 1, mountCM("web-config", "/etc/web"), crashing)
	objs = append(objs, cmWith("web-config", "config.yaml", "smtp:\n  host: mail\n  port: 25\n", "broken.json", "{,}"))
	e := agent.NewRuleEngine(fake.NewClientset(append(objs, fx.Node("node-1"))...))
	e.Now = func() time.Time { return fx.Now }
	e.Logs = logBook{"web-": "FATAL: dial tcp 10.96.0.9:25: connect: connection refused\n"}.source()
	rc := drive(t, e, agent.Session{ID: "t", Problem: "web crashes", Namespace: ns, Target: deploy("web")}).RootCause
	if rc.Rule == "config-file-invalid" {
		t.Fatalf("a connection error blamed the ConfigMap's syntax: %s", rc.Summary)
	}
}

// A FailedMount message the parser does not know still fails on a reference: the Secret
// whose projected key is really missing is named.
func TestFailedMountOnAMissingProjectedKey(t *testing.T) {
	objs := app("web", 1, func(s *corev1.PodSpec) {
		s.Volumes = []corev1.Volume{{Name: "smtp", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName: "smtp-creds", Items: []corev1.KeyToPath{{Key: "password", Path: "pass"}}}}}}
		s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "smtp", MountPath: "/var/run/smtp"}}
	}, func(p *corev1.Pod) { fx.Waiting(p, "ContainerCreating", "") })
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok {
			objs = append(objs, fx.Event(ns, "Pod", p.Name, "Warning", "FailedMount", `MountVolume.SetUp failed for volume "smtp" : references non-existent secret key: password`, 8, time.Minute))
			break
		}
	}
	objs = append(objs, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "smtp-creds", Namespace: ns}, Data: map[string][]byte{"smtp-password": []byte("x")}}, fx.Node("node-1"))
	e := agent.NewRuleEngine(fake.NewClientset(objs...))
	e.Now = func() time.Time { return fx.Now }
	rc := drive(t, e, agent.Session{ID: "t", Problem: "web pods stay in ContainerCreating", Namespace: ns, Target: deploy("web")}).RootCause
	t.Logf("%s on %s/%s: %s", rc.Rule, rc.Culprit.Kind, rc.Culprit.Name, rc.Summary)
	if rc.Rule != "secret-key-missing" || rc.Culprit.Kind != "Secret" || rc.Culprit.Name != "smtp-creds" || !strings.Contains(rc.Summary, "password") {
		t.Fatalf("want secret-key-missing on Secret smtp-creds")
	}
}

// A subPath into a ConfigMap volume whose key was renamed: the kubelet cannot prepare the
// file, and the ConfigMap without that key is named.
func TestSubPathOnARenamedConfigMapKey(t *testing.T) {
	objs := app("web", 1, func(s *corev1.PodSpec) {
		mountCM("proxy-conf", "/etc/nginx/conf.d/default.conf")(s)
		s.Containers[0].VolumeMounts[0].SubPath = "default.conf"
	}, func(p *corev1.Pod) {
		fx.Waiting(p, "CreateContainerConfigError", `failed to prepare subPath for volumeMount "conf" of container "app"`)
	})
	objs = append(objs, cmWith("proxy-conf", "site.conf", "server {}"), fx.Node("node-1"))
	e := agent.NewRuleEngine(fake.NewClientset(objs...))
	e.Now = func() time.Time { return fx.Now }
	rc := drive(t, e, agent.Session{ID: "t", Problem: "web cannot start", Namespace: ns, Target: deploy("web")}).RootCause
	t.Logf("%s on %s/%s: %s", rc.Rule, rc.Culprit.Kind, rc.Culprit.Name, rc.Summary)
	if rc.Rule != "configmap-key-missing" || rc.Culprit.Name != "proxy-conf" || !strings.Contains(rc.Summary, "default.conf") {
		t.Fatalf("want configmap-key-missing on ConfigMap proxy-conf naming default.conf")
	}
}

// A CSI volume whose driver is not registered on the node names the DaemonSet that runs the
// driver's node plugin and why it runs none there; a DaemonSet of another plugin is not it.
func TestCSIDriverNotRegistered(t *testing.T) {
	objs := app("billing", 1, func(s *corev1.PodSpec) {
		s.Volumes = []corev1.Volume{{Name: "secrets", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "secrets-store.csi.k8s.io"}}}}
		s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "secrets", MountPath: "/mnt/secrets"}}
	}, func(p *corev1.Pod) { fx.Waiting(p, "ContainerCreating", "") })
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok {
			objs = append(objs, fx.Event(ns, "Pod", p.Name, "Warning", "FailedMount", `MountVolume.SetUp failed for volume "secrets" : kubernetes.io/csi: mounter.SetUpAt failed to get CSI client: driver name secrets-store.csi.k8s.io not found in the list of registered CSI drivers`, 8, time.Minute))
			break
		}
	}
	plugin := daemonSet("csi-secrets-store", func(d *appsv1.DaemonSet) {
		d.Spec.Template.Spec.Containers[0].Image = "registry.k8s.io/csi-secrets-store/driver:v1.4.6"
		d.Spec.Template.Spec.NodeSelector = map[string]string{"node-role.kubernetes.io/worker": "true"}
	})
	provider := daemonSet("vault-csi-provider", func(d *appsv1.DaemonSet) {
		d.Spec.Template.Spec.Containers[0].Image = "hashicorp/vault-csi-provider:1.5.0"
		d.Status.DesiredNumberScheduled, d.Status.NumberReady = 1, 1
	})
	objs = append(objs, plugin, provider, fx.Node("node-1"))
	e := agent.NewRuleEngine(fake.NewClientset(objs...))
	e.Now = func() time.Time { return fx.Now }
	rc := drive(t, e, agent.Session{ID: "t", Problem: "billing pods stay in ContainerCreating", Namespace: ns, Target: deploy("billing")}).RootCause
	if rc.Culprit.Kind != "DaemonSet" || rc.Culprit.Name != "csi-secrets-store" || !strings.Contains(rc.Summary, "nodeSelector node-role.kubernetes.io/worker=true matches no node") {
		t.Fatalf("got %s on %s/%s: %s", rc.Rule, rc.Culprit.Kind, rc.Culprit.Name, rc.Summary)
	}
}
