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
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/test/testcluster"
)

func init() {
	sections = append(sections, section{name: "sessions", needsCluster: true, run: sessionsBench})
}

// The default keeps the section under 6 minutes; raise it (and -timeout) to see the burst end.
var (
	sessionsBurstWait = flag.Duration("sessions-burst-wait", 220*time.Second, "bound on the wait for the 500-session burst of the sessions section")
	sessionsBurstOnly = flag.Bool("sessions-burst-only", false, "run only the 500-session burst of the sessions section, not the sequential sessions")
)

const (
	// sessionsSequential is the number of sequential sessions per task runner (issue 4).
	sessionsSequential = 20
	// sessionsBurst Troubleshoots are created at once with the InProcess runner.
	sessionsBurst = 500
	// sessionsSetupBudget bounds everything but the burst (measured ~130 s); with the burst
	// wait it bounds the section.
	sessionsSetupBudget = 150 * time.Second
	sessionsOneWait     = 90 * time.Second
	sessionsImage       = "kubage:bench"
)

type sequentialReport struct {
	Runner    string  `json:"runner"`
	Sessions  int     `json:"sessions"`
	Completed int     `json:"completed"`
	P50Ms     float64 `json:"p50Ms"`
	P95Ms     float64 `json:"p95Ms"`
	MaxMs     float64 `json:"maxMs"`
	// Phases counts the terminal phases when some session did not complete.
	Phases map[string]int `json:"phases,omitempty"`
}

type burstReport struct {
	Created     int            `json:"created"`
	Completed   int            `json:"completed"`
	Phases      map[string]int `json:"phases"`
	WallSeconds float64        `json:"wallSeconds"`
	// FirstCompletedSeconds is when the first session was seen Completed (0: none was).
	FirstCompletedSeconds float64 `json:"firstCompletedSeconds"`
	// PeakRSSMiB is the VmHWM of the manager process, started fresh for the burst.
	PeakRSSMiB float64 `json:"operatorPeakRssMiB"`
	// APIRequests is the rise of the manager's rest_client_requests_total during the burst.
	APIRequests           float64 `json:"apiRequests"`
	APIRequestsPerSession float64 `json:"apiRequestsPerSession"`
	// ServerRequestsPerSession is the rise of the API server's apiserver_request_total
	// during the burst by verb and resource, per session: every client's requests (the
	// bench's own polls are the LIST of troubleshoots), to see where the manager's go.
	ServerRequestsPerSession map[string]float64 `json:"serverRequestsPerSession,omitempty"`
}

type sessionsReport struct {
	Procedure  string             `json:"procedure"`
	Sequential []sequentialReport `json:"sequential"`
	Burst      *burstReport       `json:"burst,omitempty"`
}

