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

package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/redact"
	"github.com/kubage/kubage/internal/tools"
	kmcp "github.com/kubage/kubage/internal/tools/mcp"
	"github.com/kubage/kubage/internal/tools/registry"
	"github.com/kubage/kubage/test/fakes/mcpfake"
)

func startFake(t *testing.T, opts mcpfake.Options) *mcpfake.Server {
	t.Helper()
	s, err := mcpfake.Start(opts)
	if err != nil {
		t.Fatalf("starting fake server: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// toolServer is a ToolServer as the reconciler leaves it: Ready with the given reason.
func toolServer(ns, name, url string, ready bool, mutate ...func(*kubagev1alpha1.ToolServer)) *kubagev1alpha1.ToolServer {
	status, reason := metav1.ConditionTrue, "Connected"
	if !ready {
		status, reason = metav1.ConditionFalse, "Unreachable"
	}
	ts := &kubagev1alpha1.ToolServer{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"purpose": "diagnose"}},
		Spec: kubagev1alpha1.ToolServerSpec{
			URL: url, Transport: kubagev1alpha1.TransportStreamableHTTP, Category: kubagev1alpha1.ToolCategoryLogs,
			Timeout:           &metav1.Duration{Duration: 5 * time.Second},
			AllowedNamespaces: kubagev1alpha1.AllowedNamespaces{From: kubagev1alpha1.NamespacesFromSame},
		},
		Status: kubagev1alpha1.ToolServerStatus{Conditions: []metav1.Condition{{
			Type: kubagev1alpha1.ReadyCondition, Status: status, Reason: reason, LastTransitionTime: metav1.Now(),
		}}},
	}
	for _, m := range mutate {
		m(ts)
	}
	return ts
}

func cluster(t *testing.T, objs ...client.Object) registry.Cluster {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := kubagev1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).WithStatusSubresource(&kubagev1alpha1.ToolServer{}).Build()
	return registry.KubeCluster(c, c)
}

func names(r *registry.Registry) []string {
	var out []string
	for _, t := range r.Tools() {
		out = append(out, t.Name)
	}
	return out
}

