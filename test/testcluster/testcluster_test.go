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

package testcluster

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:6443", insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: abc}
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
`

func TestStartAttachesToExistingCluster(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvKubeconfig, path)

	c, err := Start(context.Background(), Options{RepoRoot: "/nonexistent"})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if c.Kubeconfig != path || c.Dir != "" {
		t.Errorf("got Kubeconfig %q Dir %q, want %q and no directory", c.Kubeconfig, c.Dir, path)
	}
	if c.RESTConfig.Host != "https://127.0.0.1:6443" || c.RESTConfig.QPS != 50 {
		t.Errorf("unexpected REST config host %q qps %v", c.RESTConfig.Host, c.RESTConfig.QPS)
	}
	if err := c.Stop(context.Background()); err != nil {
		t.Errorf("Stop of an attached cluster must do nothing, got %v", err)
	}
	if p := c.Processes(); p != nil {
		t.Errorf("an attached cluster owns no processes, got %v", p)
	}
}

func TestStartFailsOnBrokenKubeconfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte("not: [yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvKubeconfig, path)
	if _, err := Start(context.Background(), Options{}); err == nil {
		t.Fatal("Start with an unreadable kubeconfig must fail")
	}
}

func TestFindRepoRoot(t *testing.T) {
	root, err := FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "hack", "cluster.sh")); err != nil {
		t.Errorf("root %q has no hack/cluster.sh: %v", root, err)
	}
}
