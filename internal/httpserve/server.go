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

// Package httpserve runs one HTTP server the way every listener of the operator runs:
// bounded connections and headers, timeouts, optional TLS whose certificate is re-read
// when it changes, and a graceful shutdown when the context ends. It is a leaf: the alert
// receiver, the agent API and kubage mcp serve their handlers through it.
package httpserve

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"time"

	"golang.org/x/net/netutil"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
)

// Options say where and how a server listens.
type Options struct {
	// Name is the server's name in logs and errors, e.g. "alert receiver".
	Name string
	// Address to listen on, e.g. ":9090".
	Address string
	// Path is the handler's path, for the log line only.
	Path string
	// CertFile and KeyFile enable TLS; both or neither. They are re-read when they change,
	// so cert-manager rotations need no restart.
	CertFile, KeyFile string
	// MaxConnections bounds open connections (no bound when zero), so slow or idle clients
	// cannot exhaust the process's file descriptors.
	MaxConnections int
	// ReadTimeout and WriteTimeout bound a request's body and its response (none when
	// zero: streaming responses need none).
	ReadTimeout, WriteTimeout time.Duration
}

// Server is a manager Runnable on every replica (or a plain server: call Start).
type Server struct {
	handler http.Handler
	opts    Options
	ready   chan net.Addr
}

// New wraps a handler in a Server.
func New(h http.Handler, opts Options) *Server {
	return &Server{handler: h, opts: opts, ready: make(chan net.Addr, 1)}
}

// NeedLeaderElection is false: every replica serves.
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
	log := ctrl.Log.WithName("http").WithValues("server", s.opts.Name)
	if (s.opts.CertFile == "") != (s.opts.KeyFile == "") {
		return fmt.Errorf("%s TLS needs both a certificate and a key file", s.opts.Name)
	}
	ln, err := net.Listen("tcp", s.opts.Address)
	if err != nil {
		return fmt.Errorf("%s: %w", s.opts.Name, err)
	}
	if s.opts.MaxConnections > 0 {
		ln = netutil.LimitListener(ln, s.opts.MaxConnections)
	}
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       s.opts.ReadTimeout,
		WriteTimeout:      s.opts.WriteTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    16 << 10,
	}
	scheme := "http"
	if s.opts.CertFile != "" {
		cw, err := certwatcher.New(s.opts.CertFile, s.opts.KeyFile)
		if err != nil {
			_ = ln.Close()
			return fmt.Errorf("%s certificate: %w", s.opts.Name, err)
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
	log.Info("Starting to serve", "address", ln.Addr().String(), "scheme", scheme, "path", s.opts.Path)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("%s: %w", s.opts.Name, err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	log.Info("Stopping")
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("%s shutdown: %w", s.opts.Name, err)
	}
	return nil
}
