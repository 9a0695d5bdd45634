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
