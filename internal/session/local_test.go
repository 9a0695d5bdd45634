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

package session_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/session"
	fx "github.com/kubage/kubage/test/fixtures"
)

// crashingWeb is Deployment web whose two pods crash-loop.
func crashingWeb() []runtime.Object {
	d := fx.Deployment(goldenNS, "web", 2, "registry.example/web:1.1")
	rs := fx.ReplicaSet(d, 2, 2, "registry.example/web:1.1")
	objs := []runtime.Object{d, rs, fx.Node("node-1")}
	for i := 0; i < 2; i++ {
		p := fx.PodFor(rs, fmt.Sprintf("p%04d", i))
		fx.CrashLoop(p, 1, "Error", 3)
		objs = append(objs, p)
	}
	d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.UnavailableReplicas = 0, 0, 2
	return objs
}

func localRules(objs ...runtime.Object) *session.Local {
	cs := fake.NewClientset(objs...)
	e := agent.NewRuleEngine(cs)
	e.Now = func() time.Time { return fx.Now }
	return &session.Local{Client: cs, State: fake.NewClientset(), Brain: e}
}

func TestLocalRunsTheSessionEngineToItsConclusion(t *testing.T) {
	s := agent.Session{ID: goldenNS + "/web", Namespace: goldenNS, Target: &agent.Target{Kind: "Deployment", Name: "web"}}
	res, err := localRules(crashingWeb()...).Run(context.Background(), s, agent.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Conclusion.RootCause.Rule != "crash-loop" || res.Status.Phase != "Completed" {
		t.Fatalf("want crash-loop, Completed; got %s, %s", res.Conclusion.RootCause.Rule, res.Status.Phase)
	}
	if len(res.Trace.Iterations) != 2 || len(res.Trace.Iterations[1].Results) != 2 || res.Trace.Iterations[0].Verdict == nil {
		t.Fatalf("the trace holds both rounds, their results and verdicts: %+v", res.Trace)
	}
	if res.Trace.APIRequests == 0 || res.Status.Usage.ToolCalls != int64(res.Trace.ToolCalls) {
		t.Errorf("API requests %d, tool calls %d in the trace and %d in the status", res.Trace.APIRequests, res.Trace.ToolCalls, res.Status.Usage.ToolCalls)
	}
}

func TestLocalBudgetsStopTheLoopAndStillConclude(t *testing.T) {
	s := agent.Session{ID: goldenNS + "/web", Namespace: goldenNS, Target: &agent.Target{Kind: "Deployment", Name: "web"}}
	res, err := localRules(crashingWeb()...).Run(context.Background(), s, agent.Budget{MaxIterations: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Trace.Iterations) != 1 || !strings.Contains(res.Trace.StopReason, "iteration budget") {
		t.Fatalf("want a stop after one iteration, got %d iterations, reason %q", len(res.Trace.Iterations), res.Trace.StopReason)
	}
	if !strings.Contains(res.Conclusion.RootCause.Summary, "stopped early") {
		t.Errorf("the summary says the session stopped early: %s", res.Conclusion.RootCause.Summary)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err = localRules(crashingWeb()...).Run(ctx, s, agent.Budget{})
	if err != nil || !strings.Contains(res.Trace.StopReason, "timed out") || res.Conclusion.RootCause.Category == "" {
		t.Errorf("an ended context times the session out and it still concludes: %v %q %+v", err, res.Trace.StopReason, res.Conclusion.RootCause)
	}
}

func TestLocalFailsASessionWhoseTargetIsMissing(t *testing.T) {
	s := agent.Session{ID: goldenNS + "/api", Namespace: goldenNS, Target: &agent.Target{Kind: "Deployment", Name: "api"}}
	res, err := localRules(crashingWeb()...).Run(context.Background(), s, agent.Budget{})
	if err == nil || !strings.Contains(err.Error(), "does not exist") || res.Status.Phase != "Failed" {
		t.Fatalf("want a failed session, got %v in phase %s", err, res.Status.Phase)
	}
}

// oneRound plans its tasks in the first round, then concludes; the investigator is apart.
type oneRound struct {
	agent.Brain
	tasks []agent.Task
}

func (o oneRound) Plan(_ context.Context, _ agent.Session, p agent.Progress) ([]agent.Task, error) {
	if p.Iteration > 1 {
		return nil, nil
	}
	return o.tasks, nil
}

func (oneRound) Judge(context.Context, agent.Session, agent.Progress) (agent.Verdict, error) {
	return agent.Verdict{Decision: agent.Conclude}, nil
}

func (oneRound) Summarize(context.Context, agent.Session, agent.Progress) (agent.Conclusion, error) {
	return agent.Conclusion{RootCause: agent.RootCause{Summary: "done", Category: "Unknown"}}, nil
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

// Tasks wait for their dependencies; a panic or an error is the task's result, and tasks
// waiting on each other never run and say why.
func TestLocalRunsDependenciesAndContainsPanics(t *testing.T) {
	inv := &panicky{}
	brain := oneRound{tasks: []agent.Task{
		{ID: "a", Tool: "x"}, {ID: "b", Tool: "boom", DependsOn: []string{"a"}}, {ID: "c", Tool: "fail"},
		{ID: "d", Tool: "x", DependsOn: []string{"e"}}, {ID: "e", Tool: "x", DependsOn: []string{"d"}},
	}}
	s := agent.Session{ID: goldenNS + "/deps", Namespace: goldenNS}
	res, err := (&session.Local{Client: fake.NewClientset(), Brain: brain, Investigator: inv}).Run(context.Background(), s, agent.Budget{Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]agent.TaskResult{}
	for _, r := range res.Trace.Iterations[0].Results {
		byID[r.TaskID] = r
	}
	if byID["i1-t1"].Summary != "ok i1-t1" || !strings.Contains(byID["i1-t2"].Error, "analyzer bug") || byID["i1-t3"].Error != "forbidden" {
		t.Fatalf("unexpected results %+v", byID)
	}
	tasks := res.Status.Plan.Tasks
	if len(tasks) != 5 || !strings.Contains(tasks[3].Summary, "dependencies") || !strings.Contains(tasks[4].Summary, "dependencies") {
		t.Errorf("cyclic tasks should report a dependency error: %+v", tasks)
	}
	if inv.calls.Load() != 3 {
		t.Errorf("want 3 calls, got %d", inv.calls.Load())
	}
}
