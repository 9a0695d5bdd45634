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

package alerts

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// The envtest tests run the receiver over real HTTP on 127.0.0.1 against a real
// kube-apiserver and etcd with the CRDs from config/crd/bases, so every session the
// receiver builds passes the API server's own validation.

var (
	envOnce sync.Once
	env     *envtest.Environment
	envCfg  *rest.Config
	envErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if env != nil {
		_ = env.Stop()
	}
	os.Exit(code)
}

// apiServer starts the package's envtest environment on first use.
func apiServer(t *testing.T) (*rest.Config, client.Client) {
	t.Helper()
	if testing.Short() {
		t.Skip("envtest is not run with -short")
	}
	envOnce.Do(func() {
		root, err := filepath.Abs(filepath.Join("..", ".."))
		if err != nil {
			envErr = err
			return
		}
		env = &envtest.Environment{
			CRDDirectoryPaths:     []string{filepath.Join(root, "config", "crd", "bases")},
			ErrorIfCRDPathMissing: true,
			// KUBEBUILDER_ASSETS wins over this fallback to the pinned binaries.
			BinaryAssetsDirectory: filepath.Join(root, "bin", "k8s"),
		}
		envCfg, envErr = env.Start()
	})
	if envErr != nil {
		t.Fatalf("starting envtest: %v", envErr)
	}
	c, err := client.New(envCfg, client.Options{Scheme: testScheme(t)})
	if err != nil {
		t.Fatal(err)
	}
	return envCfg, c
}

func createNamespace(t *testing.T, c client.Client, name string) {
	t.Helper()
	if err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
}

