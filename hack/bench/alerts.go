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
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/yaml"

	"github.com/go-logr/logr"

	"github.com/kubage/kubage/internal/alerts"
	"github.com/kubage/kubage/test/testcluster"
)

func init() {
	sections = append(sections, section{name: "alerts", needsCluster: true, run: alertsBench})
	// controller-runtime clients in measured code log through this; stderr carries progress only.
	ctrllog.SetLogger(logr.Discard())
}

var (
	alertsFingerprints = flag.String("alerts-fingerprints", "50,200,1000,5000", "alerts: distinct-alert counts of the storms (5000 alerts each; issue 8's table)")
	alertsModes        = flag.String("alerts-modes", "create,journal", "alerts: receivers to measure, in this order for each fingerprint count: create (sessions created before answering) and journal (answered once fsynced to the journal)")
	alertsWorkers      = flag.Int("alerts-workers", alerts.DefaultIntakeWorkers, "alerts: workers creating the journal's sessions")
	alertsProfile      = flag.String("alerts-cpuprofile-dir", "", "alerts: write a CPU profile of this process (receiver and senders) per storm into this directory")
)

type alertsReport struct {
	Procedure string     `json:"procedure"`
	Runs      []alertRun `json:"runs"`
}

// alertRun is one storm with the CPU seconds each process spent on it.
type alertRun struct {
	alerts.BenchResult
	// CPUSeconds: bench is this process (receiver, its workers and the senders).
	CPUSeconds map[string]float64 `json:"cpuSeconds"`
}

// alertsBench sends 5000-alert storms with more and more distinct fingerprints to a receiver in
// this process writing to the local cluster: requests/s, latency and API writes per alert.
func alertsBench(ctx context.Context, env *Env) (any, error) {
	if err := installCRDs(ctx, env.Cluster.RESTConfig); err != nil {
		return nil, err
	}
	rep := &alertsReport{Procedure: "alerts.BenchIntake: 5000 firing alerts from 20 concurrent senders to a loopback receiver (default policy, cooldown read from a metadata cache of the alert sessions) writing Troubleshoots to the local cluster; per fingerprint count, one run per receiver mode (create: the session is created before the answer; journal: the answer follows the fsync of the receiver's journal and workers create the sessions); after each storm the bench waits until every accepted session exists (allSessionsSeconds, from the first request) and checks one session per fingerprint; CPU seconds per process over the run; the run's namespace is deleted afterwards"}
	cfg := rest.CopyConfig(env.Cluster.RESTConfig)
	cfg.QPS = engineQPS
	procs := clusterProcesses(env.Cluster.Dir)
	procs["bench"] = strconv.Itoa(os.Getpid())
	for _, field := range strings.Split(*alertsFingerprints, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || n <= 0 {
			return rep, fmt.Errorf("-alerts-fingerprints: %q is not a positive count", field)
		}
		for _, mode := range strings.Split(*alertsModes, ",") {
			mode = strings.TrimSpace(mode)
			if mode != "create" && mode != "journal" {
				return rep, fmt.Errorf("-alerts-modes: unknown mode %q", mode)
			}
			// Deleting a namespace of thousands of sessions keeps the API server busy for a
			// while: measure the storm, not the clean-up of the previous run or section.
			if err := waitNoTerminatingNamespace(ctx, env, 3*time.Minute); err != nil {
				env.Log.Printf("alerts: a namespace is still being deleted (%v); measuring anyway", err)
			}
			env.Log.Printf("alerts: storm with %d fingerprints, %s", n, mode)
			stopProfile, err := startProfile(fmt.Sprintf("cpu-%s-%d.pprof", mode, n))
			if err != nil {
				return rep, err
			}
			cpu0 := cpuSeconds(procs)
			runCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			res, err := alerts.BenchIntake(runCtx, cfg, alerts.StormOptions{Alerts: 5000, Fingerprints: n, Clients: 20},
				alerts.IntakeOptions{Journal: mode == "journal", Workers: *alertsWorkers})
			cancel()
			cpu1 := cpuSeconds(procs)
			stopProfile()
			if err != nil {
				return rep, fmt.Errorf("storm with %d fingerprints (%s): %w", n, mode, err)
			}
			run := alertRun{BenchResult: res, CPUSeconds: map[string]float64{}}
			for name, v := range cpu1 {
				run.CPUSeconds[name] = math.Round((v-cpu0[name])*100) / 100
			}
			rep.Runs = append(rep.Runs, run)
			env.Log.Printf("alerts: %d fingerprints, %s: p50 %.1fms p99 %.1fms, %.0f alerts/s, all sessions after %.2fs, %d sessions (one per fingerprint: %v), CPU %v",
				n, mode, res.Storm.P50Millis, res.Storm.P99Millis, res.Storm.AlertsPerSecond, res.AllSessionsSeconds, res.Sessions, res.ExactlyOnePerFingerprint, run.CPUSeconds)
			// The sessions must not be picked up by an operator a later section starts.
			if err := env.Client.CoreV1().Namespaces().Delete(ctx, res.Options.Namespace, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return rep, fmt.Errorf("deleting namespace %s: %w", res.Options.Namespace, err)
			}
			if !res.ExactlyOnePerFingerprint {
				return rep, fmt.Errorf("storm with %d fingerprints (%s): %d sessions for %d of %d fingerprints", n, mode, res.Sessions, res.FingerprintsWithSessions, n)
			}
		}
	}
	return rep, nil
}

