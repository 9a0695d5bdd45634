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
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// Logs add evidence, they never pull the conclusion away from a structural cause: a consumer
// that fails talking to a provider is explained by the provider's fault, whether its log is
// readable or not, whether the session targets the consumer or the namespace, and whatever
// order the findings arrive in.

// providerFault breaks the provider (its Deployment, Service or namespace) and says which
// rule and culprit explain it; names vary per cluster.
type providerFault struct {
	name    string
	objs    func(c cluster) []runtime.Object
	rule    string
	culprit func(c cluster) string
}

// cluster is one spelling of the same two-tier application.
type cluster struct {
	consumer, provider, label, ip string
	port                          int32
}

var spellings = []cluster{
	{consumer: "web", provider: "api", label: "app", ip: "10.96.0.20", port: 80},
	{consumer: "checkout", provider: "inventory", label: "app.kubernetes.io/name", ip: "10.96.14.7", port: 8080},
	{consumer: "ledger-worker", provider: "rates-svc", label: "component", ip: "10.100.3.9", port: 9000},
}

func (c cluster) sel() map[string]string { return map[string]string{c.label: c.provider} }

// providerApp is the provider's Deployment, its pods mutated by pod, and its Service.
func providerApp(c cluster, n int, spec func(*corev1.PodSpec), pod func(*corev1.Pod)) []runtime.Object {
	o := labelledApp(c.provider, c.label, n, spec, pod)
	return append(o, svcAt(c.provider, c.ip, c.sel(), c.port))
}

// labelledApp is app() with the pod label key of the cluster's spelling.
func labelledApp(name, key string, n int, spec func(*corev1.PodSpec), pod func(*corev1.Pod)) []runtime.Object {
	d := fx.Deployment(ns, name, int32(n), "registry.example/"+name+":1")
	lbl := map[string]string{key: name}
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: lbl}
	d.Spec.Template.Labels = lbl
	if spec != nil {
		spec(&d.Spec.Template.Spec)
	}
	rs := fx.ReplicaSet(d, 1, int32(n), "registry.example/"+name+":1")
	rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: lbl}
	rs.Spec.Template.Labels = lbl
	objs := []runtime.Object{d, rs}
	for i := 0; i < n; i++ {
		p := fx.PodFor(rs, fmt.Sprintf("x%04d", i))
		if pod != nil {
			pod(p)
		}
		objs = append(objs, p)
	}
	return objs
}

func providerFaults() []providerFault {
	return []providerFault{
		{name: "Service selector matches no pod", rule: "service-selector-mismatch",
			objs: func(c cluster) []runtime.Object {
				o := labelledApp(c.provider, c.label, 1, nil, nil)
				return append(o, svcAt(c.provider, c.ip, map[string]string{c.label: c.provider + "-server"}, c.port))
			},
			culprit: func(c cluster) string { return "Service/" + c.provider }},
		{name: "provider pods miss a Secret", rule: "secret-missing",
			objs: func(c cluster) []runtime.Object {
				return providerApp(c, 1, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: c.provider + "-token"}, Key: "token"}}}}
				}, func(p *corev1.Pod) {
					fx.Waiting(p, "CreateContainerConfigError", `secret "`+c.provider+`-token" not found`)
				})
			},
			culprit: func(c cluster) string { return "Secret/" + c.provider + "-token" }},
		{name: "provider pods miss a ConfigMap key", rule: "configmap-key-missing",
			objs: func(c cluster) []runtime.Object {
				o := providerApp(c, 1, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "MODE", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: c.provider + "-settings"}, Key: "mode"}}}}
				}, func(p *corev1.Pod) {
					fx.Waiting(p, "CreateContainerConfigError", "couldn't find key mode in ConfigMap "+ns+"/"+c.provider+"-settings")
				})
				return append(o, cmWith(c.provider+"-settings", "level", "info"))
			},
			culprit: func(c cluster) string { return "ConfigMap/" + c.provider + "-settings" }},
		{name: "provider OOM-killed", rule: "oom-killed",
			objs: func(c cluster) []runtime.Object {
				return providerApp(c, 1, nil, func(p *corev1.Pod) { fx.CrashLoop(p, 137, "OOMKilled", 5) })
			},
			culprit: func(c cluster) string { return "Deployment/" + c.provider }},
		{name: "provider pods Pending on a taint", rule: "unschedulable-taint",
			objs: func(c cluster) []runtime.Object {
				return providerApp(c, 1, nil, func(p *corev1.Pod) {
					fx.Unschedulable(p, "0/3 nodes are available: 3 node(s) had untolerated taint {dedicated: batch}. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")
				})
			},
			culprit: func(c cluster) string { return "Deployment/" + c.provider }},
		{name: "ingress NetworkPolicy admits nobody", rule: "networkpolicy-deny-ingress",
			objs: func(c cluster) []runtime.Object {
				pol := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: c.provider + "-lockdown", Namespace: ns},
					Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: c.sel()}, PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}}}
				o := providerApp(c, 1, nil, nil)
				return append(o, pol)
			},
			culprit: func(c cluster) string { return "NetworkPolicy/" + c.provider + "-lockdown" }},
		{name: "provider cannot be created over its quota", rule: "quota-exceeded",
			objs: func(c cluster) []runtime.Object {
				o := providerApp(c, 0, nil, nil)
				d := o[0].(*appsv1.Deployment)
				rs := o[1].(*appsv1.ReplicaSet)
				d.Spec.Replicas, rs.Spec.Replicas = fx.Ptr(int32(2)), fx.Ptr(int32(2))
				msg := `pods "` + c.provider + `-x" is forbidden: exceeded quota: ` + c.provider + `-pods, requested: pods=1, used: pods=4, limited: pods=4`
				d.Status.Conditions = append(d.Status.Conditions, appsv1.DeploymentCondition{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: msg})
				q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: c.provider + "-pods", Namespace: ns},
					Spec:   corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("4")}},
					Status: corev1.ResourceQuotaStatus{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("4")}, Used: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("4")}}}
				return append(o, q, fx.Event(ns, "ReplicaSet", rs.Name, "Warning", "FailedCreate", "Error creating: "+msg, 30, time.Minute))
			},
			culprit: func(c cluster) string { return "ResourceQuota/" + c.provider + "-pods" }},
	}
}

