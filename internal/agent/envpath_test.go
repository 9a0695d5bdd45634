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
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// A setting whose value is a file path inside a ConfigMap or Secret volume the container
// mounts is checked like a path on its command line: when the object has no key by that
// name, the key it has and the setting that names the other are the fix, even when the
// application's error names no path at all.
func TestEnvPathIntoMountedObject(t *testing.T) {
	vol := func(name, path string, src corev1.VolumeSource) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) {
			s.Volumes = append(s.Volumes, corev1.Volume{Name: name, VolumeSource: src})
			s.Containers[0].VolumeMounts = append(s.Containers[0].VolumeMounts, corev1.VolumeMount{Name: name, MountPath: path, ReadOnly: true})
		}
	}
	both := func(fs ...func(*corev1.PodSpec)) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) {
			for _, f := range fs {
				f(s)
			}
		}
	}
	runDepCases(t, []depCase{
		{name: "a cloud SDK's credentials file named by env, the Secret holds it under another key", problem: "exporter keeps crashing",
			objs: func() []runtime.Object {
				o := app("exporter", 1, both(withEnv("GOOGLE_APPLICATION_CREDENTIALS", "/var/secrets/google/key.json"),
					vol("gcp", "/var/secrets/google", corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "gcs-writer"}})), crashing)
				sec := &corev1.Secret{ObjectMeta: fx.ConfigMap(ns, "gcs-writer").ObjectMeta, Data: map[string][]byte{"credentials.json": []byte("TOPSECRET")}}
				return append(o, sec, fx.Node("node-1"))
			},
			logs: logBook{"exporter-": "2026/11/27 10:00:00 storage.NewClient: google: could not find default credentials. See https://cloud.google.com/docs/authentication/external/set-up-adc for more information\n"},
			rule: "config-file-missing", culprit: "Secret/gcs-writer", affected: []string{"Deployment/exporter"},
			terms: []string{"/var/secrets/google/key.json", "credentials.json"}},
		{name: "a config path in env names a file the mounted ConfigMap spells otherwise; the log is unreadable", problem: "catalog does not start",
			objs: func() []runtime.Object {
				o := app("catalog", 1, both(withEnv("NODE_ENV", "production", "CATALOG_CONFIG", "/srv/config/catalog.yaml"),
					vol("cfg", "/srv/config", corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "catalog-files"}}})), crashing)
				return append(o, cmWith("catalog-files", "catalog.yml", "port: 8080\n"), fx.Node("node-1"))
			},
			rule: "config-file-missing", culprit: "ConfigMap/catalog-files", affected: []string{"Deployment/catalog"},
			terms: []string{"/srv/config/catalog.yaml", "catalog.yml"}},
	})
}
