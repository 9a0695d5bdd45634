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

package mcpserver_test

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sfake "k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/mcpserver"
	"github.com/kubage/kubage/internal/redact"
)

// Every credential format planted in a pod's annotations, termination message and Events stays
// out of what kubage mcp answers.
func TestToolOutputIsRedacted(t *testing.T) {
	ann := map[string]string{}
	var all []string
	for _, f := range redact.Formats {
		ann["example.com/"+f.Name] = f.Positive
		all = append(all, f.Positive)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "checkout-7d9f", Annotations: ann},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app",
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Message: strings.Join(all, "\n")}}}}}}
	objs := []runtime.Object{pod}
	for i, f := range redact.Formats {
		objs = append(objs, &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: fmt.Sprintf("checkout-7d9f.%d", i)},
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "shop", Name: "checkout-7d9f"},
			Type:           "Warning", Reason: "BackOff", Message: f.Positive, Count: 1, LastTimestamp: metav1.Now()})
	}
	hs := serve(t, mcpserver.Options{Clientset: k8sfake.NewClientset(objs...), DefaultNamespace: "shop"}, "s3cret")
	c := connect(t, hs.URL+"/mcp", "s3cret")
	out := text(call(t, c, "k8s_get", map[string]any{"kind": "pods", "name": "checkout-7d9f"})) +
		text(call(t, c, "k8s_describe", map[string]any{"kind": "pods", "name": "checkout-7d9f"})) +
		text(call(t, c, "k8s_events", map[string]any{"kind": "Pod", "name": "checkout-7d9f"}))
	if !strings.Contains(out, redact.Marker) {
		t.Fatalf("nothing was redacted; is the pod in the output?\n%s", out)
	}
	for _, probe := range []string{"Zq8mN3vR7tY1uI5o", "4f1c9e2b7a3d8e6f0b5c1a9d2e7f3b8c", "MIIEowIBAAKCAQEA", "AKIAZ7QX2RT6LM4PEW3D"} {
		if strings.Contains(out, probe) {
			t.Errorf("kubage mcp output holds %q", probe)
		}
	}
}