// consumerSide is how the consumer suffers and what its log says (by name, by address).
type consumerSide struct {
	name  string
	build func(c cluster) []runtime.Object
	log   func(c cluster) string
	job   bool // the consumer is Job <consumer>-sync
}

// consumerApp is the consumer's Deployment, configured to call the provider.
func consumerApp(c cluster, pod func(*corev1.Pod)) []runtime.Object {
	return labelledApp(c.consumer, c.label, 1, func(s *corev1.PodSpec) {
		s.Containers[0].Env = []corev1.EnvVar{{Name: "UPSTREAM_URL", Value: fmt.Sprintf("http://%s:%d", c.provider, c.port)}}
	}, pod)
}

func consumerSides() []consumerSide {
	return []consumerSide{
		{name: "crash-looping, host named", build: func(c cluster) []runtime.Object { return consumerApp(c, crashing) }, log: func(c cluster) string {
			return fmt.Sprintf("INFO boot\nERROR startup check failed: Get \"http://%s:%d/healthz\": dial tcp %s:%d: connect: connection refused\nINFO exiting\n", c.provider, c.port, c.ip, c.port)
		}},
		{name: "crash-looping, address only", build: func(c cluster) []runtime.Object { return consumerApp(c, crashing) }, log: func(c cluster) string {
			return fmt.Sprintf("{\"level\":\"error\",\"msg\":\"upstream failed\",\"error\":\"dial tcp %s:%d: i/o timeout\"}\n", c.ip, c.port)
		}},
		{name: "Ready, repeating an upstream error", build: func(c cluster) []runtime.Object { return consumerApp(c, nil) }, log: func(c cluster) string {
			l := fmt.Sprintf("2026-01-01T10:00:00Z ERROR request to http://%s.%s.svc.cluster.local:%d/v1 failed: 503 Service Unavailable\n", c.provider, ns, c.port)
			return strings.Repeat("2026-01-01T10:00:00Z INFO tick\n"+l, 3)
		}},
		{name: "readiness failing", build: func(c cluster) []runtime.Object {
			o := consumerApp(c, fx.SetNotReady)
			for _, x := range o {
				if p, ok := x.(*corev1.Pod); ok {
					p.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 5}
					o = append(o, fx.Event(ns, "Pod", p.Name, "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 40, time.Minute))
				}
			}
			return o
		}, log: func(c cluster) string {
			return fmt.Sprintf("WARN dependency check failed err=\"GET http://%s/ready: dial tcp %s:%d: connect: connection refused\"\n", c.provider, c.ip, c.port)
		}},
		{name: "Job failing", build: func(c cluster) []runtime.Object {
			j := fx.Job(ns, c.consumer+"-sync", "registry.example/sync:1")
			j.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "UPSTREAM", Value: fmt.Sprintf("%s:%d", c.provider, c.port)}}
			j.Status.Failed = 7
			j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit"}}
			return []runtime.Object{j, fx.FailedJobPod(j, "abcde", 1)}
		}, job: true, log: func(c cluster) string {
			return fmt.Sprintf("Traceback (most recent call last):\n  File \"sync.py\", line 3\nrequests.exceptions.ConnectionError: HTTPConnectionPool(host='%s', port=%d): Max retries exceeded (Caused by NewConnectionError: [Errno 111] Connection refused)\n", c.provider, c.port)
		}},
	}
}