// sessionsBench runs the operator binary against the local cluster: sequential sessions per
// runner on a crash-looping Deployment, then a burst of 500 sessions.
func sessionsBench(ctx context.Context, env *Env) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, sessionsSetupBudget+*sessionsBurstWait)
	defer cancel()
	rep := &sessionsReport{Procedure: fmt.Sprintf("`kubage manager` (--agent-image=%s) runs as a subprocess against the local cluster, with the kubelet harness running the Job runner's pods as local processes; "+
		"Deployment api crash-loops (kwok sim annotations) and has restarted 3 times before the first session; %d sessions per runner are created one after another, each timed from Create until the client sees a terminal phase (25 ms polls); "+
		"then a fresh manager gets %d InProcess sessions created at once: wall time from the first Create until all are terminal, the manager's VmHWM and its rest_client_requests_total rise", sessionsImage, sessionsSequential, sessionsBurst)}
	root, err := testcluster.FindRepoRoot()
	if err != nil {
		return nil, err
	}
	bin := os.Getenv(testcluster.EnvKubageBin)
	if bin == "" {
		bin = filepath.Join(root, "bin", "kubage")
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return nil, err
	}
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("the kubage binary is missing (make build, or set $%s): %w", testcluster.EnvKubageBin, err)
	}
	if err := installCRDs(ctx, env.Cluster.RESTConfig); err != nil {
		return nil, err
	}
	if err := installAgentRoles(ctx, env, root); err != nil {
		return nil, err
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := kubagev1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	c, err := client.New(env.Cluster.RESTConfig, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	ns := fmt.Sprintf("bench-sessions-%d", time.Now().UnixNano()%1e6)
	if _, err := env.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	defer func() {
		_ = env.Client.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
	}()
	env.Log.Printf("sessions: crash-looping Deployment api in %s, waiting for its third restart", ns)
	if err := crashLoopingApp(ctx, env, ns); err != nil {
		return nil, err
	}

	kubelet, err := testcluster.StartKubelet(ctx, testcluster.KubeletOptions{
		Client: env.Client, RESTConfig: env.Cluster.RESTConfig, Binary: bin,
	})
	if err != nil {
		return nil, fmt.Errorf("starting the kubelet harness: %w", err)
	}
	defer func() { _ = kubelet.Stop() }()

	runners := []kubagev1alpha1.TaskRunner{kubagev1alpha1.TaskRunnerInProcess, kubagev1alpha1.TaskRunnerJob}
	if *sessionsBurstOnly {
		runners = nil
	}
	mgr, err := startBenchManager(ctx, env, bin)
	if err != nil {
		return rep, err
	}
	for _, runner := range runners {
		env.Log.Printf("sessions: %d sequential sessions with the %s runner", sessionsSequential, runner)
		seq, err := sequentialSessions(ctx, c, ns, runner)
		rep.Sequential = append(rep.Sequential, seq)
		if err != nil {
			mgr.stop()
			return rep, fmt.Errorf("%s runner: %w (manager log: %s)", runner, err, mgr.log)
		}
	}
	mgr.stop()

	env.Log.Printf("sessions: %d InProcess sessions at once on a fresh manager", sessionsBurst)
	if mgr, err = startBenchManager(ctx, env, bin); err != nil {
		return rep, err
	}
	defer mgr.stop()
	rep.Burst, err = burstSessions(ctx, env, c, ns, mgr)
	if err != nil {
		return rep, fmt.Errorf("burst: %w (manager log: %s)", err, mgr.log)
	}
	return rep, nil
}

// installAgentRoles creates the agent's ClusterRoles under the names config/default gives them.
func installAgentRoles(ctx context.Context, env *Env, root string) error {
	for _, f := range []string{"agent_role.yaml", "agent_result_role.yaml", "agent_result_cluster_role.yaml"} {
		raw, err := os.ReadFile(filepath.Join(root, "config", "rbac", f))
		if err != nil {
			return err
		}
		var role rbacv1.ClusterRole
		if err := yaml.Unmarshal(raw, &role); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		role.Name = "kubage-" + role.Name
		roles := env.Client.RbacV1().ClusterRoles()
		_, err = roles.Create(ctx, &role, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			var cur *rbacv1.ClusterRole
			if cur, err = roles.Get(ctx, role.Name, metav1.GetOptions{}); err == nil {
				cur.Rules = role.Rules
				_, err = roles.Update(ctx, cur, metav1.UpdateOptions{})
			}
		}
		if err != nil {
			return fmt.Errorf("installing ClusterRole %s: %w", role.Name, err)
		}
	}
	return nil
}

// crashLoopingApp creates Deployment api whose container crash-loops under kwok and waits for
// its third restart, when the rule engine calls it a crash loop.
func crashLoopingApp(ctx context.Context, env *Env, ns string) error {
	labels := map[string]string{"app": "api"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "api"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{
					"sim.kubage.io/behavior": "crashloop", "sim.kubage.io/container": "api",
					"sim.kubage.io/exit-code": "3", "sim.kubage.io/message": "cannot connect to database",
				}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "api", Image: "example/api:2.1"}}},
			},
		},
	}
	if _, err := env.Client.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		return err
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=api"})
		if err != nil {
			return err
		}
		for _, p := range pods.Items {
			for _, cs := range p.Status.ContainerStatuses {
				if cs.RestartCount >= 3 {
					return nil
				}
			}
		}
		if time.Now().After(deadline) {
			return errors.New("Deployment api did not restart 3 times within 90s (is kwok running with the sim stages?)")
		}
		if err := sleepCtx(ctx, 500*time.Millisecond); err != nil {
			return err
		}
	}
}

func newBenchSession(ns, name string, runner kubagev1alpha1.TaskRunner) *kubagev1alpha1.Troubleshoot {
	return &kubagev1alpha1.Troubleshoot{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: kubagev1alpha1.TroubleshootSpec{
			Problem:    "the api is down",
			Target:     &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "api"},
			TaskRunner: runner,
		},
	}
}

