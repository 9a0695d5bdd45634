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

package agent

import (
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// defaultContainerAnnotation names the container kubectl logs and exec pick by default.
const defaultContainerAnnotation = "kubectl.kubernetes.io/default-container"

// helperWords mark containers that serve the application rather than being it: meshes,
// secret agents, reloaders, exporters, log shippers.
var helperWords = []string{"proxy", "envoy", "istio", "linkerd", "vault-agent", "-agent", "reloader", "exporter", "metrics",
	"fluent", "filebeat", "promtail", "oauth2", "sidecar", "logger", "log-shipper", "log-forwarder"}

// logOrder lists a pod's containers in the order their logs are worth reading: the one the
// problem or the default-container annotation names, then the application's own, then the
// helpers around it (a mesh proxy or a secret agent first in the spec must not use up the
// reads).
func (e *env) logOrder(pod *corev1.Pod) []corev1.ContainerStatus {
	forms := mentionForms(e.s.Problem, e.s.Hints)
	def := pod.Annotations[defaultContainerAnnotation]
	images := map[string]string{}
	for _, c := range pod.Spec.Containers {
		images[c.Name] = c.Image
	}
	rank := func(cs corev1.ContainerStatus) int {
		switch {
		case forms[strings.ToLower(cs.Name)] >= mentionExact && len(pod.Status.ContainerStatuses) > 1:
			return 0
		case cs.Name == def:
			return 1
		case helperContainer(cs.Name, images[cs.Name]):
			return 3
		}
		return 2
	}
	out := append([]corev1.ContainerStatus(nil), pod.Status.ContainerStatuses...)
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i]) < rank(out[j]) })
	return out
}

// helperContainer reports a container whose name or image says it is a helper.
func helperContainer(name, image string) bool {
	n := strings.ToLower(name)
	img := strings.ToLower(image)
	if i := strings.LastIndexByte(img, '/'); i >= 0 {
		img = img[i+1:]
	}
	for _, w := range helperWords {
		if strings.Contains(n, w) || strings.Contains(img, w) {
			return true
		}
	}
	return false
}