func TestStructuralCauseOutranksConsumerLogs(t *testing.T) {
	for ci, c := range spellings {
		for _, pf := range providerFaults() {
			for _, cs := range consumerSides() {
				for _, logs := range []bool{true, false} {
					for _, targeted := range []bool{false, true} {
						name := fmt.Sprintf("%s/%s/%s/logs=%t/targeted=%t", c.consumer, pf.name, cs.name, logs, targeted)
						t.Run(name, func(t *testing.T) {
							objs := cs.build(c)
							objs = append(objs, pf.objs(c)...)
							objs = append(objs, fx.Node("node-1"))
							e := agent.NewRuleEngine(fake.NewClientset(objs...))
							e.Now = func() time.Time { return fx.Now }
							if logs {
								e.Logs = logBook{c.consumer + "-": cs.log(c), c.provider + "-": "INFO started\n"}.source()
							} else {
								e.Logs = logBook(nil).source()
							}
							s := agent.Session{ID: "t", Problem: c.consumer + " is failing", Namespace: ns}
							if targeted {
								s.Target = &agent.Target{Kind: "Deployment", Name: c.consumer}
								if cs.job {
									s.Target = &agent.Target{Kind: "Job", Name: c.consumer + "-sync"}
								}
							}
							p := driveProgress(t, e, s)
							want := pf.rule + " on " + pf.culprit(c)
							rng := rand.New(rand.NewSource(int64(ci)))
							for i := 0; i < 4; i++ {
								cl, err := e.Summarize(context.Background(), s, p)
								if err != nil {
									t.Fatal(err)
								}
								rc := cl.RootCause
								got := rc.Rule + " on " + rc.Culprit.Kind + "/" + rc.Culprit.Name
								if got != want {
									t.Fatalf("order %d: got %s, want %s\nsummary: %s\nchain: %v\nalternatives: %v", i, got, want, rc.Summary, rc.Chain, alts(cl))
								}
								p = shuffled(rng, p)
							}
						})
					}
				}
			}
		}
	}
}

func alts(c agent.Conclusion) []string {
	var out []string
	for _, a := range c.Alternatives {
		out = append(out, a.Rule+" on "+a.Culprit.Kind+"/"+a.Culprit.Name)
	}
	return out
}

// shuffled returns p with its results, and the findings of each, in another order.
func shuffled(rng *rand.Rand, p agent.Progress) agent.Progress {
	q := p
	q.Results = append([]agent.TaskResult(nil), p.Results...)
	rng.Shuffle(len(q.Results), func(i, j int) { q.Results[i], q.Results[j] = q.Results[j], q.Results[i] })
	for i := range q.Results {
		fs := append([]agent.Finding(nil), q.Results[i].Findings...)
		rng.Shuffle(len(fs), func(a, b int) { fs[a], fs[b] = fs[b], fs[a] })
		q.Results[i].Findings = fs
	}
	return q
}

// driveProgress runs the loop of drive and returns the progress Summarize gets.
func driveProgress(t *testing.T, e *agent.RuleEngine, s agent.Session) agent.Progress {
	t.Helper()
	ctx := context.Background()
	p := agent.Progress{Iteration: 1}
	for i := 0; i < 6; i++ {
		tasks, err := e.Plan(ctx, s, p)
		if err != nil {
			t.Fatalf("plan: %v", err)
		}
		for _, task := range tasks {
			res, err := e.Investigate(ctx, s, task)
			if err != nil {
				res.Error = err.Error()
			}
			p.Results = append(p.Results, res)
		}
		v, err := e.Judge(ctx, s, p)
		if err != nil {
			t.Fatalf("judge: %v", err)
		}
		if v.Decision != agent.Replan {
			break
		}
		p.Iteration++
		p.Verdict = &v
	}
	return p
}

// rootUnderShuffles drives a session and checks that every order of its findings gives want.
func rootUnderShuffles(t *testing.T, objs []runtime.Object, logs logBook, s agent.Session, want string) agent.Conclusion {
	t.Helper()
	e := agent.NewRuleEngine(fake.NewClientset(objs...))
	e.Now = func() time.Time { return fx.Now }
	e.Logs = logs.source()
	p := driveProgress(t, e, s)
	rng := rand.New(rand.NewSource(int64(len(objs))))
	var first agent.Conclusion
	for i := 0; i < 6; i++ {
		cl, err := e.Summarize(context.Background(), s, p)
		if err != nil {
			t.Fatal(err)
		}
		rc := cl.RootCause
		got := rc.Rule + " on " + rc.Culprit.Kind + "/" + rc.Culprit.Name
		if got != want {
			t.Fatalf("order %d: got %s, want %s\nsummary: %s\nchain: %v\nalternatives: %v", i, got, want, rc.Summary, rc.Chain, alts(cl))
		}
		if i == 0 {
			first = cl
		}
		p = shuffled(rng, p)
	}
	return first
}

