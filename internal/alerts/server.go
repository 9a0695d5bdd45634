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
	"net/http"
	"time"

	"github.com/kubage/kubage/internal/httpserve"
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
type Server struct{ *httpserve.Server }

// NewServer wraps a Handler in a Server.
func NewServer(h http.Handler, opts ServerOptions) *Server {
	return &Server{httpserve.New(h, httpserve.Options{
		Name: "alert receiver", Address: opts.Address, Path: Path, CertFile: opts.CertFile, KeyFile: opts.KeyFile,
		MaxConnections: maxConnections, ReadTimeout: 30 * time.Second, WriteTimeout: DefaultRequestTimeout + 15*time.Second,
	})}
}
