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
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	restfake "k8s.io/client-go/rest/fake"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/agent/llm"
	"github.com/kubage/kubage/internal/redact"
	"github.com/kubage/kubage/internal/remediate"
	"github.com/kubage/kubage/internal/runner"
	"github.com/kubage/kubage/internal/session"
	"github.com/kubage/kubage/test/fakes/llmtest"
	fx "github.com/kubage/kubage/test/fixtures"
)

const ns = "payments"

// crashLoopApp is a Deployment web whose two pods crash in a loop.
func crashLoopApp() []runtime.Object {
	d := fx.Deployment(ns, "web", 2, "registry.example/web:1.1")
	rs := fx.ReplicaSet(d, 1, 2, "registry.example/web:1.1")
	objs := []runtime.Object{d, rs, fx.Node("node-1")}
	for i := 0; i < 2; i++ {
		p := fx.PodFor(rs, fmt.Sprintf("p%d", i))
		fx.CrashLoop(p, 1, "Error", 7)
		objs = append(objs, p)
	}
	d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.UnavailableReplicas = 0, 0, 2
	return objs
}

// coreSecrets are the credentials inside the examples of formats that the core rules
// catch (no pattern of their own to find them with).
var coreSecrets = map[string]string{
	"gcp-service-account-private-key": "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7q3mKx",
	"jwt":                             "eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6c2hvcDp3ZWIifQ",
	"pem-private-key":                 "MIIEowIBAAKCAQEAq8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZxC8vB3nM7qW2eR5tY",
	"openssh-private-key":             "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
	"url-basic-auth":                  "Zq8mN3vR7tY1uI5o@",
	"bearer-header":                   "Bearer Zq8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZ",
	"basic-header":                    "ZGVwbG95OlpxOG1OM3ZSN3RZMXVJNW8=",
	"password-key-value":              "DB_PASSWORD=Zq8mN3vR7tY1uI5o",
	"password-json":                   `"password":"Zq8mN3vR7tY1uI5o"`,
	"password-yaml":                   "password: Zq8mN3vR7tY1uI5o",
	"postgres-url":                    "shop:Zq8mN3vR7tY1uI5o@",
	"mongodb-srv-url":                 "shop:Zq8mN3vR7tY1uI5o@",
	"ado-connection-string":           "Password=Zq8mN3vR7tY1uI5o",
	"client-secret-key-value":         "Zq8mN3vR7tY1uI5oP9aS",
	"x-api-key-header":                "Zq8mN3vR7tY1uI5oP9aS2dF6",
	"high-entropy-secret-key":         "Zq8mN3vR7tY1uI5oP9aS2dF6gH0jK4",
	"datadog-api-key":                 "4f1c9e2b7a3d8e6f0b5c1a9d2e7f3b8c",
}

// plantedSecret is one credential and the example it was planted in.
type plantedSecret struct {
	format, example, secret string
}

// plantedSecrets derives, for every format, the credential its example carries: what
// its pattern matches (the capture group when it has one) or the core secret above.
func plantedSecrets(t *testing.T) []plantedSecret {
	var out []plantedSecret
	for _, f := range redact.Formats {
		secret := coreSecrets[f.Name]
		if f.Pattern != "" {
			m := regexp.MustCompile(f.Pattern).FindStringSubmatch(f.Positive)
			if m == nil {
				t.Fatalf("%s: the pattern misses its own example", f.Name)
			}
			secret = m[0]
			for _, g := range m[1:] {
				if g != "" {
					secret = g
					break
				}
			}
		}
		if len(secret) < 12 {
			t.Fatalf("%s: no credential of at least 12 bytes to look for (%q)", f.Name, secret)
		}
		out = append(out, plantedSecret{f.Name, f.Positive, secret})
	}
	return out
}

// withPlantedLogs serves every pod's log as logs; the fake clientset's own is a constant.
type withPlantedLogs struct {
	*fake.Clientset
	logs string
}

func (c withPlantedLogs) CoreV1() corev1client.CoreV1Interface {
	return coreWithLogs{c.Clientset.CoreV1(), c.logs}
}

type coreWithLogs struct {
	corev1client.CoreV1Interface
	logs string
}

func (c coreWithLogs) Pods(ns string) corev1client.PodInterface {
	return podsWithLogs{c.CoreV1Interface.Pods(ns), ns, c.logs}
}

type podsWithLogs struct {
	corev1client.PodInterface
	ns, logs string
}

func (p podsWithLogs) GetLogs(name string, _ *corev1.PodLogOptions) *rest.Request {
	rc := &restfake.RESTClient{NegotiatedSerializer: clientgoscheme.Codecs.WithoutConversion(),
		Client: restfake.CreateHTTPClient(func(*http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(p.logs))}, nil
		})}
	return rc.Get().Namespace(p.ns).Resource("pods").Name(name).SubResource("log")
}

// plantedApp is the crash-looping app with every secret in its pods' termination
// message, annotations and logs, in Events about them and in a ConfigMap they mount.
func plantedApp(secrets []plantedSecret) (objs []runtime.Object, logs string, planted int) {
	var all []string
	for _, s := range secrets {
		all = append(all, s.example)
	}
	logs = strings.Join(all, "\n")
	base := crashLoopApp()
	cm := fx.ConfigMap(ns, "web-config")
	cm.Data = map[string]string{}
	for i, s := range secrets {
		cm.Data[fmt.Sprintf("setting-%02d", i)] = s.example
	}
	planted += len(secrets)
	for _, o := range base {
		p, ok := o.(*corev1.Pod)
		if !ok {
			continue
		}
		p.Annotations = map[string]string{}
		for i, s := range secrets {
			p.Annotations[fmt.Sprintf("example.com/setting-%02d", i)] = s.example
		}
		p.Status.ContainerStatuses[0].LastTerminationState.Terminated.Message = logs
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "config", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}}}})
		for i, s := range secrets {
			ev := fx.Event(ns, "Pod", p.Name, "Warning", "BackOff", s.example, 3, time.Minute)
			ev.Name = fmt.Sprintf("%s.planted%02d", p.Name, i)
			objs = append(objs, ev)
		}
		planted += 4 * len(secrets) // annotations, termination message, logs and Events
	}
	return append(append(objs, base...), cm), logs, planted
}