// liveReceiver serves a receiver on 127.0.0.1 until the test ends.
func liveReceiver(t *testing.T, c client.Client, pol Policy, hopts HandlerOptions) (string, *Processor) {
	t.Helper()
	proc := NewProcessor(c, c, StaticPolicy{P: mustPolicy(t, pol)}, ProcessorOptions{})
	srv := NewServer(NewHandler(proc, StaticToken(testToken), hopts), ServerOptions{Address: "127.0.0.1:0"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	waitCtx, waitCancel := context.WithTimeout(ctx, 10*time.Second)
	defer waitCancel()
	addr := srv.Addr(waitCtx)
	if addr == nil {
		t.Fatal("receiver did not start")
	}
	return "http://" + addr.String() + Path, proc
}

func TestEnvtestRealPayloads(t *testing.T) {
	_, c := apiServer(t)
	createNamespace(t, c, "shop")
	url, proc := liveReceiver(t, c, DefaultPolicy(), HandlerOptions{})
	ctx := context.Background()
	firing := readTestdata(t, "crashloop_firing.json")
	group := readTestdata(t, "group_firing.json")

	created0 := testutil.ToFloat64(sessionsCreated)
	r := post(t, url, testToken, "application/json", bytes.NewReader(firing))
	if r.code != http.StatusOK || r.summary.Created != 1 {
		t.Fatalf("first delivery: %d %+v %+v", r.code, r.summary, r.errBody)
	}
	name := r.summary.Alerts[0].Session

	var ts kubagev1alpha1.Troubleshoot
	if err := c.Get(ctx, client.ObjectKey{Namespace: "shop", Name: name}, &ts); err != nil {
		t.Fatal(err)
	}
	if ts.Spec.Alert == nil || ts.Spec.Alert.Fingerprint != "5e8f3c2a1b0d9e7f" || len(ts.Spec.Hints) < 3 ||
		ts.Spec.Target == nil || ts.Spec.Target.Kind != "Pod" || ts.Spec.Budget.MaxIterations != 5 {
		t.Fatalf("stored session lacks the alert's data or the API defaults: %+v", ts.Spec)
	}

	// Retries and repeats, alone and inside a bigger group, create nothing more.
	writes := proc.Writes()
	for i := 0; i < 5; i++ {
		if r := post(t, url, testToken, "application/json", bytes.NewReader(firing)); r.code != http.StatusOK || r.summary.Duplicates != 1 {
			t.Fatalf("repeat %d: %d %+v", i, r.code, r.summary)
		}
	}
	if proc.Writes() != writes {
		t.Errorf("repeats cost %d API writes; the cache should answer them", proc.Writes()-writes)
	}
	for i := 0; i < 2; i++ {
		r := post(t, url, testToken, "application/json", bytes.NewReader(group))
		if r.code != http.StatusOK || r.summary.Created+r.summary.Duplicates != 2 {
			t.Fatalf("group %d: %d %+v", i, r.code, r.summary)
		}
	}
	if n := countSessions(t, c, "shop"); n != 3 {
		t.Fatalf("%d sessions in shop, want 3 (crash loop, deployment, job)", n)
	}
	if got := testutil.ToFloat64(sessionsCreated) - created0; got != 3 {
		t.Errorf("kubage_alerts_sessions_created_total grew by %v, want 3", got)
	}

	// A receiver restarted (empty cache) relies on AlreadyExists.
	url2, _ := liveReceiver(t, c, DefaultPolicy(), HandlerOptions{})
	if r := post(t, url2, testToken, "application/json", bytes.NewReader(firing)); r.code != http.StatusOK || r.summary.Duplicates != 1 {
		t.Fatalf("after restart: %d %+v", r.code, r.summary)
	}

	// Resolved: recorded on the session, twice without a second write, never a new session.
	resolved := readTestdata(t, "crashloop_resolved.json")
	if r := post(t, url, testToken, "application/json", bytes.NewReader(resolved)); r.code != http.StatusOK || r.summary.Resolved != 1 {
		t.Fatalf("resolved: %d %+v", r.code, r.summary)
	}
	writes = proc.Writes()
	if r := post(t, url, testToken, "application/json", bytes.NewReader(resolved)); r.code != http.StatusOK || r.summary.Resolved != 1 || proc.Writes() != writes {
		t.Fatalf("repeated resolved: %d %+v, %d writes", r.code, r.summary, proc.Writes()-writes)
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "shop", Name: name}, &ts); err != nil {
		t.Fatal(err)
	}
	if ts.Labels[LabelAlertStatus] != StatusResolved || ts.Annotations[AnnotationResolvedAt] != "2026-03-14T10:01:53Z" || ts.Generation != 1 {
		t.Fatalf("resolution: labels %v annotations %v generation %d (metadata only, no spec change)", ts.Labels, ts.Annotations, ts.Generation)
	}
	if n := countSessions(t, c, "shop"); n != 3 {
		t.Fatalf("%d sessions after resolution", n)
	}
}

func TestEnvtestBadInputCreatesNothing(t *testing.T) {
	_, c := apiServer(t)
	createNamespace(t, c, "guarded")
	url, _ := liveReceiver(t, c, DefaultPolicy(), HandlerOptions{})
	good := strings.ReplaceAll(string(readTestdata(t, "crashloop_firing.json")), `"namespace": "shop"`, `"namespace": "guarded"`)
	before := countSessions(t, c, "")
	for _, tc := range []struct {
		name, token, body string
		code              int
	}{
		{"wrong token", "not-the-token-not-the-token", good, http.StatusUnauthorized},
		{"malformed JSON", testToken, good[:200], http.StatusBadRequest},
		{"wrong version", testToken, strings.Replace(good, `"version": "4"`, `"version": "2"`, 1), http.StatusBadRequest},
		{"missing startsAt", testToken, strings.Replace(good, `"startsAt": "2026-03-14T09:26:53.785Z",`, ``, 1), http.StatusBadRequest},
		{"10 MB body", testToken, strings.Replace(good, `"receiver": "kubage"`, `"receiver": "`+strings.Repeat("k", 10<<20)+`"`, 1), http.StatusRequestEntityTooLarge},
		{"namespace does not exist", testToken, strings.ReplaceAll(good, `"namespace": "guarded"`, `"namespace": "no-such-namespace"`), http.StatusUnprocessableEntity},
		{"namespace not a name", testToken, strings.ReplaceAll(good, `"namespace": "guarded"`, `"namespace": "guarded/../kube-system"`), http.StatusUnprocessableEntity},
		{"pod not a name", testToken, strings.Replace(good, `"pod": "checkout-7d9c8b6f5-x2kqp"`, `"pod": "checkout 7d9c8b6f5"`, 1), http.StatusUnprocessableEntity},
		{"control characters", testToken, strings.Replace(good, `"pod": "checkout-7d9c8b6f5-x2kqp"`, `"pod": "checkout\u001b[31m"`, 1), http.StatusUnprocessableEntity},
		{"unicode look-alike namespace", testToken, strings.ReplaceAll(good, `"namespace": "guarded"`, `"namespace": "guаrded"`), http.StatusUnprocessableEntity},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := post(t, url, tc.token, "application/json", strings.NewReader(tc.body))
			if r.code != tc.code || r.errBody.Reason == "" {
				t.Fatalf("got %d %+v, want %d with a reason", r.code, r.errBody, tc.code)
			}
		})
	}
	if n := countSessions(t, c, "") - before; n != 0 {
		t.Fatalf("bad input created %d sessions", n)
	}
	// The same payload, well-formed, does create: the cases above failed for their reason.
	if r := post(t, url, testToken, "application/json", strings.NewReader(good)); r.code != http.StatusOK || r.summary.Created != 1 {
		t.Fatalf("control: %d %+v", r.code, r.errBody)
	}
}

