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

// Package testcluster starts and stops the local control plane of hack/cluster.sh (etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler and kwok with fake nodes) for e2e
// suites and benchmarks, each in its own directory and on its own ports, or attaches to a
// running cluster named by KUBAGE_E2E_KUBECONFIG.
package testcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// EnvKubeconfig names a kubeconfig of an already running cluster to use instead of starting one.
const EnvKubeconfig = "KUBAGE_E2E_KUBECONFIG"

// Options tune Start. The zero value starts three nodes in a fresh temporary directory.
type Options struct {
	// RepoRoot holds hack/cluster.sh and bin/k8s; found from the working directory when empty.
	RepoRoot string
	// Dir is the cluster directory; a new temporary directory when empty. It must be empty or
	// hold a cluster created by hack/cluster.sh.
	Dir string
	// Nodes is the number of fake nodes (default 3).
	Nodes int
	// NodePods is each node's pod capacity (default 1000: the suites deploy the whole
	// scenario corpus on these nodes at once; at 110 the last scenarios' pods stayed Pending
	// with "Too many pods", and at 330 again once the corpus passed 400 scenarios, ~1000 pods).
	NodePods int
	// Timeout bounds the start (default 2 minutes).
	Timeout time.Duration
	// Output receives the script's progress; discarded when nil.
	Output io.Writer
}

// Cluster is a running local cluster.
type Cluster struct {
	// Kubeconfig is the path of an admin kubeconfig.
	Kubeconfig string
	// RESTConfig is built from Kubeconfig.
	RESTConfig *rest.Config
	// Dir is the cluster directory (state, logs, certificates); empty for an attached cluster.
	Dir string

	repoRoot string
	k8sBin   string
	output   io.Writer
	owned    bool
}

// Start brings up a local cluster, or attaches to the one in KUBAGE_E2E_KUBECONFIG.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if kc := os.Getenv(EnvKubeconfig); kc != "" {
		cfg, err := restConfig(kc)
		if err != nil {
			return nil, err
		}
		return &Cluster{Kubeconfig: kc, RESTConfig: cfg}, nil
	}

	root := opts.RepoRoot
	if root == "" {
		var err error
		if root, err = FindRepoRoot(); err != nil {
			return nil, err
		}
	}
	out := opts.Output
	if out == nil {
		out = io.Discard
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	nodes := opts.Nodes
	if nodes <= 0 {
		nodes = 3
	}
	nodePods := opts.NodePods
	if nodePods <= 0 {
		nodePods = 1000
	}
	dir := opts.Dir
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "kubage-cluster-"); err != nil {
			return nil, err
		}
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}

	c := &Cluster{
		Kubeconfig: filepath.Join(dir, "kubeconfig"),
		Dir:        dir,
		repoRoot:   root,
		k8sBin:     filepath.Join(root, "bin", "k8s"),
		output:     out,
		owned:      true,
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	env := []string{
		"KUBAGE_NODES=" + strconv.Itoa(nodes),
		"KUBAGE_NODE_PODS=" + strconv.Itoa(nodePods),
		"KUBAGE_CLUSTER_TIMEOUT=" + strconv.Itoa(int(timeout.Seconds())),
		// If this process dies without Stop (a test timeout, a kill), the cluster follows it.
		"KUBAGE_CLUSTER_OWNER_PID=" + strconv.Itoa(os.Getpid()),
	}
	if err := c.script(ctx, "up", env...); err != nil {
		// The script stops what it started on failure; remove the state too.
		_ = c.script(context.Background(), "down")
		return nil, err
	}
	cfg, err := restConfig(c.Kubeconfig)
	if err != nil {
		_ = c.Stop(context.Background())
		return nil, err
	}
	c.RESTConfig = cfg
	return c, nil
}

// Stop tears down a cluster started by Start and checks that none of its processes remain.
// It does nothing for an attached cluster.
func (c *Cluster) Stop(ctx context.Context) error {
	if c == nil || !c.owned {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	err := c.script(ctx, "down")
	if left := c.Processes(); len(left) > 0 {
		err = errors.Join(err, fmt.Errorf("processes of cluster %s still running: %v", c.Dir, left))
	}
	return err
}

// Processes lists the pids of control-plane processes that belong to this cluster: binaries of
// bin/k8s whose command line names the cluster directory.
func (c *Cluster) Processes() []int {
	if c.Dir == "" {
		return nil
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(raw) == 0 {
			continue
		}
		args := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		if !strings.HasPrefix(args[0], c.k8sBin+"/") {
			continue
		}
		if strings.Contains(strings.Join(args[1:], " "), c.Dir+"/") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// LogTail returns the last lines of a component's log (e.g. "kwok", "kube-apiserver"), for
// failure messages.
func (c *Cluster) LogTail(component string, lines int) string {
	if c.Dir == "" {
		return ""
	}
	data, err := os.ReadFile(filepath.Join(c.Dir, "logs", component+".log"))
	if err != nil {
		return ""
	}
	all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}

func (c *Cluster) script(ctx context.Context, verb string, env ...string) error {
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(c.repoRoot, "hack", "cluster.sh"), verb)
	cmd.Dir = c.repoRoot
	cmd.Env = append(os.Environ(), "KUBAGE_CLUSTER_DIR="+c.Dir, "KUBAGE_K8S_BIN="+c.k8sBin)
	cmd.Env = append(cmd.Env, env...)
	var tail bytes.Buffer
	cmd.Stdout = io.MultiWriter(c.output, &tail)
	cmd.Stderr = io.MultiWriter(c.output, &tail)
	// The components are detached from our pipes; do not wait on anything else that may hold them.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		out := tail.String()
		if len(out) > 4000 {
			out = out[len(out)-4000:]
		}
		return fmt.Errorf("hack/cluster.sh %s: %w\n%s", verb, err, out)
	}
	return nil
}

func restConfig(kubeconfig string) (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig %s: %w", kubeconfig, err)
	}
	// Tests create many objects quickly; the default 5 QPS would make them slow, not safer.
	cfg.QPS, cfg.Burst = 50, 100
	return cfg, nil
}

// FindRepoRoot walks up from the working directory to the directory holding hack/cluster.sh.
func FindRepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "hack", "cluster.sh")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("hack/cluster.sh not found above the working directory")
		}
		dir = parent
	}
}