// sequentialSessions creates one session at a time and times each to its terminal phase.
func sequentialSessions(ctx context.Context, c client.Client, ns string, runner kubagev1alpha1.TaskRunner) (rep sequentialReport, err error) {
	rep = sequentialReport{Runner: string(runner), Phases: map[string]int{}}
	var ms []float64
	defer func() {
		sort.Float64s(ms)
		rep.P50Ms, rep.P95Ms = percentileOf(ms, 0.50), percentileOf(ms, 0.95)
		if len(ms) > 0 {
			rep.MaxMs = ms[len(ms)-1]
		}
		if rep.Completed == rep.Sessions {
			rep.Phases = nil
		}
	}()
	for i := 0; i < sessionsSequential; i++ {
		ts := newBenchSession(ns, fmt.Sprintf("seq-%s-%02d", strings.ToLower(string(runner)), i), runner)
		start := time.Now()
		if err := c.Create(ctx, ts); err != nil {
			return rep, err
		}
		deadline := start.Add(sessionsOneWait)
		for !ts.Status.Phase.IsTerminal() {
			if time.Now().After(deadline) {
				return rep, fmt.Errorf("session %s still %q after %s", ts.Name, ts.Status.Phase, sessionsOneWait)
			}
			if err := sleepCtx(ctx, 25*time.Millisecond); err != nil {
				return rep, err
			}
			if err := c.Get(ctx, client.ObjectKeyFromObject(ts), ts); err != nil {
				return rep, err
			}
		}
		ms = append(ms, roundTenth(float64(time.Since(start))/float64(time.Millisecond)))
		rep.Sessions++
		rep.Phases[string(ts.Status.Phase)]++
		if ts.Status.Phase == kubagev1alpha1.PhaseCompleted {
			rep.Completed++
		}
	}
	return rep, nil
}

// burstSessions creates sessionsBurst InProcess sessions as fast as one client can and waits
// for all of them to end.
func burstSessions(ctx context.Context, env *Env, c client.Client, ns string, mgr *benchManager) (*burstReport, error) {
	rep := &burstReport{Phases: map[string]int{}}
	before, err := mgr.apiRequests(ctx)
	if err != nil {
		return rep, err
	}
	serverBefore, _ := serverRequests(ctx, env)
	start := time.Now()
	for i := 0; i < sessionsBurst; i++ {
		if err := c.Create(ctx, newBenchSession(ns, fmt.Sprintf("burst-%03d", i), kubagev1alpha1.TaskRunnerInProcess)); err != nil {
			return rep, err
		}
		rep.Created++
	}
	deadline := start.Add(*sessionsBurstWait)
	// Leave time to scrape the metrics and stop the manager within the section's budget.
	if d, ok := ctx.Deadline(); ok && d.Add(-15*time.Second).Before(deadline) {
		deadline = d.Add(-15 * time.Second)
	}
	for {
		var list kubagev1alpha1.TroubleshootList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return rep, err
		}
		terminal := 0
		rep.Completed, rep.Phases = 0, map[string]int{}
		for _, ts := range list.Items {
			if !strings.HasPrefix(ts.Name, "burst-") {
				continue
			}
			rep.Phases[string(ts.Status.Phase)]++
			if ts.Status.Phase.IsTerminal() {
				terminal++
			}
			if ts.Status.Phase == kubagev1alpha1.PhaseCompleted {
				rep.Completed++
			}
		}
		rep.WallSeconds = seconds(time.Since(start))
		if rep.Completed > 0 && rep.FirstCompletedSeconds == 0 {
			rep.FirstCompletedSeconds = rep.WallSeconds
		}
		rep.PeakRSSMiB = procStatusMiB(strconv.Itoa(mgr.cmd.Process.Pid), "VmHWM:")
		if terminal == sessionsBurst {
			break
		}
		if time.Now().After(deadline) {
			// Partial figures: the requests so far still say how the operator spends the API.
			if after, err := mgr.apiRequests(ctx); err == nil {
				rep.APIRequests = after - before
				rep.APIRequestsPerSession = roundTenth(rep.APIRequests / float64(max(terminal, 1)))
			}
			rep.ServerRequestsPerSession = serverRise(ctx, env, serverBefore, max(terminal, 1))
			return rep, fmt.Errorf("%d of %d sessions terminal after %s", terminal, sessionsBurst, time.Since(start).Round(time.Second))
		}
		if err := sleepCtx(ctx, 250*time.Millisecond); err != nil {
			return rep, err
		}
	}
	after, err := mgr.apiRequests(ctx)
	if err != nil {
		return rep, err
	}
	rep.APIRequests = after - before
	rep.APIRequestsPerSession = roundTenth(rep.APIRequests / sessionsBurst)
	rep.ServerRequestsPerSession = serverRise(ctx, env, serverBefore, sessionsBurst)
	return rep, nil
}

