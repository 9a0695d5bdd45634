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

// maxConnections bounds open connections from agents.
const maxConnections = 256

// Server serves a Handler as a manager Runnable, on every replica.
type Server struct {
	Handler http.Handler
	// Address to listen on, e.g. ":8082".
	Address string
	// CertFile and KeyFile enable TLS (both or neither), re-read when they change.
	CertFile, KeyFile string
}

// NeedLeaderElection is false: a replica answers from its own knowledge service.
func (s *Server) NeedLeaderElection() bool { return false }

// Start listens and serves until ctx ends, then drains in-flight searches for up to 10s.
func (s *Server) Start(ctx context.Context) error {
	log := ctrl.Log.WithName("agent-api")
	if (s.CertFile == "") != (s.KeyFile == "") {
		return errors.New("agent API TLS needs both a certificate and a key file")
	}
	ln, err := net.Listen("tcp", s.Address)
	if err != nil {
		return fmt.Errorf("agent API: %w", err)
	}
	ln = netutil.LimitListener(ln, maxConnections)
	srv := &http.Server{Handler: s.Handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 16 << 10}
	scheme := "http"
	if s.CertFile != "" {
		cw, err := certwatcher.New(s.CertFile, s.KeyFile)
		if err != nil {
			_ = ln.Close()
			return fmt.Errorf("agent API certificate: %w", err)
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
	log.Info("Starting the agent API", "address", ln.Addr().String(), "scheme", scheme, "path", SearchPath)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("agent API: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	log.Info("Stopping the agent API")
	return srv.Shutdown(shutdownCtx)
}