func TestOpenSelectsAdmittedReadyServers(t *testing.T) {
	g := NewWithT(t)
	logs := startFake(t, mcpfake.Options{Name: "logs"})
	metrics := startFake(t, mcpfake.Options{Name: "metrics", Transport: kmcp.TransportSSE, NoStandardTools: true})
	metrics.AddTextTool("echo", "Echo from metrics", "metrics echo")
	metrics.AddTextTool("prom_query", "PromQL query", "up 1")
	alerts := startFake(t, mcpfake.Options{Name: "alerts", NoStandardTools: true, Token: "alert-token"})
	alerts.AddTextTool("list_alerts", "Firing alerts", "none")

	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a", Labels: map[string]string{"team": "a"}}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "monitoring"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "monitoring", Name: "alerts"},
			Data: map[string][]byte{"auth": []byte("Bearer alert-token\n")}},
		toolServer("team-a", "logs", logs.URL, true, func(ts *kubagev1alpha1.ToolServer) {
			ts.Spec.Tools.Deny = []string{"fail"}
		}),
		toolServer("monitoring", "metrics", metrics.URL, true, func(ts *kubagev1alpha1.ToolServer) {
			ts.Spec.Transport = kubagev1alpha1.TransportSSE
			ts.Spec.Category = kubagev1alpha1.ToolCategoryMetrics
			ts.Spec.AllowedNamespaces.From = kubagev1alpha1.NamespacesFromAll
		}),
		toolServer("monitoring", "alerts", alerts.URL, true, func(ts *kubagev1alpha1.ToolServer) {
			ts.Spec.AllowedNamespaces = kubagev1alpha1.AllowedNamespaces{From: kubagev1alpha1.NamespacesFromSelector,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}}
			ts.Spec.Headers = []kubagev1alpha1.HeaderSource{{Name: "Authorization",
				SecretKeyRef: &kubagev1alpha1.SecretKeyReference{Name: "alerts", Key: "auth"}}}
		}),
		toolServer("other", "private", logs.URL, true),
		toolServer("team-a", "down", logs.URL, false),
		toolServer("team-a", "unlabelled", logs.URL, true, func(ts *kubagev1alpha1.ToolServer) { ts.Labels = nil }),
	}
	cs := k8sfake.NewClientset()
	open := func(mode kubagev1alpha1.Mode) *registry.Registry {
		r, err := registry.Open(context.Background(), registry.Options{
			Namespace: "team-a", Mode: mode, Cluster: cluster(t, objs...),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"purpose": "diagnose"}},
			Builtin:  tools.Builtin(cs, tools.Scope{Namespace: "team-a"}),
		})
		g.Expect(err).NotTo(HaveOccurred())
		t.Cleanup(r.Close)
		return r
	}

	r := open(kubagev1alpha1.ModeDiagnose)
	got := names(r)
	g.Expect(got[0]).To(HavePrefix("k8s_"), "built-in tools come first")
	g.Expect(got).To(ContainElements("k8s_list", "k8s_logs", "logs.echo", "metrics.echo", "big", "slow", "prom_query", "list_alerts"))
	g.Expect(got).NotTo(ContainElement("echo"), "duplicate names are qualified by server")
	g.Expect(got).NotTo(ContainElement("fail"), "denied by spec.tools.deny")
	g.Expect(got).NotTo(ContainElement("delete_pods"), "mutating tools are hidden in Diagnose mode")

	info, ok := r.Lookup("metrics.echo")
	g.Expect(ok).To(BeTrue())
	g.Expect(info.Server).To(Equal("monitoring/metrics"))
	g.Expect(info.Tool).To(Equal("echo"))
	g.Expect(info.Category).To(Equal("metrics"))

	g.Expect(r.Problems()).To(ConsistOf(registry.ServerProblem{Server: "team-a/down", Reason: "Unreachable", Message: "the ToolServer is not Ready"}))

	ctx := context.Background()
	res, err := r.Call(ctx, "metrics.echo", json.RawMessage(`{"q":"x"}`))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.Text).To(Equal("metrics echo"))
	res, err = r.Call(ctx, "list_alerts", nil)
	g.Expect(err).NotTo(HaveOccurred(), "the bearer header comes from the Secret, trailing newline trimmed")
	g.Expect(res.Text).To(Equal("none"))

	_, err = r.Call(ctx, "delete_pods", json.RawMessage(`{"selector":"app=web"}`))
	g.Expect(errors.Is(err, registry.ErrMutatingInDiagnose)).To(BeTrue(), "%v", err)

	remediate := open(kubagev1alpha1.ModeRemediate)
	info, ok = remediate.Lookup("delete_pods")
	g.Expect(ok).To(BeTrue())
	g.Expect(info.Mutating).To(BeTrue())
}

