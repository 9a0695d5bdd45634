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
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"golang.org/x/net/netutil"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
)

// maxConnections bounds open connections, so slow or idle clients cannot exhaust the
// process's file descriptors; requests being processed are bounded separately.
const maxConnections = 512

// ServerOptions say where and how the receiver listens.
type ServerOptions struct {
	// Address to listen on, e.g. ":9090".
	Address string
	// CertFile and KeyFile enable TLS; both or neither. They are re-read when they change,
	// so cert-manager rotations need no restart.
	CertFile, KeyFile string
}

// Server runs the receiver's HTTP server as a manager Runnable, on every replica: the
// writes are idempotent, so replicas need no leader to share a Service.
type Server struct {
	handler http.Handler
	opts    ServerOptions
	ready   chan net.Addr
}

// NewServer wraps a Handler in a Server.
func NewServer(h http.Handler, opts ServerOptions) *Server {
	return &Server{handler: h, opts: opts, ready: make(chan net.Addr, 1)}
}

// NeedLeaderElection is false: every replica receives alerts.
func (s *Server) NeedLeaderElection() bool { return false }

// Addr returns the listening address once the server listens, or nil when ctx ends first.
func (s *Server) Addr(ctx context.Context) net.Addr {
	select {
	case a := <-s.ready:
		s.ready <- a
		return a
	case <-ctx.Done():
		return nil
	}
}

// Start listens and serves until ctx ends, then drains in-flight requests for up to 10s.
func (s *Server) Start(ctx context.Context) error {
	log := ctrl.Log.WithName("alerts")
	if (s.opts.CertFile == "") != (s.opts.KeyFile == "") {
		return errors.New("alert receiver TLS needs both a certificate and a key file")
	}
	ln, err := net.Listen("tcp", s.opts.Address)
	if err != nil {
		return fmt.Errorf("alert receiver: %w", err)
	}
	ln = netutil.LimitListener(ln, maxConnections)
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      DefaultRequestTimeout + 15*time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    16 << 10,
	}
	scheme := "http"
	if s.opts.CertFile != "" {
		cw, err := certwatcher.New(s.opts.CertFile, s.opts.KeyFile)
		if err != nil {
			_ = ln.Close()
			return fmt.Errorf("alert receiver certificate: %w", err)
		}
		go func() {
			if err := cw.Start(ctx); err != nil {
				log.Error(err, "Certificate watcher stopped")
			}
		}()
		srv.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: cw.GetCertificate}
		ln = tls.NewListener(ln, srv.TLSConfig)
		scheme = "https"
	}
	s.ready <- ln.Addr()
	log.Info("Starting alert receiver", "address", ln.Addr().String(), "scheme", scheme, "path", Path)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("alert receiver: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	log.Info("Stopping alert receiver")
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("alert receiver shutdown: %w", err)
	}
	return nil
}
