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

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/runner"
)

var testOwner = runner.Owner{Namespace: "shop", Name: "checkout", UID: "uid-1"}

func agentEnv(request string) func(string) string {
	env := testOwner.Env()
	env[EnvTaskRequest] = request
	return func(k string) string { return env[k] }
}

func crashingPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "api-1", Namespace: "shop"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "api", Image: "example/api:1"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{
			Name: "api", RestartCount: 6,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 3, Reason: "Error", Message: "cannot connect to database"}},
		}}},
	}
}

func request(t *testing.T, id string) string {
	raw, err := json.Marshal(agent.TaskRequest{
		Session: agent.Session{Problem: "api crashes", Namespace: "shop"},
		Task:    agent.Task{ID: id, Type: agent.TaskAnalyze, Tool: "pod", Args: map[string]string{"kind": "Pod", "name": "api-1"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func clientOf(cs kubernetes.Interface) func() (kubernetes.Interface, error) {
	return func() (kubernetes.Interface, error) { return cs, nil }
}

func TestAgentTaskWritesTheResultConfigMap(t *testing.T) {
	cs := fake.NewClientset(crashingPod())
	var stderr bytes.Buffer
	err := runAgentTask(context.Background(), agentTaskOptions{}, agentEnv(request(t, "i1-t1")), &stderr, clientOf(cs))
	if err != nil {
		t.Fatalf("runAgentTask: %v", err)
	}
	res, err := runner.ReadResult(context.Background(), cs, testOwner, "i1-t1")
	if err != nil || res == nil {
		t.Fatalf("result: %v %v", res, err)
	}
	if res.Error != "" || len(res.Findings) == 0 {
		t.Fatalf("want findings for a crash-looping pod, got %+v", res)
	}
	if !strings.Contains(stderr.String(), "task i1-t1 of shop/checkout") {
		t.Errorf("stderr should say what was done: %q", stderr.String())
	}
}

func TestAgentTaskReadsARequestFile(t *testing.T) {
	cs := fake.NewClientset(crashingPod())
	path := filepath.Join(t.TempDir(), "req.json")
	if err := os.WriteFile(path, []byte(request(t, "i1-t2")), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := runAgentTask(context.Background(), agentTaskOptions{requestFile: path}, agentEnv(""), &bytes.Buffer{}, clientOf(cs)); err != nil {
		t.Fatal(err)
	}
	if res, err := runner.ReadResult(context.Background(), cs, testOwner, "i1-t2"); err != nil || res == nil {
		t.Fatalf("result: %v %v", res, err)
	}
}

func TestAgentTaskReportsUnusableRequests(t *testing.T) {
	ctx := context.Background()
	for name, tc := range map[string]struct {
		env       func(string) string
		wantErr   string
		resultFor string // a task whose error result must be written
	}{
		"no owner":         {env: func(string) string { return "" }, wantErr: "owner has no namespace"},
		"no request":       {env: agentEnv(""), wantErr: "no task request"},
		"not JSON":         {env: agentEnv("{nope"), wantErr: "decode task"},
		"no task id":       {env: agentEnv(`{"task":{"type":"Analyze"}}`), wantErr: "task has no id"},
		"oversized":        {env: agentEnv(strings.Repeat("x", agent.MaxTaskRequestBytes+1)), wantErr: "larger than"},
		"wrong field type": {env: agentEnv(`{"task":{"id":"i1-t3","args":"oops"}}`), wantErr: "decode task", resultFor: "i1-t3"},
	} {
		t.Run(name, func(t *testing.T) {
			cs := fake.NewClientset()
			err := runAgentTask(ctx, agentTaskOptions{}, tc.env, &bytes.Buffer{}, clientOf(cs))
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error = %v, want it to mention %q", err, tc.wantErr)
			}
			cms, _ := cs.CoreV1().ConfigMaps("shop").List(ctx, metav1.ListOptions{})
			if tc.resultFor == "" {
				if len(cms.Items) != 0 {
					t.Errorf("no result may be written, got %d ConfigMaps", len(cms.Items))
				}
				return
			}
			res, rerr := runner.ReadResult(ctx, cs, testOwner, tc.resultFor)
			if rerr != nil || res == nil || !strings.Contains(res.Error, "decode task") {
				t.Errorf("want an error result for %s, got %+v (%v)", tc.resultFor, res, rerr)
			}
		})
	}
}

func TestAgentTaskGivesUpAtOnceWhenRefused(t *testing.T) {
	cs := fake.NewClientset(crashingPod())
	calls := 0
	cs.PrependReactor("create", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		calls++
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errors.New("RBAC says no"))
	})
	err := runAgentTask(context.Background(), agentTaskOptions{}, agentEnv(request(t, "i1-t1")), &bytes.Buffer{}, clientOf(cs))
	if err == nil || !strings.Contains(err.Error(), "forbidden") {
		t.Fatalf("error = %v, want the refusal", err)
	}
	if calls != 1 {
		t.Errorf("a refused write was tried %d times, want 1", calls)
	}
}
