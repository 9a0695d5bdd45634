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

// Command bench measures KubAge and prints one JSON document with a key per section, e.g.
// {"ruleEngine": {...}}. Sections that need a cluster share one local cluster (started with
// test/testcluster, or the one named by KUBAGE_E2E_KUBECONFIG), started only if a chosen
// section needs it. Add a section by appending to the sections table.
//
//	go run ./hack/bench                      # every section
//	go run ./hack/bench -only=ruleEngine     # some sections
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubage/kubage/test/testcluster"
)

// section is one benchmark; run returns a JSON-serialisable report.
type section struct {
	name string
	// needsCluster sections get Env.Cluster started before they run.
	needsCluster bool
	run          func(ctx context.Context, env *Env) (any, error)
}

// The measured code's client is not rate-limited on the client side, like a manager's client
// from controller-runtime's GetConfig (QPS -1: the API server's priority and fairness decides).
const engineQPS = -1

var sections = []section{
	{name: "ruleEngine", needsCluster: true, run: ruleEngineBench},
}

// Env is what sections share.
type Env struct {
	Cluster *testcluster.Cluster
	Client  kubernetes.Interface
	// engineClient is for the code under measurement (see engineQPS).
	engineClient kubernetes.Interface
	// Log receives progress (stderr); stdout carries only the JSON document.
	Log *log.Logger

	startOnce sync.Once
	startErr  error
	startedIn time.Duration
}

func (e *Env) cluster(ctx context.Context) error {
	e.startOnce.Do(func() {
		start := time.Now()
		out := io.Discard
		if *verbose {
			out = os.Stderr
		}
		e.Log.Printf("starting the local cluster (or attaching to $%s)", testcluster.EnvKubeconfig)
		c, err := testcluster.Start(ctx, testcluster.Options{Output: out})
		if err != nil {
			e.startErr = err
			return
		}
		e.Cluster = c
		if e.Client, e.startErr = kubernetes.NewForConfig(c.RESTConfig); e.startErr != nil {
			return
		}
		// Measured code gets a client of its own, configured like the operator's manager client.
		cfg := rest.CopyConfig(c.RESTConfig)
		cfg.QPS = engineQPS
		e.engineClient, e.startErr = kubernetes.NewForConfig(cfg)
		e.startedIn = time.Since(start)
		e.Log.Printf("cluster ready in %s", e.startedIn.Round(time.Millisecond))
	})
	return e.startErr
}

var (
	// Sections register in init functions, after this runs, so the help cannot list them.
	only    = flag.String("only", "", "comma-separated sections to run (default: all; an unknown name lists them)")
	timeout = flag.Duration("timeout", 10*time.Minute, "bound on the whole run")
	verbose = flag.Bool("v", false, "show the cluster script's output")
)

func sectionNames() string {
	var n []string
	for _, s := range sections {
		n = append(n, s.name)
	}
	return strings.Join(n, ",")
}

func main() {
	flag.Parse()
	logger := log.New(os.Stderr, "bench: ", log.Ltime)
	chosen, err := choose(*only)
	if err != nil {
		logger.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	env := &Env{Log: logger}
	report := map[string]any{}
	failed := false
	for _, s := range chosen {
		start := time.Now()
		logger.Printf("section %s", s.name)
		var out any
		err := error(nil)
		if s.needsCluster {
			err = env.cluster(ctx)
		}
		if err == nil {
			out, err = s.run(ctx, env)
		}
		if err != nil {
			failed = true
			logger.Printf("section %s failed: %v", s.name, err)
			out = map[string]any{"error": err.Error(), "partial": out}
		}
		report[s.name] = out
		logger.Printf("section %s done in %s", s.name, time.Since(start).Round(time.Millisecond))
	}
	if env.Cluster != nil {
		report["cluster"] = map[string]any{"startSeconds": seconds(env.startedIn), "attached": env.Cluster.Dir == ""}
		if err := env.Cluster.Stop(context.Background()); err != nil {
			logger.Printf("stopping the cluster: %v", err)
			failed = true
		}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(report); err != nil {
		logger.Fatal(err)
	}
	if failed {
		os.Exit(1)
	}
}

func choose(only string) ([]section, error) {
	if strings.TrimSpace(only) == "" {
		return sections, nil
	}
	var out []section
	for _, name := range strings.Split(only, ",") {
		name = strings.TrimSpace(name)
		found := false
		for _, s := range sections {
			if s.name == name {
				out = append(out, s)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown section %q (known: %s)", name, sectionNames())
		}
	}
	return out, nil
}

func seconds(d time.Duration) float64 {
	return float64(d.Round(time.Millisecond)) / float64(time.Second)
}
