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
	"regexp"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"

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
		ans, err := e.c.Review(ctx, tools.AccessQuestion{User: user, Groups: groups, Verb: verb, Group: a.Group, Resource: a.Resource, ClusterScoped: clusterScoped(a.Resource)})
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
	"clusterroles": "rbac.authorization.k8s.io", "clusterrolebindings": "rbac.authorization.k8s.io",
	"customresourcedefinitions": "apiextensions.k8s.io", "priorityclasses": "scheduling.k8s.io",
	"csidrivers": "storage.k8s.io", "csinodes": "storage.k8s.io", "volumeattachments": "storage.k8s.io",
	"ingressclasses": "networking.k8s.io", "runtimeclasses": "node.k8s.io", "certificatesigningrequests": "certificates.k8s.io",
	"validatingwebhookconfigurations": "admissionregistration.k8s.io", "mutatingwebhookconfigurations": "admissionregistration.k8s.io",
	"apiservices": "apiregistration.k8s.io", "validatingadmissionpolicies": "admissionregistration.k8s.io",
}

// Subresources people ask about in words: "read pod logs", "kubectl exec into pods",
// "port-forward", "scale deployments", "evict pods". Each becomes the verb and
// resource/subresource the authorizer checks.
var askSubresource = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`(?i)\b(?:kubectl\s+logs|(?:read|get|see|view|fetch|tail|stream|access)(?:s|ing)?\s+(?:the\s+)?(?:pods?'?\s*|containers?'?\s*)?logs?|logs?\s+of\s+(?:the\s+)?(?:pods?|containers?))\b`), " get pods/log "},
	{regexp.MustCompile(`(?i)\b(?:kubectl\s+exec|exec(?:ute)?(?:s|ing)?\s+(?:commands?\s+)?(?:in|into)\s+(?:the\s+|a\s+)?(?:pods?|containers?)|exec\s+pods?)\b`), " create pods/exec "},
	{regexp.MustCompile(`(?i)\b(?:kubectl\s+)?port-?forward(?:s|ing)?(?:\s+(?:to\s+)?(?:the\s+|a\s+)?pods?)?\b`), " create pods/portforward "},
	{regexp.MustCompile(`(?i)\bkubectl\s+attach|attach(?:es|ing)?\s+to\s+(?:the\s+|a\s+)?pods?\b`), " create pods/attach "},
	{regexp.MustCompile(`(?i)\b(?:evict(?:s|ing)?\s+(?:the\s+)?pods?|drain(?:s|ing)?\s+(?:the\s+|a\s+)?nodes?)\b`), " create pods/eviction "},
	{regexp.MustCompile(`(?i)\bscal(?:e|es|ing)\s+(?:the\s+)?(deployments?|statefulsets?|replicasets?)\b`), " update ${1}/scale "},
}

// subresourcePhrases rewrites those phrases.
func subresourcePhrases(p string) string {
	for _, s := range askSubresource {
		p = s.re.ReplaceAllString(p, s.with)
	}
	return p
}

// kindPlural accepts a custom resource named by its kind's plural as users write it
// ("create Certificates", "list KafkaTopics"): capitalised, plural, one word.
func kindPlural(w string) bool {
	if len(w) < 4 || w[0] < 'A' || w[0] > 'Z' || !strings.HasSuffix(w, "s") {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// clusterScopedResources are resources that live outside namespaces; a RoleBinding never
// grants them.
var clusterScopedResources = map[string]bool{
	"nodes": true, "persistentvolumes": true, "namespaces": true, "storageclasses": true, "clusterroles": true,
	"clusterrolebindings": true, "customresourcedefinitions": true, "priorityclasses": true, "csidrivers": true,
	"csinodes": true, "volumeattachments": true, "ingressclasses": true, "runtimeclasses": true,
	"validatingwebhookconfigurations": true, "mutatingwebhookconfigurations": true, "certificatesigningrequests": true,
	"apiservices": true, "validatingadmissionpolicies": true,
}

// clusterScoped reports a resource outside namespaces.
func clusterScoped(resource string) bool {
	base, _, _ := strings.Cut(resource, "/")
	if clusterScopedResources[base] {
		return true
	}
	if k, err := tools.ResolveKind(base); err == nil {
		return !k.Namespaced
	}
	return false
}

// knownCore reports a resource whose API group the tools or knownGroups know.
func knownCore(resource string) bool {
	base, _, _ := strings.Cut(resource, "/")
	if _, ok := knownGroups[base]; ok {
		return true
	}
	_, err := tools.ResolveKind(base)
	return err == nil
}

// groupInRules finds the API group the RBAC rules in view give a resource.
func groupInRules(v tools.RBACView, resource string) string {
	base, _, _ := strings.Cut(resource, "/")
	var rules []rbacv1.PolicyRule
	for _, r := range v.Roles {
		rules = append(rules, r.Rules...)
	}
	for _, n := range sortedKeys(v.ClusterRoles) {
		rules = append(rules, v.ClusterRoles[n].Rules...)
	}
	for _, r := range rules {
		for _, res := range r.Resources {
			if res == base || strings.HasPrefix(res, base+"/") {
				for _, g := range r.APIGroups {
					if g != "" && g != "*" {
						return g
					}
				}
			}
		}
	}
	return ""
}