func TestEnvtestUnicodeAlertName(t *testing.T) {
	_, c := apiServer(t)
	createNamespace(t, c, "intl")
	url, _ := liveReceiver(t, c, DefaultPolicy(), HandlerOptions{})
	body := `{"version":"4","status":"firing","receiver":"kubage","alerts":[{"status":"firing",
	 "labels":{"alertname":"Größe überschritten ☃","namespace":"intl"},
	 "annotations":{"summary":"Speicher fast voll — 漢字","description":"a\u0000b\u202ec"},
	 "startsAt":"2026-03-14T09:00:00Z","fingerprint":"00aa11bb22cc33dd"}]}`
	r := post(t, url, testToken, "application/json", strings.NewReader(body))
	if r.code != http.StatusOK || r.summary.Created != 1 {
		t.Fatalf("%d %+v %+v", r.code, r.summary, r.errBody)
	}
	var ts kubagev1alpha1.Troubleshoot
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "intl", Name: r.summary.Alerts[0].Session}, &ts); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ts.Name, "alert-gr-e-berschritten-") || ts.Spec.Alert.AlertName != "Größe überschritten ☃" ||
		!strings.Contains(ts.Spec.Problem, "漢字") || !strings.Contains(ts.Spec.Problem, "description: abc") {
		t.Fatalf("name %q alert %q problem %q", ts.Name, ts.Spec.Alert.AlertName, ts.Spec.Problem)
	}
}

func TestEnvtestDefaultNamespaceAndPolicy(t *testing.T) {
	_, c := apiServer(t)
	createNamespace(t, c, "ops")
	createNamespace(t, c, "shop2")
	pol := DefaultPolicy()
	pol.DefaultNamespace = "ops"
	pol.Matchers = append(pol.Matchers, `severity=~"critical|warning"`)
	pol.Mode = kubagev1alpha1.ModeRemediate
	url, _ := liveReceiver(t, c, pol, HandlerOptions{})
	body := strings.ReplaceAll(string(readTestdata(t, "group_firing.json")), `"namespace": "shop"`, `"namespace": "shop2"`)
	r := post(t, url, testToken, "application/json", strings.NewReader(body))
	if r.code != http.StatusOK || r.summary.Created != 3 || r.summary.Skipped != 1 {
		t.Fatalf("%d %+v", r.code, r.summary)
	}
	var list kubagev1alpha1.TroubleshootList
	if err := c.List(context.Background(), &list, client.InNamespace("ops")); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Spec.Target.Kind != "Node" || list.Items[0].Spec.Mode != kubagev1alpha1.ModeRemediate {
		t.Fatalf("node alert in the default namespace: %+v", list.Items)
	}
}

