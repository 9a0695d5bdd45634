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

package controllers

import (
	"fmt"
	"sync"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The operator reads an object's Secrets as the ServiceAccount the object names, so that
// whoever may create the object cannot use it to read what they could not read themselves.
// +kubebuilder:rbac:groups="",resources=serviceaccounts,verbs=impersonate

// maxImpersonatingClients bounds the clients kept, one per ServiceAccount.
const maxImpersonatingClients = 256

// impersonatingReaders makes uncached readers that act as a namespace's ServiceAccount.
type impersonatingReaders struct {
	cfg  *rest.Config
	opts client.Options

	mu      sync.Mutex
	readers map[string]client.Reader
}

func newImpersonatingReaders(cfg *rest.Config, opts client.Options) *impersonatingReaders {
	return &impersonatingReaders{cfg: cfg, opts: opts, readers: map[string]client.Reader{}}
}

// For returns a reader with the rights of ServiceAccount namespace/name.
func (f *impersonatingReaders) For(namespace, name string) (client.Reader, error) {
	user := "system:serviceaccount:" + namespace + ":" + name
	f.mu.Lock()
	defer f.mu.Unlock()
	if r, ok := f.readers[user]; ok {
		return r, nil
	}
	cfg := rest.CopyConfig(f.cfg)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	c, err := client.New(cfg, f.opts)
	if err != nil {
		return nil, fmt.Errorf("a client acting as %s: %w", user, err)
	}
	if len(f.readers) >= maxImpersonatingClients {
		clear(f.readers)
	}
	f.readers[user] = c
	return c, nil
}