// serverRise is the rise of the API server's request counts since before, per session.
func serverRise(ctx context.Context, env *Env, before map[string]float64, sessions int) map[string]float64 {
	after, err := serverRequests(ctx, env)
	if err != nil || before == nil {
		return nil
	}
	out := map[string]float64{}
	for k, v := range after {
		if d := roundTenth((v - before[k]) / float64(sessions)); d >= 0.1 {
			out[k] = d
		}
	}
	return out
}

// serverRequests sums the API server's apiserver_request_total by "VERB resource".
func serverRequests(ctx context.Context, env *Env) (map[string]float64, error) {
	raw, err := env.Client.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(line, "apiserver_request_total{") {
			continue
		}
		labels, value, ok := strings.Cut(strings.TrimPrefix(line, "apiserver_request_total{"), "} ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			continue
		}
		l := map[string]string{}
		for _, kv := range strings.Split(labels, ",") {
			if k, val, ok := strings.Cut(kv, "="); ok {
				l[k] = strings.Trim(val, `"`)
			}
		}
		key := l["verb"] + " " + l["resource"]
		if l["subresource"] != "" {
			key += "/" + l["subresource"]
		}
		out[key] += v
	}
	return out, nil
}

// benchManager is `kubage manager` running as a subprocess with metrics on a loopback port.
type benchManager struct {
	cmd     *exec.Cmd
	log     string
	metrics string
	done    chan struct{}
}

func startBenchManager(ctx context.Context, env *Env, bin string) (*benchManager, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	logFile, err := os.CreateTemp("", "kubage-bench-manager-*.log")
	if err != nil {
		return nil, err
	}
	metricsAddr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(bin, "manager", "--kubeconfig="+env.Cluster.Kubeconfig,
		"--metrics-bind-address="+metricsAddr, "--health-probe-bind-address=0",
		"--agent-image="+sessionsImage, "--agent-start-timeout=5s")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = append(os.Environ(), "KUBECONFIG="+env.Cluster.Kubeconfig)
	// The manager dies with the bench even if the bench is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, err
	}
	m := &benchManager{cmd: cmd, log: logFile.Name(), metrics: "http://" + metricsAddr + "/metrics", done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		_ = logFile.Close()
		close(m.done)
	}()
	// Ready when the metrics endpoint answers (the manager serves it once started).
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := m.apiRequests(ctx); err == nil {
			return m, nil
		}
		select {
		case <-m.done:
			return nil, fmt.Errorf("the manager exited:\n%s", m.logTail(20))
		default:
		}
		if time.Now().After(deadline) {
			m.stop()
			return nil, fmt.Errorf("the manager's metrics did not answer within 30s:\n%s", m.logTail(20))
		}
		if err := sleepCtx(ctx, 200*time.Millisecond); err != nil {
			m.stop()
			return nil, err
		}
	}
}

// stop ends the manager with SIGTERM, killing it after 10s.
func (m *benchManager) stop() {
	select {
	case <-m.done:
		return
	default:
	}
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.done:
	case <-time.After(10 * time.Second):
		_ = m.cmd.Process.Kill()
		<-m.done
	}
}

func (m *benchManager) logTail(lines int) string {
	raw, err := os.ReadFile(m.log)
	if err != nil {
		return err.Error()
	}
	all := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}

// apiRequests sums rest_client_requests_total over all label sets of the manager's metrics.
func (m *benchManager) apiRequests(ctx context.Context) (float64, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.metrics, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET %s: %s", m.metrics, resp.Status)
	}
	var sum float64
	found := false
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "rest_client_requests_total") {
			continue
		}
		fields := strings.Fields(line)
		v, err := strconv.ParseFloat(fields[len(fields)-1], 64)
		if err != nil {
			return 0, fmt.Errorf("metrics line %q: %w", line, err)
		}
		sum += v
		found = true
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	if !found {
		return 0, errors.New("no rest_client_requests_total in the manager's metrics")
	}
	return sum, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// percentileOf is the nearest-rank percentile of sorted values; 0 when empty.
func percentileOf(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p+0.5) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(sorted) {
		i = len(sorted) - 1
	}
	return sorted[i]
}
