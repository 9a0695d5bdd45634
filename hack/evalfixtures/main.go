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

// Command evalfixtures records kubage eval fixtures from the real-cluster scenario corpus
// (test/scenarios): it deploys every scenario on the local kwok cluster, runs the rule
// engine target-less through the session engine, and writes one fixture per scenario with
// what a model would read (the built-in tools' outputs for the namespace, its events, pods'
// logs and the objects the rule engine examined, credentials redacted), the rule engine's
// first-round findings, its conclusion (the baseline), and the corpus's expectation (the
// culprits and terms), with class, split and source. make eval-fixtures runs it.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/agent/llm"
	"github.com/kubage/kubage/internal/eval"
	"github.com/kubage/kubage/internal/redact"
	"github.com/kubage/kubage/internal/text"
	"github.com/kubage/kubage/internal/tools"
	"github.com/kubage/kubage/test/scenarios"
	"github.com/kubage/kubage/test/testcluster"
)

// fixtureNS replaces each scenario's generated namespace, so fixtures read alike.
const fixtureNS = "corpus"

var (
	out     = flag.String("out", "test/evalfixtures/corpus", "directory the fixtures are written to (its .yaml files are replaced)")
	only    = flag.String("scenarios", "", "comma-separated scenarios, or @file with their names (default: the whole corpus)")
	timeout = flag.Duration("timeout", 30*time.Minute, "bound on the whole run")
)

func main() {
	flag.Parse()
	logger := log.New(os.Stderr, "evalfixtures: ", log.Ltime)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	if err := run(ctx, logger); err != nil {
		logger.Fatal(err)
	}
}

func run(ctx context.Context, logger *log.Logger) error {
	list, err := scenarios.Selected(*only)
	if err != nil {
		return err
	}
	logger.Printf("starting the local cluster (or attaching to $%s)", testcluster.EnvKubeconfig)
	c, err := testcluster.Start(ctx, testcluster.Options{})
	if err != nil {
		return err
	}
	defer func() { _ = c.Stop(context.WithoutCancel(ctx)) }()
	// The sessions and the recording need many requests: no client-side throttle to speak of.
	cfg := rest.CopyConfig(c.RESTConfig)
	cfg.QPS, cfg.Burst = 500, 1000
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	logger.Printf("deploying %d scenarios", len(list))
	ds := scenarios.DeployAll(ctx, cs, list, scenarios.FailureTimeout)
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
		defer cancel()
		_ = scenarios.CleanupAll(cctx, ds)
	}()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(*out, "*.yaml"))
	for _, f := range old {
		_ = os.Remove(f)
	}
	written := 0
	for _, d := range ds {
		select {
		case <-d.Done():
		case <-ctx.Done():
			return ctx.Err()
		}
		if d.Err() != nil {
			logger.Printf("%s: not deployed: %v", d.Name, d.Err())
			continue
		}
		sc, err := record(ctx, cs, d)
		if err != nil {
			logger.Printf("%s: %v", d.Name, err)
			continue
		}
		raw, err := yaml.Marshal(sc)
		if err != nil {
			return err
		}
		if _, err := eval.ParseScenario(raw); err != nil {
			return fmt.Errorf("%s: the recorded fixture does not parse: %w", d.Name, err)
		}
		if err := os.WriteFile(filepath.Join(*out, d.Name+".yaml"), raw, 0o644); err != nil {
			return err
		}
		written++
	}
	logger.Printf("wrote %d fixtures to %s", written, *out)
	return nil
}

// record runs the rule engine target-less on one deployed scenario and records the fixture.
func record(ctx context.Context, cs kubernetes.Interface, d *scenarios.Deployed) (eval.Scenario, error) {
	s, e := d.Scenario, d.Env
	if len(s.Want.Culprits()) == 0 || s.Want.Culprit.Name == "" {
		return eval.Scenario{}, fmt.Errorf("no expected culprit")
	}
	res, err := scenarios.RunVariant(ctx, s, e, cs, scenarios.TargetLess)
	if err != nil {
		return eval.Scenario{}, err
	}
	fx := eval.Scenario{
		Name:        s.Name,
		Description: s.Covers,
		Session:     agent.Session{Problem: s.Problem, Namespace: fixtureNS},
		Class:       className(s.Class),
		Split:       string(s.Split()),
		Source:      s.Source,
	}
	// The rule engine's first round: the findings the LLM brain starts from in the operator.
	if len(res.Trace.Iterations) > 0 {
		for _, r := range res.Trace.Iterations[0].Results {
			fx.Findings = append(fx.Findings, r.Findings...)
			fx.Evidence = append(fx.Evidence, r.Evidence...)
		}
	}
	rc := res.Conclusion.RootCause
	fx.RuleEngine = &rc
	for _, r := range s.Want.Culprits() {
		ref := e.Resolve(r)
		fx.Expect.Culprits = append(fx.Expect.Culprits, agent.ObjectRef{Kind: ref.Kind, Name: ref.Name})
	}
	for _, t := range s.Want.Terms {
		fx.Expect.SummaryContains = append(fx.Expect.SummaryContains, strings.ReplaceAll(t, "{ns}", e.Namespace))
	}
	tl, err := recordTools(ctx, cs, e.Namespace, res)
	if err != nil {
		return eval.Scenario{}, err
	}
	fx.Tools = tl
	// Everything recorded names the fixture's namespace, never the generated one, and
	// carries no credentials.
	raw, err := json.Marshal(fx)
	if err != nil {
		return eval.Scenario{}, err
	}
	raw = redact.Default().SecretsJSON([]byte(strings.ReplaceAll(string(raw), e.Namespace, fixtureNS)))
	var clean eval.Scenario
	if err := json.Unmarshal(raw, &clean); err != nil {
		return eval.Scenario{}, err
	}
	return clean, nil
}