func TestCallValidatesArgumentsAndLogs(t *testing.T) {
	g := NewWithT(t)
	srv := startFake(t, mcpfake.Options{})
	cs := k8sfake.NewClientset(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web-1"}})
	r, err := registry.Open(context.Background(), registry.Options{
		Namespace: "team-a",
		Cluster:   cluster(t, toolServer("team-a", "logs", srv.URL, true)),
		Builtin:   tools.Builtin(cs, tools.Scope{Namespace: "team-a"}),
		Redact:    redact.Default().Redact,
	})
	g.Expect(err).NotTo(HaveOccurred())
	defer r.Close()
	ctx := context.Background()

	_, err = r.Call(ctx, "echo", json.RawMessage(`{"message":5}`))
	g.Expect(errors.Is(err, kmcp.ErrInvalidArguments)).To(BeTrue(), "%v", err)
	g.Expect(err.Error()).To(ContainSubstring("/message"))
	_, err = r.Call(ctx, "echo", json.RawMessage(`{"message":"x","repeat":99}`))
	g.Expect(errors.Is(err, kmcp.ErrInvalidArguments)).To(BeTrue(), "maximum 10: %v", err)
	g.Expect(srv.Calls()).To(BeZero(), "invalid arguments never reach the server")

	_, err = r.Call(ctx, "echoo", nil)
	g.Expect(errors.Is(err, registry.ErrUnknownTool)).To(BeTrue())
	g.Expect(err.Error()).To(ContainSubstring(`unknown tool "echoo"`))

	res, err := r.Call(ctx, "echo", json.RawMessage(`{"message":"ab","repeat":2}`))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.Text).To(Equal("abab"))

	res, err = r.CallArgs(ctx, "echo", map[string]string{"message": "hi", "repeat": "3"})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.Text).To(Equal("hihihi"))

	res, err = r.Call(ctx, "fail", nil)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.IsError).To(BeTrue())

	res, err = r.Call(ctx, "echo", json.RawMessage(`{"message":"password=hunter2"}`))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.Text).To(Equal("password=hunter2"), "results are the brain's to redact at the model boundary")

	res, err = r.Call(ctx, "k8s_list", json.RawMessage(`{"kind":"pods"}`))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.Text).To(ContainSubstring("web-1"))
	_, err = r.Call(ctx, "k8s_list", json.RawMessage(`{"kind":"pods","namespace":"kube-system"}`))
	g.Expect(err).To(HaveOccurred(), "built-in tools stay in the session namespace")

	log, dropped := r.CallLog()
	g.Expect(dropped).To(BeZero())
	var outcomes []registry.Outcome
	for _, c := range log {
		outcomes = append(outcomes, c.Outcome)
	}
	g.Expect(outcomes).To(Equal([]registry.Outcome{
		registry.OutcomeInvalidArguments, registry.OutcomeInvalidArguments, registry.OutcomeUnknownTool,
		registry.OutcomeOK, registry.OutcomeOK, registry.OutcomeToolError, registry.OutcomeOK, registry.OutcomeOK, registry.OutcomeToolError,
	}))
	g.Expect(log[6].Args).NotTo(ContainSubstring("hunter2"), "the call log is redacted")
	g.Expect(log[3]).To(recordOf("call-4", "team-a/logs", "echo", `{"message":"ab","repeat":2}`, 4))
	g.Expect(log[7].Server).To(BeEmpty(), "built-in")
}

// recordOf matches the evidence-relevant fields of a call record.
func recordOf(id, server, tool, args string, bytes int) OmegaMatcher {
	return And(
		HaveField("ID", id), HaveField("Server", server), HaveField("Tool", tool),
		HaveField("Args", args), HaveField("Bytes", bytes), HaveField("Duration", BeNumerically(">", 0)),
	)
}

func TestResultSizeCaps(t *testing.T) {
	for _, tr := range []kmcp.Transport{kmcp.TransportStreamableHTTP, kmcp.TransportSSE} {
		t.Run(string(tr), func(t *testing.T) {
			g := NewWithT(t)
			srv := startFake(t, mcpfake.Options{Transport: tr})
			r, err := registry.Open(context.Background(), registry.Options{
				Namespace: "team-a", MaxResultBytes: 16 << 10, MaxResponseBytes: 1 << 20,
				Cluster: cluster(t, toolServer("team-a", "big", srv.URL, true, func(ts *kubagev1alpha1.ToolServer) {
					ts.Spec.Transport = kubagev1alpha1.Transport(tr)
				})),
			})
			g.Expect(err).NotTo(HaveOccurred())
			defer r.Close()
			ctx := context.Background()

			res, err := r.Call(ctx, "big", json.RawMessage(`{"bytes":200000}`))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(res.Truncated).To(BeTrue())
			g.Expect(res.Bytes).To(Equal(200000))
			g.Expect(res.Text).To(HaveSuffix("…[truncated: 16384 of 200000 bytes shown]"))
			g.Expect(len(res.Text)).To(BeNumerically("<", 16<<10+100))

			start := time.Now()
			_, err = r.Call(ctx, "big", json.RawMessage(`{"bytes":50000000}`))
			g.Expect(errors.Is(err, registry.ErrResultTooLarge)).To(BeTrue(), "%v", err)
			g.Expect(err.Error()).To(ContainSubstring("ask for less"))
			g.Expect(time.Since(start)).To(BeNumerically("<", 10*time.Second))

			res, err = r.Call(ctx, "echo", json.RawMessage(`{"message":"still here"}`))
			g.Expect(err).NotTo(HaveOccurred(), "the session is re-established after a cut stream")
			g.Expect(res.Text).To(Equal("still here"))

			log, _ := r.CallLog()
			g.Expect(log[1].Outcome).To(Equal(registry.OutcomeTooLarge))
			g.Expect(log[0].Truncated).To(BeTrue())
		})
	}
}

