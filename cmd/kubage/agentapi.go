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

package main

import (
	"errors"

	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/kubage/kubage/internal/knowledge"
	"github.com/kubage/kubage/internal/knowledge/remote"
)

// agentAPIOptions are the `kubage manager` flags of the endpoint task Jobs search knowledge
// through (internal/knowledge/remote). It is off unless --agent-api-bind-address is set.
type agentAPIOptions struct {
	bindAddress string
	url         string
	certFile    string
	keyFile     string
}

func (o *agentAPIOptions) bindFlags(f *pflag.FlagSet) {
	f.StringVar(&o.bindAddress, "agent-api-bind-address", "0", "Address the knowledge endpoint of task Jobs (POST "+remote.SearchPath+", ServiceAccount token auth) binds to, e.g. \":8082\"; \"0\" disables it.")
	f.StringVar(&o.url, "agent-api-url", "", "URL task Jobs reach that endpoint at, e.g. http://kubage-agent-api.kubage-system.svc:8082; empty: task Jobs have no knowledge.")
	f.StringVar(&o.certFile, "agent-api-tls-cert-file", "", "TLS certificate of the endpoint (with --agent-api-tls-key-file); reloaded when it changes.")
	f.StringVar(&o.keyFile, "agent-api-tls-key-file", "", "TLS private key of the endpoint.")
}

// setup serves know to the agents of ServiceAccount sa when enabled.
func (o *agentAPIOptions) setup(mgr manager.Manager, cs kubernetes.Interface, know *knowledge.Service, sa string) error {
	if o.bindAddress == "" || o.bindAddress == "0" {
		if o.url != "" {
			return errors.New("--agent-api-url needs --agent-api-bind-address")
		}
		return nil
	}
	h := &remote.Handler{Searcher: know, Auth: &remote.TokenReviewer{Client: cs, ServiceAccount: sa}}
	return mgr.Add(&remote.Server{Handler: h, Address: o.bindAddress, CertFile: o.certFile, KeyFile: o.keyFile})
}
