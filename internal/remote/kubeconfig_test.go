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

package remote

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

const kubeconfigHead = `apiVersion: v1
kind: Config
current-context: remote
contexts:
- name: remote
  context: {cluster: b, user: u}
clusters:
- name: b
  cluster:
    server: %SERVER%
%CLUSTER%
users:
- name: u
  user:
%USER%
`

func kubeconfig(server, cluster, user string) []byte {
	s := strings.ReplaceAll(kubeconfigHead, "%SERVER%", server)
	s = strings.ReplaceAll(s, "%CLUSTER%", cluster)
	return []byte(strings.ReplaceAll(s, "%USER%", user))
}

func TestLoadRefusesWhatWouldRunOrReadInTheOperator(t *testing.T) {
	cases := []struct {
		name, cluster, user, want string
	}{
		{"exec plugin", "", "    exec: {apiVersion: client.authentication.k8s.io/v1, command: aws, args: [eks, get-token]}", "exec plugin"},
		{"auth provider", "", "    auth-provider: {name: gcp}", "auth-provider"},
		{"token file", "", "    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token", "from the file"},
		{"client certificate file", "", "    client-certificate: /etc/kubage/cert.pem\n    client-key: /etc/kubage/key.pem", "from a file"},
		{"CA file", "    certificate-authority: /etc/ssl/ca.pem", "    token: abc", "CA from the file"},
		{"proxy", "    proxy-url: http://proxy:3128", "    token: abc", "proxy-url"},
	}
	for _, c := range cases {
		_, err := Load(kubeconfig("https://b.example:6443", c.cluster, c.user), "")
		if err == nil || ReasonOf(err) != kubagev1alpha1.KubeConfigRefusedReason || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %s mentioning %q", c.name, err, kubagev1alpha1.KubeConfigRefusedReason, c.want)
		}
	}
	if _, err := Load([]byte("not: [a kubeconfig"), ""); ReasonOf(err) != kubagev1alpha1.KubeConfigRefusedReason {
		t.Errorf("garbage: %v", err)
	}
	if _, err := Load(kubeconfig("https://b.example:6443", "", "    token: abc"), "other"); err == nil || !strings.Contains(err.Error(), `no context "other"`) {
		t.Errorf("missing context: %v", err)
	}
}

func TestLoadKeepsInlineCredentials(t *testing.T) {
	cfg, err := Load(kubeconfig("https://b.example:6443", "    insecure-skip-tls-verify: true", "    token: abc"), "")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://b.example:6443" || cfg.BearerToken != "abc" || cfg.Dial == nil || cfg.ExecProvider != nil {
		t.Errorf("config %+v", cfg)
	}
	if u, _ := cfg.Proxy(nil); u != nil {
		t.Errorf("a proxy is used: %v", u)
	}
}

func TestProbeClassifiesUnauthorizedAndUnreachable(t *testing.T) {
	status, podsStatus := http.StatusUnauthorized, http.StatusForbidden
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case status == http.StatusUnauthorized:
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"Status","status":"Failure","reason":"Unauthorized","code":401}`))
		case r.URL.Path == "/api/v1/namespaces/shop/pods" && podsStatus == http.StatusForbidden:
			w.WriteHeader(podsStatus)
			_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"Status","status":"Failure","reason":"Forbidden","code":403}`))
		case r.URL.Path == "/api/v1/namespaces/shop/pods":
			_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"PodList","items":[]}`))
		default:
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview","status":{"userInfo":{"username":"kubage"}}}`))
		}
	}))
	defer srv.Close()
	cfg, err := Load(kubeconfig(srv.URL, "", "    token: wrong"), "")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := Probe(ctx, cs, "shop"); ReasonOf(err) != kubagev1alpha1.ClusterUnauthorizedReason {
		t.Errorf("401: %v", err)
	}
	status = http.StatusCreated
	if err := Probe(ctx, cs, "shop"); ReasonOf(err) != kubagev1alpha1.ClusterForbiddenReason {
		t.Errorf("authenticated, may not list pods: %v", err)
	}
	podsStatus = http.StatusOK
	if err := Probe(ctx, cs, "shop"); err != nil {
		t.Errorf("accepted credentials: %v", err)
	}
	srv.Close()
	if err := Probe(ctx, cs, "shop"); ReasonOf(err) != kubagev1alpha1.ClusterUnreachableReason {
		t.Errorf("closed server: %v", err)
	}
}

// FuzzLoad feeds author-controlled kubeconfigs to Load: whatever it accepts carries no exec
// plugin or auth-provider and dials through the egress guard.
func FuzzLoad(f *testing.F) {
	f.Add(kubeconfig("https://b.example:6443", "", "    token: abc"), "")
	f.Add(kubeconfig("https://b.example:6443", "", "    exec: {command: aws}"), "")
	f.Add(kubeconfig("http://10.0.0.1", "    insecure-skip-tls-verify: true", "    username: a\n    password: b"), "remote")
	f.Fuzz(func(t *testing.T, data []byte, ctxName string) {
		cfg, err := Load(data, ctxName)
		if err != nil {
			if ReasonOf(err) == "" {
				t.Fatalf("an error without a reason: %v", err)
			}
			return
		}
		if cfg.ExecProvider != nil || cfg.AuthProvider != nil || cfg.Dial == nil || cfg.BearerTokenFile != "" || cfg.CAFile != "" || cfg.CertFile != "" || cfg.KeyFile != "" {
			t.Fatalf("accepted an unsafe config: %+v", cfg)
		}
	})
}