type rankCase struct {
	name string
	objs func(c cluster) []runtime.Object
	logs func(c cluster) logBook
	want func(c cluster) string
	// target, when set, is also tried as the session's target.
	target func(c cluster) *agent.Target
}

func runRankCases(t *testing.T, cases []rankCase) {
	for _, c := range spellings {
		for _, tc := range cases {
			for _, logs := range []bool{true, false} {
				targets := []*agent.Target{nil}
				if tc.target != nil {
					targets = append(targets, tc.target(c))
				}
				for _, tg := range targets {
					t.Run(fmt.Sprintf("%s/%s/logs=%t/targeted=%t", c.consumer, tc.name, logs, tg != nil), func(t *testing.T) {
						lb := logBook(nil)
						if logs {
							lb = tc.logs(c)
						}
						objs := append(tc.objs(c), fx.Node("node-1"))
						cl := rootUnderShuffles(t, objs, lb, agent.Session{ID: "t", Problem: c.consumer + " is failing", Namespace: ns, Target: tg}, tc.want(c))
						t.Logf("%s", cl.RootCause.Summary)
					})
				}
			}
		}
	}
}

func TestMoreStructuralCauses(t *testing.T) {
	consumerTarget := func(c cluster) *agent.Target { return &agent.Target{Kind: "Deployment", Name: c.consumer} }
	runRankCases(t, []rankCase{
		{name: "egress policy on the consumer drops DNS, the Service exists",
			objs: func(c cluster) []runtime.Object {
				o := consumerApp(c, crashing)
				o = append(o, providerApp(c, 1, nil, nil)...)
				pol := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: c.consumer + "-egress", Namespace: ns},
					Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{c.label: c.consumer}}, PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
						Egress: []networkingv1.NetworkPolicyEgressRule{{To: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: c.sel()}}}}}}}
				return append(o, pol)
			},
			logs: func(c cluster) logBook {
				return logBook{c.consumer + "-": fmt.Sprintf("ERROR dial tcp: lookup %s on 10.96.0.10:53: read udp 10.244.1.5:40000->10.96.0.10:53: i/o timeout\n", c.provider)}
			},
			want:   func(c cluster) string { return "networkpolicy-deny-egress on NetworkPolicy/" + c.consumer + "-egress" },
			target: consumerTarget},
		{name: "Ready consumer, address only, Service selector matches nothing",
			objs: func(c cluster) []runtime.Object {
				o := consumerApp(c, nil)
				o = append(o, labelledApp(c.provider, c.label, 1, nil, nil)...)
				return append(o, svcAt(c.provider, c.ip, map[string]string{c.label: c.provider + "-v2"}, c.port))
			},
			logs: func(c cluster) logBook {
				l := fmt.Sprintf("level=error msg=\"call failed\" err=\"dial tcp %s:%d: connect: connection refused\"\n", c.ip, c.port)
				return logBook{c.consumer + "-": strings.Repeat("level=info msg=tick\n"+l, 3)}
			},
			want:   func(c cluster) string { return "service-selector-mismatch on Service/" + c.provider },
			target: consumerTarget},
		{name: "provider crash-loops on its own database whose Service has no endpoints",
			objs: func(c cluster) []runtime.Object {
				o := consumerApp(c, crashing)
				o = append(o, providerApp(c, 1, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "DB_HOST", Value: c.provider + "-db"}}
				}, crashing)...)
				o = append(o, labelledApp(c.provider+"-db", c.label, 1, nil, nil)...)
				return append(o, svcAt(c.provider+"-db", "10.96.77.7", map[string]string{c.label: c.provider + "-database"}, 5432))
			},
			logs: func(c cluster) logBook {
				return logBook{
					c.consumer + "-": fmt.Sprintf("ERROR dial tcp %s:%d: connect: connection refused\n", c.ip, c.port),
					c.provider + "-": fmt.Sprintf("FATAL could not connect to server: Connection refused\n\tIs the server running on host \"%s-db\" (10.96.77.7) and accepting\n\tTCP/IP connections on port 5432?\n", c.provider),
				}
			},
			want:   func(c cluster) string { return "service-selector-mismatch on Service/" + c.provider + "-db" },
			target: consumerTarget},
	})
}
