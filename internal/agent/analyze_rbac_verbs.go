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

	"github.com/kubage/kubage/internal/tools"
)

// probeVerbs are tried in order when a question names the account and the resource but no
// verb ("sync-worker gets forbidden on secrets"): the first one refused is the answer.
var probeVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete"}

// deniedVerb asks the authorizer about each of probeVerbs on the question's resource and
// returns the first one refused ("get" when every one is allowed, so the answer says so).
func (e *env) deniedVerb(ctx context.Context, a accessAsk) string {
	if a.SA == "" || a.Resource == "" {
		return ""
	}
	user, groups := tools.ServiceAccountUser(e.s.Namespace, a.SA)
	for _, verb := range probeVerbs {
		if e.budget() != nil {
			break
		}
		ans, err := e.c.Review(ctx, tools.AccessQuestion{User: user, Groups: groups, Verb: verb, Group: a.Group, Resource: a.Resource})
		_ = e.record("k8s_access_review", user+" "+verb+" "+a.Resource, err)
		if err != nil {
			break
		}
		if !ans.Allowed {
			return verb
		}
	}
	return probeVerbs[0]
}

// notAName lists words that follow or precede "service account" in questions without being its name.
var notAName = map[string]bool{
	"gets": true, "get": true, "is": true, "can": true, "cannot": true, "can't": true, "cant": true, "does": true, "doesn't": true,
	"has": true, "lacks": true, "fails": true, "needs": true, "should": true, "was": true, "in": true, "from": true, "to": true,
	"for": true, "of": true, "that": true, "which": true, "and": true, "the": true, "a": true, "my": true, "our": true, "this": true,
	"its": true, "their": true, "may": true, "isn't": true, "why": true, "with": true,
	"list": true, "watch": true, "create": true, "update": true, "patch": true, "delete": true, "read": true, "write": true,
	"see": true, "access": true, "edit": true, "deletecollection": true, "not": true, "cannot't": true,
	"unable": true, "won't": true, "keeps": true, "still": true, "now": true, "always": true, "suddenly": true, "sa": true,
}

// knownGroups gives the API group of common resources (the rest default to core or to the
// group written after a dot, "widgets.example.com").
var knownGroups = map[string]string{
	"deployments": "apps", "replicasets": "apps", "statefulsets": "apps", "daemonsets": "apps",
	"jobs": "batch", "cronjobs": "batch", "ingresses": "networking.k8s.io", "networkpolicies": "networking.k8s.io",
	"horizontalpodautoscalers": "autoscaling", "poddisruptionbudgets": "policy", "endpointslices": "discovery.k8s.io",
	"roles": "rbac.authorization.k8s.io", "rolebindings": "rbac.authorization.k8s.io", "leases": "coordination.k8s.io",
	"storageclasses": "storage.k8s.io", "troubleshoots": "kubage.io",
}
