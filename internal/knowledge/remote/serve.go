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
	"time"

	"github.com/kubage/kubage/internal/httpserve"
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
	return httpserve.New(s.Handler, httpserve.Options{
		Name: "agent API", Address: s.Address, Path: SearchPath, CertFile: s.CertFile, KeyFile: s.KeyFile,
		MaxConnections: maxConnections, ReadTimeout: 30 * time.Second, WriteTimeout: time.Minute,
	}).Start(ctx)
}
