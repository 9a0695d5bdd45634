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

// A server that cannot load its own certificate or key names the file; the Secret (or
// ConfigMap) mounted at that path is the culprit, whatever the server and the mount path.
func TestTLSMaterialFollowedToTheMountedObject(t *testing.T) {
	mount := func(kind, name, at string) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) {
			v := corev1.Volume{Name: "tls"}
			if kind == "Secret" {
				v.Secret = &corev1.SecretVolumeSource{SecretName: name}
			} else {
				v.ConfigMap = &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}
			}
			s.Volumes = append(s.Volumes, v)
			s.Containers[0].VolumeMounts = append(s.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "tls", MountPath: at, ReadOnly: true})
		}
	}
	cases := []depCase{
		{name: "nginx: key values mismatch on a kubernetes.io/tls Secret", problem: "edge answers connection refused since the renewal",
			objs: func() []runtime.Object {
				o := app("edge", 2, mount("Secret", "edge-cert", "/etc/ssl/edge"), crashing)
				return append(o, fx.Secret(ns, "edge-cert", "tls.crt", "tls.key"), fx.Node("node-1"))
			},
			logs: logBook{"edge-": "/docker-entrypoint.sh: Configuration complete; ready for start up\n2026/01/01 10:00:00 [emerg] 1#1: SSL_CTX_use_PrivateKey(\"/etc/ssl/edge/tls.key\") failed (SSL: error:05800074:x509 certificate routines::key values mismatch)\n"},
			rule: "tls-material-invalid", culprit: "Secret/edge-cert", affected: []string{"Deployment/edge"},
			terms: []string{"mismatch", "tls.key", "edge-cert"}},
		{name: "Go server: the key pair does not match", problem: "webhook-server crash-loops",
			objs: func() []runtime.Object {
				o := app("webhook-server", 1, mount("Secret", "webhook-serving", "/var/run/certs"), crashing)
				return append(o, fx.Secret(ns, "webhook-serving", "cert.pem", "key.pem"), fx.Node("node-1"))
			},
			logs: logBook{"webhook-server-": "I0101 10:00:00.000000       1 main.go:40] starting webhook server on :8443\nE0101 10:00:00.100000       1 main.go:52] failed to load key pair /var/run/certs/cert.pem /var/run/certs/key.pem: tls: private key does not match public key\n"},
			rule: "tls-material-invalid", culprit: "Secret/webhook-serving", affected: []string{"Deployment/webhook-server"},
			terms: []string{"do not belong", "webhook-serving"}},
		{name: "Envoy: a CA bundle in a ConfigMap that is no PEM", problem: "mesh gateway does not start",
			objs: func() []runtime.Object {
				o := app("mesh-gw", 1, mount("ConfigMap", "upstream-ca", "/etc/envoy/ca"), crashing)
				return append(o, cmWith("upstream-ca", "ca.crt", "not a certificate"), fx.Node("node-1"))
			},
			logs: logBook{"mesh-gw-": "[2026-01-01 10:00:00.000][1][info][main] initializing epoch 0\n[2026-01-01 10:00:00.010][1][critical][main] error initializing configuration '/etc/envoy/envoy.yaml': Failed to load certificate chain from /etc/envoy/ca/ca.crt, only PEM-formatted certificates are accepted\n"},
			rule: "tls-material-invalid", culprit: "ConfigMap/upstream-ca", affected: []string{"Deployment/mesh-gw"},
			terms: []string{"ca.crt", "cannot be loaded"}},
	}
	runDepCases(t, cases)
}
