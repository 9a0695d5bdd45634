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
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// An Ingress path rule with pathType Exact matches its path and nothing below it: /api
// takes /api, not /api/v1/reports. The longer paths fall through to the next rule that
// matches them, usually "/" (Prefix) in front of the web UI, whose server answers 404 for
// a file it does not have. The UI's own log shows the request and the 404; the Ingress
// rule is the fault.

// requestLine reads the method and path of an HTTP request a server logs.
var requestLine = regexp.MustCompile(`\b(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) (/[^\s?"]*)`)

// notFoundText marks a server's reply that it has nothing at the path.
var notFoundText = regexp.MustCompile(`(?i)\b404\b|no such file or directory|not found`)

// ingressPath is one path rule of an Ingress.
type ingressPath struct {
	ing      *networkingv1.Ingress
	host     string
	path     string
	pathType networkingv1.PathType
	service  string
}

// ingressPaths lists an Ingress's path rules (default backend excluded).
func ingressPaths(ing *networkingv1.Ingress) []ingressPath {
	var out []ingressPath
	for _, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for _, p := range r.HTTP.Paths {
			if p.Backend.Service == nil {
				continue
			}
			pt := networkingv1.PathTypeImplementationSpecific
			if p.PathType != nil {
				pt = *p.PathType
			}
			out = append(out, ingressPath{ing: ing, host: r.Host, path: p.Path, pathType: pt, service: p.Backend.Service.Name})
		}
	}
	return out
}

// prefixOf reports whether rule path p is an element-wise prefix of request path req
// (/api of /api/v1, not of /apis), as pathType Prefix matches.
func prefixOf(p, req string) bool {
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return true
	}
	return req == p || strings.HasPrefix(req, p+"/")
}

// routedTo is the path rule of one host's rules that serves req: the longest match, Exact
// before Prefix on equal length (ImplementationSpecific read as Prefix).
func routedTo(paths []ingressPath, req string) *ingressPath {
	var best *ingressPath
	for i := range paths {
		p := &paths[i]
		ok := p.pathType == networkingv1.PathTypeExact && p.path == req || p.pathType != networkingv1.PathTypeExact && prefixOf(p.path, req)
		if !ok {
			continue
		}
		if best == nil || len(p.path) > len(best.path) || len(p.path) == len(best.path) && p.pathType == networkingv1.PathTypeExact {
			best = p
		}
	}
	return best
}

// ingressPathFallthrough reports a server answering "not found" for a request path that an
// Ingress sends to it only because the rule meant for the path is Exact and stops short of it.
func (pc *podCheck) ingressPathFallthrough(ctx context.Context, d *depCheck) bool {
	m := requestLine.FindStringSubmatch(d.clue.Line)
	if m == nil || !notFoundText.MatchString(d.clue.Line) {
		return false
	}
	req := m[2]
	e := pc.e
	ings, err := listOnce[*networkingv1.Ingress](ctx, e, "Ingress", maxServiceList)
	if err != nil || len(ings) == 0 {
		return false
	}
	svcs, err := listOnce[*corev1.Service](ctx, e, "Service", maxServiceList)
	if err != nil {
		return false
	}
	mine := map[string]bool{} // the Services in front of this pod
	for _, s := range svcs {
		if len(s.Spec.Selector) > 0 && labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(pc.pod.Labels)) {
			mine[s.Name] = true
		}
	}
	for _, ing := range ings {
		byHost := map[string][]ingressPath{}
		for _, p := range ingressPaths(ing) {
			byHost[p.host] = append(byHost[p.host], p)
		}
		for _, paths := range byHost {
			got := routedTo(paths, req)
			if got == nil || !mine[got.service] {
				continue
			}
			for _, p := range paths {
				if p.pathType != networkingv1.PathTypeExact || p.service == got.service || p.path == req || !prefixOf(p.path, req) || len(p.path) <= len(got.path) {
					continue
				}
				iref, sref := e.ref("Ingress", ing.Name), e.ref("Service", p.service)
				d.evIDs = append(d.evIDs, e.objEvidence(iref, fmt.Sprintf("Ingress %s: path %s (Exact) → Service %s; path %s (%s) → Service %s", ing.Name, p.path, p.service, got.path, got.pathType, got.service)))
				d.report(ctx, "ingress-path-type-mismatch", 0, iref, fmt.Sprintf("%s: it is asked for %s, which Ingress %s sends to Service %s by its rule %s (%s), because the rule meant for it, %s → Service %s, has pathType Exact and matches %s alone. Set pathType: Prefix on %s.",
					d.opening(), clipString(req, 120), ing.Name, got.service, got.path, got.pathType, p.path, p.service, p.path, p.path), nil, []ObjectRef{iref, sref},
					map[string]string{"name": ing.Name, "path": p.path, "service": p.service})
				return true
			}
		}
	}
	return false
}
