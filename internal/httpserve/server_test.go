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

package httpserve

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestServeAndShutDown(t *testing.T) {
	s := New(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }),
		Options{Name: "test", Address: "127.0.0.1:0", MaxConnections: 2, ReadTimeout: time.Second, WriteTimeout: time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Start(ctx) }()
	addr := s.Addr(ctx)
	resp, err := http.Get("http://" + addr.String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if string(body) != "ok" {
		t.Fatalf("body %q", body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("a cancelled server shuts down cleanly: %v", err)
	}
}

func TestTLSNeedsBothFiles(t *testing.T) {
	err := New(http.NotFoundHandler(), Options{Name: "test", Address: "127.0.0.1:0", CertFile: "tls.crt"}).Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "test TLS needs both a certificate and a key file") {
		t.Fatalf("got %v", err)
	}
}
