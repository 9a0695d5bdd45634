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

package testcluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
)

// envHelper turns the test binary into a stand-in for kubage: it prints its args and chosen
// variables, sleeps or exits as the pod's env says.
const envHelper = "KUBELET_HARNESS_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(envHelper) == "1" {
		helperMain()
		return
	}
	os.Exit(m.Run())
}

func helperMain() {
	fmt.Printf("args=%s\n", strings.Join(os.Args[1:], " "))
	for _, name := range []string{"POD_NAME", "POD_NS", "OWNER", "FROM_CM", "GREETING", "KUBECONFIG"} {
		fmt.Printf("%s=%s\n", name, os.Getenv(name))
	}
	if kc := os.Getenv("KUBECONFIG"); kc != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", kc)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bad kubeconfig:", err)
			os.Exit(2)
		}
		fmt.Printf("token=%s\n", cfg.BearerToken)
	}
	if s := os.Getenv("SLEEP"); s != "" {
		d, _ := time.ParseDuration(s)
		time.Sleep(d)
	}
	code, _ := strconv.Atoi(os.Getenv("EXIT_CODE"))
	if code != 0 {
		fmt.Fprintln(os.Stderr, "helper failing as asked")
	}
	os.Exit(code)
}

func kwokNode() *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "kwok-node-0", Annotations: map[string]string{kwokNodeAnnotation: "fake"}},
		Status:     corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}}},
	}
}

func agentPod(name string, env []corev1.EnvVar, mutate ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "ns", UID: types.UID("uid-" + name),
			Labels: map[string]string{"kubage.io/component": "agent", "kubage.io/task-id": "t1"},
		},
		Spec: corev1.PodSpec{
			NodeName:           "kwok-node-0",
			ServiceAccountName: "kubage-agent",
			RestartPolicy:      corev1.RestartPolicyNever,
			Containers: []corev1.Container{{
				Name: "agent", Image: "kubage:dev",
				Command: []string{"/kubage", "agent", "task"},
				Args:    []string{"--owner=$(POD_NAME)"},
				Env: append([]corev1.EnvVar{
					{Name: envHelper, Value: "1"},
					{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
					{Name: "POD_NS", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
					{Name: "OWNER", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['kubage.io/task-id']"}}},
				}, env...),
			}},
		},
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

type harness struct {
	t       *testing.T
	client  *fake.Clientset
	kubelet *Kubelet
}

func startHarness(t *testing.T, identity Identity, objs ...runtime.Object) *harness {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	client := fake.NewClientset(append([]runtime.Object{kwokNode()}, objs...)...)
	client.PrependReactor("create", "serviceaccounts", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "token" {
			return false, nil, nil
		}
		tr := a.(k8stesting.CreateAction).GetObject().(*authenticationv1.TokenRequest)
		if tr.Spec.BoundObjectRef == nil || tr.Spec.BoundObjectRef.Kind != "Pod" {
			return true, nil, fmt.Errorf("token not bound to a pod")
		}
		out := tr.DeepCopy()
		out.Status.Token = "token-for-" + tr.Spec.BoundObjectRef.Name
		return true, out, nil
	})
	k, err := StartKubelet(context.Background(), KubeletOptions{
		Client:           client,
		RESTConfig:       &rest.Config{Host: "https://127.0.0.1:1", TLSClientConfig: rest.TLSClientConfig{CAData: []byte("ca"), CertData: []byte("cert"), KeyData: []byte("key")}},
		Binary:           exe,
		MaxConcurrent:    2,
		Identity:         identity,
		WorkDir:          t.TempDir(),
		PullBackOffDelay: 50 * time.Millisecond,
		Log:              testWriter{t},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := k.Stop(); err != nil {
			t.Error(err)
		}
		if n := k.Active(); n != 0 {
			t.Errorf("%d processes still tracked after Stop", n)
		}
	})
	return &harness{t: t, client: client, kubelet: k}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func (h *harness) create(p *corev1.Pod) {
	h.t.Helper()
	if _, err := h.client.CoreV1().Pods(p.Namespace).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
		h.t.Fatal(err)
	}
}

// waitPod polls the pod until cond holds (the harness works asynchronously).
func (h *harness) waitPod(name string, cond func(*corev1.Pod) bool) *corev1.Pod {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var last *corev1.Pod
	for time.Now().Before(deadline) {
		p, err := h.client.CoreV1().Pods("ns").Get(context.Background(), name, metav1.GetOptions{})
		if err == nil {
			last = p
			if cond(p) {
				return p
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.t.Fatalf("pod %s never reached the expected state; last status: %+v", name, last.Status)
	return nil
}

func (h *harness) waitRun(name string) PodRun {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, r := range h.kubelet.Runs() {
			if r.Name == name {
				return r
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.t.Fatalf("no run recorded for pod %s", name)
	return PodRun{}
}

func terminated(p *corev1.Pod) *corev1.ContainerStateTerminated {
	if len(p.Status.ContainerStatuses) != 1 {
		return nil
	}
	return p.Status.ContainerStatuses[0].State.Terminated
}

func TestKubeletRunsPodAsProcessAndReportsSuccess(t *testing.T) {
	h := startHarness(t, IdentityServiceAccount, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "cfg", Namespace: "ns"}, Data: map[string]string{"k": "from-configmap"},
	})
	h.create(agentPod("ok", []corev1.EnvVar{
		{Name: "FROM_CM", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}, Key: "k"}}},
		{Name: "GREETING", Value: "hello $(POD_NAME) $$(POD_NAME)"},
	}))
	p := h.waitPod("ok", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodSucceeded })
	term := terminated(p)
	if term == nil || term.ExitCode != 0 || term.Reason != "Completed" {
		t.Fatalf("want a Completed exit 0, got %+v", p.Status.ContainerStatuses)
	}
	if p.Status.StartTime == nil || p.Status.HostIP != "127.0.0.1" {
		t.Errorf("kubelet fields missing: startTime %v hostIP %q", p.Status.StartTime, p.Status.HostIP)
	}
	run := h.waitRun("ok")
	for _, want := range []string{
		"args=agent task --owner=ok",
		"POD_NAME=ok", "POD_NS=ns", "OWNER=t1", "FROM_CM=from-configmap",
		"GREETING=hello ok $(POD_NAME)",
		"token=token-for-ok",
	} {
		if !strings.Contains(run.Output, want) {
			t.Errorf("process output lacks %q:\n%s", want, run.Output)
		}
	}
	if run.Args[0] == "/kubage" {
		t.Errorf("argv[0] was not mapped to the binary: %v", run.Args)
	}
}

func TestKubeletReportsFailureWithTerminationMessage(t *testing.T) {
	h := startHarness(t, IdentityAdmin)
	h.create(agentPod("bad", []corev1.EnvVar{{Name: "EXIT_CODE", Value: "3"}}))
	p := h.waitPod("bad", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodFailed })
	term := terminated(p)
	if term == nil || term.ExitCode != 3 || term.Reason != "Error" || !strings.Contains(term.Message, "helper failing as asked") {
		t.Fatalf("want exit 3, reason Error and the output tail, got %+v", p.Status.ContainerStatuses)
	}
	// Admin identity: the process gets the harness's own credentials, no token.
	if run := h.waitRun("bad"); !strings.Contains(run.Output, "token=\n") {
		t.Errorf("admin identity should carry no token:\n%s", run.Output)
	}
}

