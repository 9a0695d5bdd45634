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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

func TestPlanFollowsTargetKind(t *testing.T) {
	e := engine()
	cases := []struct {
		target *agent.Target
		tools  []string
	}{
		{nil, []string{"namespace"}},
		{&agent.Target{Kind: "deploy", Name: "web"}, []string{"workload"}},
		{&agent.Target{Kind: "sts", Name: "db"}, []string{"workload"}},
		{&agent.Target{Kind: "po", Name: "x"}, []string{"pod"}},
		{&agent.Target{Kind: "Node", Name: "n1"}, []string{"node"}},
		{&agent.Target{Kind: "StorageClass", Name: "fast"}, []string{"object", "namespace"}},
		{&agent.Target{Selector: "app=web"}, []string{"selector"}},
		{&agent.Target{Kind: "Gizmo", Name: "g"}, []string{"unsupported"}},
	}
	for _, c := range cases {
		tasks, err := e.Plan(context.Background(), agent.Session{Namespace: ns, Target: c.target}, agent.Progress{Iteration: 1})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, task := range tasks {
			got = append(got, task.Tool)
			if task.ID == "" || task.Type != agent.TaskAnalyze {
				t.Errorf("bad task %+v", task)
			}
		}
		if strings.Join(got, ",") != strings.Join(c.tools, ",") {
			t.Errorf("target %+v: planned %v, want %v", c.target, got, c.tools)
		}
	}
	if _, err := e.Plan(context.Background(), agent.Session{}, agent.Progress{}); err == nil {
		t.Errorf("a session without namespace must not plan")
	}
}

func TestJudgeFollowsChainsOnce(t *testing.T) {
	e := engine()
	s := agent.Session{Namespace: ns, Target: deploy("web")}
	pod := agent.ObjectRef{Kind: "Pod", Namespace: ns, Name: "web-1"}
	dep := agent.ObjectRef{Kind: "Deployment", Namespace: ns, Name: "web"}
	p := agent.Progress{Iteration: 1, Results: []agent.TaskResult{{TaskID: "i1-t1", Examined: []agent.ObjectRef{dep},
		Findings: []agent.Finding{{Rule: "rollout-stuck", Object: dep, Culprit: dep, Follow: []agent.ObjectRef{pod}}}}}}
	v, err := e.Judge(context.Background(), s, p)
	if err != nil || v.Decision != agent.Replan || len(v.Next) != 1 || v.Next[0].Tool != "pod" || v.Next[0].Args["name"] != "web-1" || v.Next[0].Args["hop"] != "1" {
		t.Fatalf("want one pod follow-up at hop 1, got %+v %v", v, err)
	}
	p.Results = append(p.Results, agent.TaskResult{TaskID: "i2-t1", Examined: []agent.ObjectRef{pod}})
	v, _ = e.Judge(context.Background(), s, p)
	if v.Decision != agent.Conclude {
		t.Fatalf("examined objects must not be planned again, got %+v", v)
	}
	failed := agent.Progress{Results: []agent.TaskResult{{TaskID: "a", Error: "forbidden"}}}
	if v, _ := e.Judge(context.Background(), s, failed); v.Decision != agent.Stop {
		t.Errorf("all tasks failing should stop, got %+v", v)
	}
}

func TestRunTaskJSONRoundTrip(t *testing.T) {
	_, _, objs := webApp(1, func(p *corev1.Pod) { fx.CrashLoop(p, 1, "Error", 3) })
	e := engine(objs...)
	req := agent.TaskRequest{Session: agent.Session{Namespace: ns}, Task: agent.Task{ID: "i2-t1", Type: agent.TaskAnalyze, Tool: "pod", Args: map[string]string{"kind": "Pod", "name": podName(0), "hop": "1"}}}
	in, _ := json.Marshal(req)
	var out bytes.Buffer
	if err := agent.RunTaskJSON(context.Background(), e, bytes.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	var res agent.TaskResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	direct, err := e.Investigate(context.Background(), req.Session, req.Task)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(res)
	b, _ := json.Marshal(direct)
	if !bytes.Equal(a, b) {
		t.Errorf("Job path and in-process path differ:\n%s\n%s", a, b)
	}
	if len(res.Findings) != 1 || res.Findings[0].Rule != "crash-loop" || res.Findings[0].Hop != 1 || res.APIRequests == 0 {
		t.Errorf("unexpected result %s", a)
	}
	for _, bad := range []string{"", "{", `{"task":{}}`, strings.Repeat("x", agent.MaxTaskRequestBytes+10)} {
		if err := agent.RunTaskJSON(context.Background(), e, strings.NewReader(bad), &out); err == nil {
			t.Errorf("want an error for %.20q", bad)
		}
	}
}

func TestToolCallTask(t *testing.T) {
	_, _, objs := webApp(1, nil)
	e := engine(objs...)
	res, err := e.Investigate(context.Background(), agent.Session{Namespace: ns}, agent.Task{ID: "t1", Type: agent.TaskToolCall, Tool: "k8s_get", Args: map[string]string{"kind": "Deployment", "name": "web"}})
	if err != nil || len(res.Evidence) != 1 || !strings.Contains(res.Evidence[0].Data, "Deployment web") || len(res.ToolCalls) != 1 {
		t.Fatalf("tool task: %v %+v", err, res)
	}
	if _, err := e.Investigate(context.Background(), agent.Session{Namespace: ns}, agent.Task{ID: "t2", Type: agent.TaskToolCall, Tool: "k8s_delete"}); err == nil {
		t.Errorf("unknown tools must fail")
	}
	if _, err := e.Investigate(context.Background(), agent.Session{Namespace: ns}, agent.Task{ID: "t3", Type: agent.TaskAnalyze, Tool: "nope"}); err == nil {
		t.Errorf("unknown analyzers must fail")
	}
}

type panicky struct{ calls atomic.Int32 }

func (p *panicky) Investigate(_ context.Context, _ agent.Session, t agent.Task) (agent.TaskResult, error) {
	p.calls.Add(1)
	if t.Tool == "boom" {
		panic("analyzer bug")
	}
	if t.Tool == "fail" {
		return agent.TaskResult{}, errors.New("forbidden")
	}
	return agent.TaskResult{Summary: "ok " + t.ID}, nil
}

// RunTask, which both runners use, turns an investigator's panic or error into the task's
// result instead of failing the session.
func TestRunTaskContainsPanicsAndErrors(t *testing.T) {
	inv := &panicky{}
	for tool, want := range map[string]string{"x": "", "boom": "analyzer bug", "fail": "forbidden"} {
		res := agent.RunTask(context.Background(), inv, agent.Session{}, agent.Task{ID: "t-" + tool, Tool: tool})
		if res.TaskID != "t-"+tool || !strings.Contains(res.Error, want) || (want == "") != (res.Error == "") {
			t.Errorf("%s: want error %q, got %+v", tool, want, res)
		}
	}
	if inv.calls.Load() != 3 {
		t.Errorf("want 3 calls, got %d", inv.calls.Load())
	}
}
