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

package kubectlplugin

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// ErrCRDsMissing says the cluster does not serve the Troubleshoot kind.
var ErrCRDsMissing = errors.New("KubAge CRDs are not installed in this cluster (no kind Troubleshoot in " +
	"kubage.io/v1alpha1): run `make install` from a KubAge checkout, or `helm install kubage charts/kubage`, " +
	"and start the operator")

// CheckInstalled fails with ErrCRDsMissing when the cluster does not serve Troubleshoots.
func (e *Env) CheckInstalled() error {
	list, err := e.Discovery.ServerResourcesForGroupVersion(kubagev1alpha1.GroupVersion.String())
	if apierrors.IsNotFound(err) {
		return ErrCRDsMissing
	}
	if err != nil {
		return e.explain(err, "discover", schema.GroupVersionResource{Group: "kubage.io", Version: "v1alpha1", Resource: "troubleshoots"}, "", "")
	}
	for _, r := range list.APIResources {
		if r.Kind == "Troubleshoot" {
			return nil
		}
	}
	return ErrCRDsMissing
}

// explain turns an API error about one object (name may be empty for a list or a create)
// into a message that says what went wrong and what to do.
func (e *Env) explain(err error, verb string, gvr schema.GroupVersionResource, ns, name string) error {
	where := ""
	if ns != "" {
		where = fmt.Sprintf(" in namespace %q", ns)
	}
	switch {
	case apierrors.IsForbidden(err):
		return fmt.Errorf("permission denied: you may not %s %s%s; ask for a Role that allows it (the API server said: %v)",
			verb, qualified(gvr), where, err)
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("not logged in to the cluster (the API server said: %v): check --kubeconfig and --context", err)
	case apierrors.IsNotFound(err) && gvr.GroupResource() == TroubleshootResource.GroupResource():
		// A missing kind and a missing object both answer 404: discovery tells them apart.
		if installed := e.CheckInstalled(); installed != nil {
			return installed
		}
		if name != "" {
			return fmt.Errorf("troubleshoot %q not found%s", name, where)
		}
	}
	return err
}
