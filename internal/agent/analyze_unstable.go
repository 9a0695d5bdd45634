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
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// A provider whose pods keep being restarted (crashes, OOM kills, liveness kills) is Ready
// between restarts, so its Service has endpoints at the moment the client is looked at;
// the clients still see resets, EOFs and refusals every few seconds. Such a provider is
// broken whatever the client's words, and its restarting pods are followed.

// unstableProvider reports the Service's restarting backends when there are any.
func (pc *podCheck) unstableProvider(ctx context.Context, d *depCheck, sref ObjectRef, head string, pods []*corev1.Pod, facts map[string]string) bool {
	e := pc.e
	var flapping []*corev1.Pod
	for _, p := range pods {
		if restartedRecently(p, e.now) {
			flapping = append(flapping, p)
		}
	}
	if len(flapping) == 0 {
		return false
	}
	var follow []ObjectRef
	for _, p := range representatives(flapping, 2) {
		follow = append(follow, e.ref("Pod", p.Name))
	}
	facts["restartingBackends"] = fmt.Sprint(len(flapping))
	d.report(ctx, "dependency-unreachable", 0, sref, fmt.Sprintf("%s, whose backends keep being restarted (%d of %d pod(s) restarted recently after a failure): each restart drops the connections it serves.",
		head, len(flapping), len(pods)), follow, append([]ObjectRef{sref}, follow...), facts)
	return true
}