// startProfile starts a CPU profile into -alerts-cpuprofile-dir (a no-op without it).
func startProfile(name string) (func(), error) {
	if *alertsProfile == "" {
		return func() {}, nil
	}
	if err := os.MkdirAll(*alertsProfile, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(*alertsProfile, name))
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); _ = f.Close() }, nil
}

// clusterProcesses finds the local cluster's kube-apiserver and etcd by their command
// lines naming the cluster directory (none for an attached cluster).
func clusterProcesses(dir string) map[string]string {
	out := map[string]string{}
	if dir == "" {
		return out
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(raw), dir) {
			continue
		}
		args := strings.Split(string(raw), "\x00")
		switch filepath.Base(args[0]) {
		case "kube-apiserver", "etcd":
			out[filepath.Base(args[0])] = e.Name()
		}
	}
	return out
}

// cpuSeconds reads user+system CPU time of each process from /proc/<pid>/stat.
func cpuSeconds(procs map[string]string) map[string]float64 {
	out := map[string]float64{}
	for name, pid := range procs {
		raw, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			continue
		}
		// Fields after the command name, which is in parentheses and may hold spaces.
		rest := string(raw[strings.LastIndexByte(string(raw), ')')+2:])
		f := strings.Fields(rest)
		if len(f) < 13 {
			continue
		}
		utime, _ := strconv.ParseFloat(f[11], 64)
		stime, _ := strconv.ParseFloat(f[12], 64)
		out[name] = (utime + stime) / clockTicks
	}
	return out
}

// clockTicks is USER_HZ, 100 on every Linux this runs on.
const clockTicks = 100

// waitNoTerminatingNamespace waits until no namespace is being deleted.
func waitNoTerminatingNamespace(ctx context.Context, env *Env, limit time.Duration) error {
	return wait.PollUntilContextTimeout(ctx, time.Second, limit, true, func(ctx context.Context) (bool, error) {
		list, err := env.Client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		for _, ns := range list.Items {
			if ns.DeletionTimestamp != nil {
				return false, nil
			}
		}
		return true, nil
	})
}

// installCRDs creates or updates the CRDs of config/crd/bases and waits until they are Established.
func installCRDs(ctx context.Context, cfg *rest.Config) error {
	root, err := testcluster.FindRepoRoot()
	if err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(root, "config", "crd", "bases", "*.yaml"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no CRDs under config/crd/bases (%v)", err)
	}
	cs, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	crds := cs.ApiextensionsV1().CustomResourceDefinitions()
	var names []string
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(raw, &crd); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		cur, err := crds.Get(ctx, crd.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			_, err = crds.Create(ctx, &crd, metav1.CreateOptions{})
		case err == nil:
			crd.ResourceVersion = cur.ResourceVersion
			_, err = crds.Update(ctx, &crd, metav1.UpdateOptions{})
		}
		if err != nil {
			return fmt.Errorf("installing CRD %s: %w", crd.Name, err)
		}
		names = append(names, crd.Name)
	}
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		for _, n := range names {
			crd, err := crds.Get(ctx, n, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			established := false
			for _, c := range crd.Status.Conditions {
				if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
					established = true
				}
			}
			if !established {
				return false, nil
			}
		}
		return true, nil
	})
}
