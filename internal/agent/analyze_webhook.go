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

package agent

import (
	"context"
	"fmt"
	"regexp"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kubage/kubage/internal/tools"
)

// An admission webhook that cannot be called refuses every request it intercepts when its
// failurePolicy is Fail: a webhook left behind after its backend was uninstalled stops all
// pod creation in the namespaces it selects. The webhook configuration is the object to fix
// (or its backend Service to restore); the workloads only show FailedCreate.

// webhookService is the backend a webhook message says is missing ("service \"opa\" not found").
var webhookServiceMissing = regexp.MustCompile(`service "([a-z0-9][-a-z0-9.]{0,252})" not found`)

// failingWebhook finds the configuration holding webhook name and the Service it calls; the
// summary part says what is wrong with the backend. ok is false when no configuration holds it.
func (e *env) failingWebhook(ctx context.Context, name, msg string) (cfg ObjectRef, svc ObjectRef, why string, ok bool) {
	var client *admissionregistrationv1.WebhookClientConfig
	var policy *admissionregistrationv1.FailurePolicyType
	if l, err := listOnce[*admissionregistrationv1.ValidatingWebhookConfiguration](ctx, e, "ValidatingWebhookConfiguration", 200); err == nil {
		for _, c := range l {
			for i := range c.Webhooks {
				if w := &c.Webhooks[i]; w.Name == name && client == nil {
					cfg, client, policy = ObjectRef{Kind: "ValidatingWebhookConfiguration", Name: c.Name}, &w.ClientConfig, w.FailurePolicy
				}
			}
		}
	}
	if client == nil {
		if l, err := listOnce[*admissionregistrationv1.MutatingWebhookConfiguration](ctx, e, "MutatingWebhookConfiguration", 200); err == nil {
			for _, c := range l {
				for i := range c.Webhooks {
					if w := &c.Webhooks[i]; w.Name == name && client == nil {
						cfg, client, policy = ObjectRef{Kind: "MutatingWebhookConfiguration", Name: c.Name}, &w.ClientConfig, w.FailurePolicy
					}
				}
			}
		}
	}
	if client == nil {
		return ObjectRef{}, ObjectRef{}, "", false
	}
	failure := "Fail"
	if policy != nil {
		failure = string(*policy)
	}
	why = fmt.Sprintf("admission webhook %s of %s %s cannot be called and its failurePolicy is %s, so the API server refuses the pods", name, cfg.Kind, cfg.Name, failure)
	if s := client.Service; s != nil {
		svc = ObjectRef{Kind: "Service", Namespace: s.Namespace, Name: s.Name}
		if s.Namespace == e.s.Namespace {
			svc = e.ref("Service", s.Name)
		}
		missing := webhookServiceMissing.FindStringSubmatch(msg) != nil
		if !missing && s.Namespace == e.s.Namespace {
			_, err := e.get(ctx, "Service", s.Name)
			missing = tools.IsNotFound(err)
		}
		if missing {
			why += fmt.Sprintf(": its backend Service %s (namespace %s) does not exist; delete the webhook configuration if its backend was uninstalled, or restore the Service", s.Name, s.Namespace)
		} else {
			why += fmt.Sprintf(": its backend is Service %s (namespace %s)", s.Name, s.Namespace)
		}
	} else if client.URL != nil {
		why += fmt.Sprintf(": its backend is %s", *client.URL)
	}
	return cfg, svc, why, true
}