// sinks is everything the session wrote: ConfigMaps other than the planted one, the
// status, and Events other than the planted ones.
func sinks(t *testing.T, cs *fake.Clientset, ts *kubagev1alpha1.Troubleshoot) map[string]string {
	ctx := context.Background()
	out := map[string]string{}
	st, err := json.Marshal(ts.Status)
	if err != nil {
		t.Fatal(err)
	}
	out["status"] = string(st)
	cms, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cm := range cms.Items {
		if cm.Name == "web-config" {
			continue
		}
		raw, _ := json.Marshal(cm)
		out["ConfigMap/"+cm.Name] = string(raw)
	}
	evs, err := cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs.Items {
		if !strings.Contains(ev.Name, ".planted") {
			raw, _ := json.Marshal(ev)
			out["Event/"+ev.Name] = string(raw)
		}
	}
	return out
}

// leaks lists every planted secret found in a sink.
func leaks(secrets []plantedSecret, sinks map[string]string) []string {
	var out []string
	for name, text := range sinks {
		for _, s := range secrets {
			if strings.Contains(text, s.secret) {
				out = append(out, fmt.Sprintf("%s leaks %s (%s)", name, s.format, s.secret))
			}
		}
	}
	return out
}

func TestPlantedSecretsReachNoSink(t *testing.T) {
	secrets := plantedSecrets(t)
	if len(secrets) < 40 {
		t.Fatalf("%d formats, want at least 40", len(secrets))
	}
	for _, withModel := range []bool{false, true} {
		t.Run(fmt.Sprintf("model=%v", withModel), func(t *testing.T) {
			g := NewWithT(t)
			objs, logs, planted := plantedApp(secrets)
			fakeCS := fake.NewClientset(objs...)
			cs := withPlantedLogs{fakeCS, logs}
			re := agent.NewRuleEngine(cs)
			re.Now = func() time.Time { return fx.Now }
			inproc := runner.NewInProcess(cs, re, runner.InProcessOptions{})
			t.Cleanup(inproc.Stop)
			var brain agent.Brain = re
			var srv *llmtest.Server
			if withModel {
				srv = llmtest.NewServer()
				t.Cleanup(srv.Close)
				srv.SetAuto(llmtest.DemoResponder(llmtest.DemoOptions{}))
				b, err := llm.New(llm.Config{BaseURL: srv.BaseURL(), Model: "demo", RetryBaseDelay: time.Millisecond},
					llm.Options{Fallback: re, Pool: &llm.Pool{}})
				g.Expect(err).NotTo(HaveOccurred())
				brain = b
			}
			engine := &session.Engine{
				Client:        cs,
				Brains:        func(context.Context, *kubagev1alpha1.Troubleshoot) (agent.Brain, error) { return brain, nil },
				Runners:       map[kubagev1alpha1.TaskRunner]runner.Runner{kubagev1alpha1.TaskRunnerInProcess: inproc},
				DefaultRunner: kubagev1alpha1.TaskRunnerInProcess,
				Executor:      &remediate.Executor{Client: cs},
				Now:           func() time.Time { return fx.Now },
				PollInterval:  time.Millisecond,
			}
			ts := &kubagev1alpha1.Troubleshoot{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-restarts", UID: "ts-uid-1", Generation: 1},
				Spec: kubagev1alpha1.TroubleshootSpec{
					Problem: "web keeps restarting; the on-call pasted " + secrets[0].example,
					Target:  &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "web"},
					Budget: kubagev1alpha1.Budget{MaxIterations: 5, MaxToolCalls: 100, MaxTokens: 100000, Parallelism: 2,
						Timeout: &metav1.Duration{Duration: 5 * time.Minute}},
				},
			}
			g.Eventually(func(g Gomega) {
				_, err := engine.Advance(context.Background(), ts)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(ts.Status.Phase).To(BeElementOf(kubagev1alpha1.PhaseCompleted, kubagev1alpha1.PhaseFailed))
			}).WithTimeout(20 * time.Second).WithPolling(time.Millisecond).Should(Succeed())
			g.Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseCompleted))

			out := sinks(t, fakeCS, ts)
			if srv != nil {
				g.Expect(srv.Requests()).NotTo(BeEmpty(), "the model was asked")
				for i, req := range srv.Requests() {
					out[fmt.Sprintf("model request %d", i)] = req.Text()
				}
			}
			var report string
			for name, text := range out {
				if strings.HasPrefix(name, "ConfigMap/") && strings.Contains(name, "report") {
					report = text
				}
			}
			g.Expect(report).NotTo(BeEmpty(), "the session wrote its report")
			all := strings.Join(func() []string {
				var v []string
				for _, s := range out {
					v = append(v, s)
				}
				return v
			}(), "\n")
			g.Expect(all).To(ContainSubstring(redact.Marker), "planted secrets reached the sinks, redacted")
			found := leaks(secrets, out)
			t.Logf("planted %d secrets (%d formats x %d places); scanned %d sinks; %d leaks", planted, len(secrets), planted/len(secrets), len(out), len(found))
			g.Expect(found).To(BeEmpty())
		})
	}
}