func TestKubeletKillsProcessAtActiveDeadline(t *testing.T) {
	h := startHarness(t, IdentityAdmin)
	h.create(agentPod("slow", []corev1.EnvVar{{Name: "SLEEP", Value: "60s"}}, func(p *corev1.Pod) {
		p.Spec.ActiveDeadlineSeconds = ptr.To[int64](1)
		p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](1)
	}))
	start := time.Now()
	p := h.waitPod("slow", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodFailed })
	if p.Status.Reason != "DeadlineExceeded" {
		t.Errorf("pod reason = %q, want DeadlineExceeded", p.Status.Reason)
	}
	if term := terminated(p); term == nil || term.ExitCode != 143 {
		t.Errorf("want the process terminated by SIGTERM (143), got %+v", p.Status.ContainerStatuses)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("deadline of 1s enforced only after %s", d)
	}
}

func TestKubeletStopsProcessOfDeletedPod(t *testing.T) {
	h := startHarness(t, IdentityAdmin)
	h.create(agentPod("gone", []corev1.EnvVar{{Name: "SLEEP", Value: "60s"}}))
	h.waitPod("gone", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	deadline := time.Now().Add(10 * time.Second)
	for h.kubelet.Active() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := h.client.CoreV1().Pods("ns").Delete(context.Background(), "gone", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	run := h.waitRun("gone")
	if run.Reason != "Deleted" || run.ExitCode != 143 {
		t.Errorf("want the process stopped by SIGTERM on deletion, got reason %q exit %d", run.Reason, run.ExitCode)
	}
}

func TestKubeletShowsPullFailureForMissingImage(t *testing.T) {
	h := startHarness(t, IdentityAdmin)
	h.create(agentPod("nopull", nil, func(p *corev1.Pod) { p.Spec.Containers[0].Image = "kubage:does-not-exist" }))
	p := h.waitPod("nopull", func(p *corev1.Pod) bool {
		return len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].State.Waiting != nil &&
			p.Status.ContainerStatuses[0].State.Waiting.Reason == "ImagePullBackOff"
	})
	if p.Status.Phase != corev1.PodPending {
		t.Errorf("phase = %s, want Pending", p.Status.Phase)
	}
	if run := h.waitRun("nopull"); len(run.Args) != 0 {
		t.Errorf("a pod whose image cannot be pulled must not run, ran %v", run.Args)
	}
	evs, err := h.client.CoreV1().Events("ns").List(context.Background(), metav1.ListOptions{})
	if err != nil || len(evs.Items) < 2 {
		t.Fatalf("want Failed and BackOff events, got %v (%v)", evs, err)
	}
}

func TestKubeletShowsConfigErrorForMissingConfigMap(t *testing.T) {
	h := startHarness(t, IdentityAdmin)
	h.create(agentPod("nocm", []corev1.EnvVar{
		{Name: "FROM_CM", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "missing"}, Key: "k"}}},
	}))
	p := h.waitPod("nocm", func(p *corev1.Pod) bool {
		return len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].State.Waiting != nil
	})
	w := p.Status.ContainerStatuses[0].State.Waiting
	if w.Reason != "CreateContainerConfigError" || !strings.Contains(w.Message, `configmap "missing" not found`) {
		t.Errorf("got waiting %+v", w)
	}
}

