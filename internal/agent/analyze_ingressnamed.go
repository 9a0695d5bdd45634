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
	"sort"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubage/kubage/internal/tools"
)

// An ingress controller is configured by the Ingresses it serves as much as by its own
// flags: their annotations name middlewares, auth services, snippets and certificates. When
// the controller's error quotes a name that one Ingress's annotation holds, that Ingress is
// where the name is fixed (Traefik's 'middleware "strip-admin@kubernetescrd" does not exist').

// tokenInIngress reports an error whose quoted token is the value (or part of the value,
// between separators) of an annotation of one Ingress of the namespace.
func (pc *podCheck) tokenInIngress(ctx context.Context, d *depCheck) bool {
	if networkClass(d.clue.Class) {
		return false
	}
	ings, err := listOnce[*networkingv1.Ingress](ctx, pc.e, "Ingress", maxServiceList)
	if err != nil || len(ings) == 0 {
		return false
	}
	// The annotations' values are matched against the line, not the line's tokens against the
	// values: controllers quote names inside quoted, escaped messages that tokenize poorly.
	line := strings.ReplaceAll(d.clue.Line, `\"`, `"`)
	var hits []*networkingv1.Ingress
	var keys, toks []string
	for _, ing := range ings {
		for _, k := range sortedKeys(ing.Annotations) {
			if strings.HasPrefix(k, "kubectl.kubernetes.io/") {
				continue
			}
			if tok := annotationItemIn(ing.Annotations[k], line); tok != "" {
				hits, keys, toks = append(hits, ing), append(keys, k), append(toks, tok)
				break
			}
		}
	}
	if len(hits) != 1 {
		return false // on several Ingresses the name is shared, not one's mistake
	}
	ing, key, tok := hits[0], keys[0], toks[0]
	iref := pc.e.ref("Ingress", ing.Name)
	val := tools.Sanitize(ing.Annotations[key], 160, true)
	d.evIDs = append(d.evIDs, pc.e.objEvidence(iref, fmt.Sprintf("Ingress %s annotation %s: %s", ing.Name, key, val)))
	same := pc.sameAnnotationElsewhere(ings, ing.Name, key)
	d.report(ctx, "config-value-rejected", 0, iref, fmt.Sprintf("%s: the name %s the error quotes comes from the annotation key %s of Ingress %s (%q); the controller cannot resolve it, so Ingress %s%s is not served as configured. Fix the annotation there.%s",
		d.opening(), tokenFact(tok), key, ing.Name, val, ing.Name, ingressServes(ing), same), nil, []ObjectRef{iref},
		map[string]string{"token": tokenFact(tok), "key": key, "sourceResource": kubectlResource(iref)})
	return true
}

// annotationItemIn is the item of an annotation's value (the value, or one item of a comma-
// or space-separated list) that the line names whole, or "". Short or plain items ("true",
// "nginx") say nothing.
func annotationItemIn(v, line string) string {
	items := append([]string{v}, strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' })...)
	for _, it := range items {
		it = strings.TrimSpace(it)
		if len(it) >= 8 && strings.ContainsAny(it, "-_.@/:") && hasToken(line, it) {
			return it
		}
	}
	return ""
}

// sameAnnotationElsewhere quotes the value other Ingresses give the same annotation (those
// that work set it the way the controller expects), as a comparison.
func (pc *podCheck) sameAnnotationElsewhere(ings []*networkingv1.Ingress, self, key string) string {
	var said []string
	for _, ing := range ings {
		if v, ok := ing.Annotations[key]; ok && ing.Name != self && len(said) < 2 {
			said = append(said, fmt.Sprintf("Ingress %s sets %q", ing.Name, tools.Sanitize(v, 120, true)))
		}
	}
	if len(said) == 0 {
		return ""
	}
	sort.Strings(said)
	return " For comparison, " + strings.Join(said, "; ") + "."
}

// ingressServes says what an Ingress serves: its hosts and TLS Secrets (bounded), as
// " (hosts a, b; TLS Secret s)", or "".
func ingressServes(ing *networkingv1.Ingress) string {
	var hosts, secrets []string
	for _, r := range ing.Spec.Rules {
		if r.Host != "" && len(hosts) < 3 && !containsStr(hosts, r.Host) {
			hosts = append(hosts, r.Host)
		}
	}
	for _, t := range ing.Spec.TLS {
		if t.SecretName != "" && len(secrets) < 2 && !containsStr(secrets, t.SecretName) {
			secrets = append(secrets, t.SecretName)
		}
	}
	var parts []string
	if len(hosts) > 0 {
		parts = append(parts, "hosts "+strings.Join(hosts, ", "))
	}
	if len(secrets) > 0 {
		parts = append(parts, "TLS Secret "+strings.Join(secrets, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}