func TestEnvtestStorm(t *testing.T) {
	cfg, _ := apiServer(t)
	for _, intake := range []IntakeOptions{{}, {Journal: true}} {
		t.Run(fmt.Sprintf("journal=%v", intake.Journal), func(t *testing.T) {
			created0, dup0 := testutil.ToFloat64(sessionsCreated), testutil.ToFloat64(duplicatesSuppressed)
			ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
			defer cancel()
			res, err := BenchIntake(ctx, cfg, StormOptions{Alerts: 5000, Fingerprints: 200, Clients: 20, AlertsPerRequest: 1}, intake)
			if err != nil {
				t.Fatal(err)
			}
			s := res.Storm
			t.Logf("storm: %d alerts, %d fingerprints, %d clients: %d sessions, %d/%d requests answered (%v), %.0f alerts/s, p50 %s p95 %s p99 %s max %s, all sessions after %.2fs, %d API writes (%.3f per alert)",
				res.Options.Alerts, res.Options.Fingerprints, res.Options.Clients, res.Sessions, s.Answered, s.Requests, s.Codes,
				s.AlertsPerSecond, s.P50, s.P95, s.P99, s.Max, res.AllSessionsSeconds, res.APIWrites, res.WritesPerAlert)
			if res.Sessions != 200 || s.Created != 200 || !res.ExactlyOnePerFingerprint {
				t.Errorf("%d sessions for %d fingerprints (%d reported created), want exactly 200, one each", res.Sessions, res.FingerprintsWithSessions, s.Created)
			}
			if s.Answered != 5000 || s.Codes[http.StatusOK] != 5000 || s.TransportErrors != 0 {
				t.Errorf("answered %d of 5000: codes %v, transport errors %d", s.Answered, s.Codes, s.TransportErrors)
			}
			if s.Created+s.Duplicates != 5000 {
				t.Errorf("created %d + duplicates %d != 5000", s.Created, s.Duplicates)
			}
			if got := testutil.ToFloat64(sessionsCreated) - created0; got != 200 {
				t.Errorf("sessions metric grew by %v", got)
			}
			if got := testutil.ToFloat64(duplicatesSuppressed) - dup0; got != 4800 {
				t.Errorf("duplicates metric grew by %v", got)
			}
			if res.APIWrites > 400 {
				t.Errorf("%d API writes for 200 distinct alerts: repeats should be answered from the cache", res.APIWrites)
			}
		})
	}
}

func TestEnvtestRateLimited(t *testing.T) {
	_, c := apiServer(t)
	createNamespace(t, c, "limited")
	url, _ := liveReceiver(t, c, DefaultPolicy(), HandlerOptions{RateLimiter: NewRateLimiter(1, 5)})
	body := strings.ReplaceAll(string(readTestdata(t, "crashloop_firing.json")), `"namespace": "shop"`, `"namespace": "limited"`)
	codes := map[int]int{}
	var retryAfter string
	for i := 0; i < 20; i++ {
		r := post(t, url, testToken, "application/json", strings.NewReader(body))
		codes[r.code]++
		if r.code == http.StatusTooManyRequests {
			retryAfter = r.header.Get("Retry-After")
			if r.errBody.Reason != ReasonRateLimited {
				t.Fatalf("429 reason %q", r.errBody.Reason)
			}
		}
	}
	// The burst of 5 passes (a sixth may slip through as the bucket refills); the rest wait.
	if codes[http.StatusOK] < 5 || codes[http.StatusOK] > 7 || codes[http.StatusTooManyRequests] < 13 || retryAfter != "1" {
		t.Fatalf("codes %v, Retry-After %q", codes, retryAfter)
	}
	if n := countSessions(t, c, "limited"); n != 1 {
		t.Fatalf("%d sessions", n)
	}
}

func TestEnvtestAlertFieldIsImmutableAndHintsBounded(t *testing.T) {
	_, c := apiServer(t)
	createNamespace(t, c, "immutable")
	ctx := context.Background()
	p := parseFile(t, "crashloop_firing.json")
	p.Alerts[0].Labels["namespace"] = "immutable"
	ts, rej := BuildSession(&p.Alerts[0], p.Receiver, mustPolicy(t, DefaultPolicy()), time.Now())
	if rej != nil {
		t.Fatal(rej)
	}
	if err := c.Create(ctx, ts); err != nil {
		t.Fatal(err)
	}
	changed := ts.DeepCopy()
	changed.Spec.Alert.Fingerprint = "ffff"
	if err := c.Update(ctx, changed); err == nil || !strings.Contains(err.Error(), "alert is immutable") {
		t.Fatalf("changing spec.alert: %v", err)
	}
	tooMany := ts.DeepCopy()
	tooMany.Name, tooMany.ResourceVersion = "too-many-hints", ""
	tooMany.Spec.Hints = make([]string, maxHints+1)
	for i := range tooMany.Spec.Hints {
		tooMany.Spec.Hints[i] = "hint"
	}
	if err := c.Create(ctx, tooMany); err == nil || !strings.Contains(err.Error(), "spec.hints") {
		t.Fatalf("17 hints: %v", err)
	}
	long := ts.DeepCopy()
	long.Name, long.ResourceVersion = "long-hint", ""
	long.Spec.Hints = []string{strings.Repeat("h", maxHintBytes+1)}
	if err := c.Create(ctx, long); err == nil || !strings.Contains(err.Error(), "spec.hints[0]") {
		t.Fatalf("a %d-byte hint: %v", maxHintBytes+1, err)
	}
}