func TestKubeletIgnoresPodsItDoesNotOwn(t *testing.T) {
	h := startHarness(t, IdentityAdmin, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "real-node"}})
	h.create(agentPod("elsewhere", nil, func(p *corev1.Pod) { p.Spec.NodeName = "real-node" }))
	h.create(agentPod("unlabelled", nil, func(p *corev1.Pod) { p.Labels = nil }))
	h.create(agentPod("marker", nil))
	// Pods are handled in order of arrival by two workers; once the last one ran, the others
	// had their chance.
	h.waitRun("marker")
	h.waitPod("marker", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodSucceeded })
	for _, name := range []string{"elsewhere", "unlabelled"} {
		p, err := h.client.CoreV1().Pods("ns").Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Status.Phase != "" || len(p.Status.ContainerStatuses) != 0 {
			t.Errorf("pod %s must be left alone, got status %+v", name, p.Status)
		}
	}
}

func TestExpandRefs(t *testing.T) {
	vars := map[string]string{"A": "x", "B": "y"}
	for in, want := range map[string]string{
		"plain":          "plain",
		"$(A)-$(B)":      "x-y",
		"$$(A)":          "$(A)",
		"$(UNKNOWN)":     "$(UNKNOWN)",
		"$(A":            "$(A",
		"cost $5 $(A)$":  "cost $5 x$",
		"nested $($(A))": "nested $($(A))",
	} {
		if got := expandRefs(in, vars); got != want {
			t.Errorf("expandRefs(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWriteKubeconfigWithToken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kc")
	cfg := &rest.Config{Host: "https://127.0.0.1:6443", TLSClientConfig: rest.TLSClientConfig{CAData: []byte("ca"), CertData: []byte("admin")}}
	if err := writeKubeconfig(path, cfg, "tok"); err != nil {
		t.Fatal(err)
	}
	got, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Host != cfg.Host || got.BearerToken != "tok" || string(got.CAData) != "ca" || len(got.CertData) != 0 {
		t.Errorf("token kubeconfig must carry the server, CA and token only, got host %q token %q cert %q", got.Host, got.BearerToken, got.CertData)
	}
}

func TestMapEmptyDirs(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{Volumes: []corev1.Volume{
		{Name: "knowledge", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "x"}}},
	}}}
	c := corev1.Container{VolumeMounts: []corev1.VolumeMount{
		{Name: "knowledge", MountPath: "/var/lib/kubage/knowledge"},
		{Name: "tls", MountPath: "/var/run/tls"},
	}}
	got := mapEmptyDirs(pod, c, []string{"kubage", "--knowledge-dir=/var/lib/kubage/knowledge", "--x=/var/lib/kubage/knowledge/sub",
		"--y=/var/lib/kubage/knowledgeable", "--cert=/var/run/tls/tls.crt"}, "/scratch/uid")
	want := []string{"kubage", "--knowledge-dir=/scratch/uid/knowledge", "--x=/scratch/uid/knowledge/sub",
		"--y=/var/lib/kubage/knowledgeable", "--cert=/var/run/tls/tls.crt"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("got %v, want %v", got, want)
	}
}