// clock is a settable time source for the breaker's cooldown.
type clock struct{ t atomic.Int64 }

func (c *clock) now() time.Time          { return time.Unix(0, c.t.Load()) }
func (c *clock) advance(d time.Duration) { c.t.Add(int64(d)) }

func TestCircuitBreakerOpensAndRecovers(t *testing.T) {
	g := NewWithT(t)
	srv := startFake(t, mcpfake.Options{})
	clk := &clock{}
	clk.t.Store(time.Now().UnixNano())
	r, err := registry.Open(context.Background(), registry.Options{
		Namespace: "team-a", BreakerThreshold: 3, BreakerCooldown: time.Minute, Now: clk.now,
		Cluster: cluster(t, toolServer("team-a", "flaky", srv.URL, true, func(ts *kubagev1alpha1.ToolServer) {
			ts.Spec.Timeout = &metav1.Duration{Duration: 200 * time.Millisecond}
		})),
	})
	g.Expect(err).NotTo(HaveOccurred())
	defer r.Close()
	ctx := context.Background()

	for i := 0; i < 3; i++ {
		_, err := r.Call(ctx, "slow", json.RawMessage(`{"ms":5000}`))
		g.Expect(kmcp.ReasonOf(err)).To(Equal(kmcp.ReasonTimeout), "%v", err)
	}
	calls := srv.Calls()
	_, err = r.Call(ctx, "echo", json.RawMessage(`{"message":"x"}`))
	g.Expect(errors.Is(err, registry.ErrCircuitOpen)).To(BeTrue(), "%v", err)
	g.Expect(err.Error()).To(ContainSubstring("3 consecutive failures"))
	g.Expect(srv.Calls()).To(Equal(calls), "an open circuit does not reach the server")

	// After the cooldown one trial call goes through; its success closes the circuit.
	clk.advance(61 * time.Second)
	res, err := r.Call(ctx, "echo", json.RawMessage(`{"message":"back"}`))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.Text).To(Equal("back"))
	_, err = r.Call(ctx, "echo", json.RawMessage(`{"message":"again"}`))
	g.Expect(err).NotTo(HaveOccurred())

	log, _ := r.CallLog()
	g.Expect(log[3].Outcome).To(Equal(registry.OutcomeCircuitOpen))
	g.Expect(log[0].Outcome).To(Equal(registry.OutcomeTimeout))
}

func TestInvalidArgumentsDoNotTripTheBreaker(t *testing.T) {
	g := NewWithT(t)
	srv := startFake(t, mcpfake.Options{})
	r, err := registry.Open(context.Background(), registry.Options{
		Namespace: "team-a", BreakerThreshold: 2,
		Cluster: cluster(t, toolServer("team-a", "logs", srv.URL, true)),
	})
	g.Expect(err).NotTo(HaveOccurred())
	defer r.Close()
	for i := 0; i < 5; i++ {
		_, err := r.Call(context.Background(), "echo", json.RawMessage(`{}`))
		g.Expect(errors.Is(err, kmcp.ErrInvalidArguments)).To(BeTrue())
		res, err := r.Call(context.Background(), "fail", nil)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(res.IsError).To(BeTrue(), "a tool error is an answer, not a server fault")
	}
	_, err = r.Call(context.Background(), "echo", json.RawMessage(`{"message":"ok"}`))
	g.Expect(err).NotTo(HaveOccurred())
}

func TestConcurrencyLimitPerServer(t *testing.T) {
	g := NewWithT(t)
	srv := startFake(t, mcpfake.Options{})
	r, err := registry.Open(context.Background(), registry.Options{
		Namespace: "team-a", MaxConcurrent: 2,
		Cluster: cluster(t, toolServer("team-a", "logs", srv.URL, true)),
	})
	g.Expect(err).NotTo(HaveOccurred())
	defer r.Close()
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = r.Call(context.Background(), "slow", json.RawMessage(`{"ms":150}`))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		g.Expect(err).NotTo(HaveOccurred())
	}
	g.Expect(srv.MaxConcurrentSlow()).To(Equal(int64(2)))
}