// recordTools answers the built-in tools for what a model would ask about: the namespace's
// events, lists, quotas and nodes, up to 8 objects the rule engine blamed or examined (get,
// describe, related), and up to 6 pods' logs; other calls get "nothing recorded".
func recordTools(ctx context.Context, cs kubernetes.Interface, ns string, res scenarios.Result) ([]eval.Tool, error) {
	c := tools.NewClient(cs, tools.Scope{Namespace: ns})
	set := llm.BuiltinTools(tools.BuiltinFor(c))
	call := func(name string, args map[string]any) string {
		raw, _ := json.Marshal(args)
		o, err := set.Call(ctx, name, raw)
		if err != nil {
			return "error: " + err.Error()
		}
		// Bounded, so the corpus stays a few megabytes.
		return text.ClipMarked(o.Text, 4096)
	}
	objects := map[string]agent.ObjectRef{}
	addObj := func(r agent.ObjectRef) {
		if r.Kind != "" && r.Name != "" && len(objects) < 8 {
			objects[r.Kind+"/"+r.Name] = r
		}
	}
	addObj(res.Conclusion.RootCause.Culprit)
	for _, a := range res.Conclusion.RootCause.AffectedObjects {
		addObj(a)
	}
	for _, it := range res.Trace.Iterations {
		for _, r := range it.Results {
			for _, x := range r.Examined {
				addObj(x)
			}
		}
	}
	keys := make([]string, 0, len(objects))
	for k := range objects {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{Limit: 6})
	if err != nil {
		return nil, err
	}
	var out []eval.Tool
	for _, spec := range set.List() {
		t := eval.Tool{Name: spec.Name, Description: spec.Description, Category: spec.Category, InputSchema: spec.InputSchema,
			Output: "nothing recorded for these arguments"}
		switch spec.Name {
		case "k8s_events":
			t.Output = call(spec.Name, map[string]any{})
		case "k8s_quota_usage":
			t.Output = call(spec.Name, map[string]any{})
		case "k8s_node_status":
			t.Output = call(spec.Name, map[string]any{})
		case "k8s_list":
			for _, kind := range []string{"Pod", "Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob", "Service", "ConfigMap", "Secret", "PersistentVolumeClaim", "NetworkPolicy", "HorizontalPodAutoscaler", "Ingress"} {
				t.Responses = append(t.Responses, eval.Response{Args: map[string]string{"kind": kind}, Output: call(spec.Name, map[string]any{"kind": kind})})
			}
		case "k8s_get", "k8s_describe", "k8s_related":
			for _, k := range keys {
				o := objects[k]
				t.Responses = append(t.Responses, eval.Response{Args: map[string]string{"kind": o.Kind, "name": o.Name}, Output: call(spec.Name, map[string]any{"kind": o.Kind, "name": o.Name})})
			}
		case "k8s_logs":
			for _, p := range pods.Items {
				text := call(spec.Name, map[string]any{"pod": p.Name, "previous": true})
				if strings.HasPrefix(text, "error:") {
					text = call(spec.Name, map[string]any{"pod": p.Name})
				}
				t.Responses = append(t.Responses, eval.Response{Args: map[string]string{"pod": p.Name}, Output: text})
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// className is the corpus class's name in the report.
func className(c scenarios.Class) string {
	names := map[scenarios.Class]string{
		scenarios.ClassSingle: "single", scenarios.ClassRanking: "ranking", scenarios.ClassProvider: "provider",
		scenarios.ClassClue: "clue", scenarios.ClassReference: "reference", scenarios.ClassMechanism: "mechanism",
		scenarios.ClassOutside: "outside",
	}
	if n, ok := names[c]; ok {
		return n
	}
	return fmt.Sprint(int(c))
}
