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

package egress

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestCheckClassifiesAddresses(t *testing.T) {
	apiServer := netip.MustParseAddr("10.96.0.1")
	def, err := NewPolicy(Options{APIServerAddrs: []netip.Addr{apiServer}})
	if err != nil {
		t.Fatal(err)
	}
	flags, err := NewPolicy(Options{
		AllowCIDRs:     []string{"127.0.0.0/8", "169.254.10.0/24", "10.96.0.1"},
		DenyCIDRs:      []string{"10.0.0.0/8", "203.0.113.7", "127.0.0.53/32", "2001:db8::/32"},
		APIServerAddrs: []netip.Addr{apiServer},
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		addr        string
		def, flags  bool // allowed?
		description string
	}{
		{"169.254.169.254", false, false, "cloud metadata (v4)"},
		{"169.254.10.1", false, true, "link-local, allowed by a narrower CIDR"},
		{"fd00:ec2::254", false, false, "cloud metadata (v6)"},
		{"fe80::1", false, false, "v6 link-local"},
		{"127.0.0.1", false, true, "loopback"},
		{"127.0.0.53", false, false, "loopback, a longer deny beats the allow"},
		{"::1", false, false, "v6 loopback (not in the v4 allow)"},
		{"::ffff:127.0.0.1", false, true, "v4-mapped loopback"},
		{"::ffff:169.254.169.254", false, false, "v4-mapped metadata"},
		{"0.0.0.0", false, false, "unspecified"},
		{"::", false, false, "v6 unspecified"},
		{"224.0.0.251", false, false, "multicast"},
		{"ff02::fb", false, false, "v6 multicast"},
		{"10.96.0.1", false, true, "the API server, explicitly allowed"},
		{"10.1.2.3", true, false, "private, denied by flag"},
		{"203.0.113.7", true, false, "single address denied by flag"},
		{"93.184.216.34", true, true, "public v4"},
		{"2606:4700::1111", true, true, "public v6"},
		{"2001:db8::1", true, false, "v6 deny CIDR"},
		{"fe80::1%eth0", false, false, "zoned link-local"},
	}
	for _, c := range cases {
		a := netip.MustParseAddr(c.addr)
		if got := def.Check(a) == nil; got != c.def {
			t.Errorf("default policy, %s (%s): allowed=%v, want %v", c.addr, c.description, got, c.def)
		}
		if got := flags.Check(a) == nil; got != c.flags {
			t.Errorf("flag policy, %s (%s): allowed=%v, want %v", c.addr, c.description, got, c.flags)
		}
	}
}

func TestNewPolicyRejectsBadCIDRs(t *testing.T) {
	for _, o := range []Options{{AllowCIDRs: []string{"10.0.0.0/33"}}, {DenyCIDRs: []string{"not-an-ip"}}} {
		if _, err := NewPolicy(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// metadataServer stands for 169.254.169.254: a loopback server that must not be reached.
func metadataServer(t *testing.T) (*httptest.Server, *int) {
	hits := new(int)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		*hits++
		_, _ = io.WriteString(w, "iam-credentials")
	}))
	t.Cleanup(srv.Close)
	return srv, hits
}

func TestGuardedClientRefusesLoopbackRedirectsAndNames(t *testing.T) {
	meta, hits := metadataServer(t)
	metaPort := meta.Listener.Addr().(*net.TCPAddr).Port
	// The redirector plays a public server on 127.0.0.2, which the policy allows; it
	// redirects to the metadata server on 127.0.0.1, which the policy must refuse.
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no 127.0.0.2 on this host: %v", err)
	}
	redirector := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, meta.URL+"/latest/meta-data/", http.StatusFound)
	}))
	redirector.Listener = ln
	redirector.Start()
	t.Cleanup(redirector.Close)
	redirPort := ln.Addr().(*net.TCPAddr).Port

	resolver := func(_ context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "metadata.internal.test":
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		case "docs.example.test":
			return []netip.Addr{netip.MustParseAddr("127.0.0.2")}, nil
		}
		return nil, fmt.Errorf("no such host %s", host)
	}
	guard, err := NewPolicy(Options{Resolver: resolver, AllowCIDRs: []string{"127.0.0.2/32"}})
	if err != nil {
		t.Fatal(err)
	}
	client := NewHTTPClient(0)
	get := func(ctx context.Context, url string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err == nil {
			_ = resp.Body.Close()
		}
		return err
	}
	ctx := WithPolicy(context.Background(), guard)
	if err := get(ctx, fmt.Sprintf("http://docs.example.test:%d/healthz", redirPort)); !IsDenied(err) {
		t.Errorf("redirect to the metadata server: got %v, want a denied egress", err)
	}
	for name, url := range map[string]string{
		"loopback address":           meta.URL,
		"name resolving to loopback": fmt.Sprintf("http://metadata.internal.test:%d/", metaPort),
	} {
		if err := get(ctx, url); !IsDenied(err) {
			t.Errorf("%s: got %v, want a denied egress", name, err)
		}
	}
	// localhost through the system resolver and the default policy (no allow at all).
	def, _ := NewPolicy(Options{})
	if err := get(WithPolicy(context.Background(), def), fmt.Sprintf("http://localhost:%d/", metaPort)); !IsDenied(err) {
		t.Errorf("localhost: got %v, want a denied egress", err)
	}
	if *hits != 0 {
		t.Fatalf("the metadata server was reached %d times", *hits)
	}
	// The process-wide policy applies when the context carries none.
	SetDefault(def)
	err = get(context.Background(), meta.URL)
	SetDefault(nil)
	if !IsDenied(err) {
		t.Errorf("process-wide policy: got %v, want a denied egress", err)
	}
	// Without a policy the same client reaches it: the refusals above are the guard's.
	if err := get(context.Background(), meta.URL); err != nil || *hits != 1 {
		t.Fatalf("unguarded: %v, hits %d", err, *hits)
	}
}

func TestRedirectsAreCapped(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, srv.URL+r.URL.Path+"x", http.StatusFound)
	}))
	t.Cleanup(srv.Close)
	resp, err := NewHTTPClient(0).Get(srv.URL + "/")
	if err == nil {
		_ = resp.Body.Close()
		t.Fatal("a redirect loop was followed to the end")
	}
}
