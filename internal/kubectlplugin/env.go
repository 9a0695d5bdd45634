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

// Package kubectlplugin is the logic of the kubectl plugin (`kubectl kubage ...`): it creates,
// follows, lists, approves and reruns Troubleshoot sessions through the Kubernetes API, as the
// user running it. It knows the API types only, never the operator's internals.
package kubectlplugin

import (
	"errors"
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// TroubleshootResource is the resource of the Troubleshoot kind.
var TroubleshootResource = kubagev1alpha1.GroupVersion.WithResource("troubleshoots")

// ExitNoRootCause is the exit code of a followed session that ended without a root cause.
const ExitNoRootCause = 2

// ExitError carries the process exit code a command should end with.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode is the process exit code for an error a command returned: 0 for none, the code of
// an ExitError, else 1.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var exit *ExitError
	if errors.As(err, &exit) {
		return exit.Code
	}
	return 1
}

// Env is what every verb works with: the clients, the namespace and where output goes.
type Env struct {
	Dynamic   dynamic.Interface
	Discovery discovery.DiscoveryInterface
	// Mapper resolves kinds beyond the built-in short forms (e.g. a CRD's short name); may be nil.
	Mapper meta.RESTMapper

	// Namespace is the namespace of -n, of the kubeconfig context, or "default".
	Namespace string

	Out    io.Writer
	ErrOut io.Writer
	// TTY says that Out is a terminal: progress updates in place and reports are styled.
	TTY bool
	// Width is the terminal width in columns (80 when unknown).
	Width int
	// Now is the clock (tests pin it).
	Now func() time.Time
}

// NewEnv builds an Env from kubectl's standard flags.
func NewEnv(flags *genericclioptions.ConfigFlags, out, errOut io.Writer, tty bool, width int) (*Env, error) {
	cfg, err := flags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	ns, _, err := flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	// Uncached: right after `make install` a cached discovery would still miss the CRDs.
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	mapper, err := flags.ToRESTMapper()
	if err != nil {
		return nil, err
	}
	if width <= 0 {
		width = 80
	}
	return &Env{Dynamic: dyn, Discovery: disc, Mapper: mapper, Namespace: ns,
		Out: out, ErrOut: errOut, TTY: tty, Width: width, Now: time.Now}, nil
}

// troubleshootFrom converts what the dynamic client returns into the typed object.
func troubleshootFrom(obj runtime.Unstructured) (*kubagev1alpha1.Troubleshoot, error) {
	ts := &kubagev1alpha1.Troubleshoot{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.UnstructuredContent(), ts); err != nil {
		return nil, fmt.Errorf("decoding Troubleshoot: %w", err)
	}
	return ts, nil
}

// qualified is how kubectl names a resource in messages, e.g. "troubleshoots.kubage.io".
func qualified(gvr schema.GroupVersionResource) string {
	if gvr.Group == "" {
		return gvr.Resource
	}
	return gvr.Resource + "." + gvr.Group
}