func TestReconnectsAfterAnOutage(t *testing.T) {
	g := NewWithT(t)
	srv := startFake(t, mcpfake.Options{Transport: kmcp.TransportSSE})
	r, err := registry.Open(context.Background(), registry.Options{
		Namespace: "team-a",
		Cluster: cluster(t, toolServer("team-a", "logs", srv.URL, true, func(ts *kubagev1alpha1.ToolServer) {
			ts.Spec.Transport = kubagev1alpha1.TransportSSE
		})),
	})
	g.Expect(err).NotTo(HaveOccurred())
	defer r.Close()
	ctx := context.Background()
	srv.Stop()
	_, err = r.Call(ctx, "echo", json.RawMessage(`{"message":"x"}`))
	g.Expect(kmcp.IsServerFault(err)).To(BeTrue(), "%v", err)
	g.Expect(srv.Restart()).To(Succeed())
	res, err := r.Call(ctx, "echo", json.RawMessage(`{"message":"x"}`))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.Text).To(Equal("x"))
}

func TestServerProblemsDoNotFailOpen(t *testing.T) {
	g := NewWithT(t)
	srv := startFake(t, mcpfake.Options{Token: "t"})
	r, err := registry.Open(context.Background(), registry.Options{
		Namespace: "team-a",
		Cluster: cluster(t,
			toolServer("team-a", "noauth", srv.URL, true),
			toolServer("team-a", "nosecret", srv.URL, true, func(ts *kubagev1alpha1.ToolServer) {
				ts.Spec.Headers = []kubagev1alpha1.HeaderSource{{Name: "Authorization",
					SecretKeyRef: &kubagev1alpha1.SecretKeyReference{Name: "gone", Key: "token"}}}
			})),
	})
	g.Expect(err).NotTo(HaveOccurred())
	defer r.Close()
	g.Expect(r.Tools()).To(BeEmpty())
	reasons := map[string]string{}
	for _, p := range r.Problems() {
		reasons[p.Server] = p.Reason
	}
	g.Expect(reasons).To(Equal(map[string]string{"team-a/noauth": "AuthFailed", "team-a/nosecret": "SecretNotFound"}))
	_, err = r.Call(context.Background(), "echo", nil)
	g.Expect(errors.Is(err, registry.ErrUnknownTool)).To(BeTrue())
	g.Expect(strings.Contains(err.Error(), "available")).To(BeFalse(), "no tools to suggest")
}

func TestPoolLendsSessionsToTheNextRegistry(t *testing.T) {
	g := NewWithT(t)
	srv := startFake(t, mcpfake.Options{})
	ts := toolServer("team-a", "logs", srv.URL, true)
	pool := &registry.Pool{}
	defer pool.Close()
	ctx := context.Background()
	open := func(ts *kubagev1alpha1.ToolServer) *registry.Registry {
		r, err := registry.Open(ctx, registry.Options{Namespace: "team-a", Cluster: cluster(t, ts), Pool: pool})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(r.Problems()).To(BeEmpty())
		return r
	}
	for i := 0; i < 3; i++ {
		r := open(ts)
		res, err := r.Call(ctx, "echo", json.RawMessage(`{"message":"x"}`))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(res.Text).To(Equal("x"))
		r.Close()
		g.Expect(pool.Idle()).To(Equal(1))
	}
	g.Expect(srv.Lists()).To(Equal(int64(1)), "one connection and tools/list for three registries in a row")

	// Another configuration gets a session of its own.
	other := open(toolServer("team-a", "logs", srv.URL, true, func(ts *kubagev1alpha1.ToolServer) {
		ts.Spec.Timeout = &metav1.Duration{Duration: 7 * time.Second}
	}))
	g.Expect(srv.Lists()).To(Equal(int64(2)))
	other.Close()
	g.Expect(pool.Idle()).To(Equal(2))

	// A session that failed is closed, not lent again.
	r := open(ts)
	srv.Stop()
	_, err := r.Call(ctx, "echo", json.RawMessage(`{"message":"x"}`))
	g.Expect(err).To(HaveOccurred())
	r.Close()
	g.Expect(pool.Idle()).To(Equal(1))
}
