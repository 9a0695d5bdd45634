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
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// "Two of three pods never get requests" is no failure any object reports: every pod is
// Ready. A Service with sessionAffinity ClientIP sends every connection from one client IP to
// the same endpoint for its timeout (three hours by default), so with few callers (one pod, a
// proxy, an ingress controller) one endpoint takes all the traffic. The question is asked in
// the problem text; the Service's spec answers it.

// unevenTraffic matches a problem text about traffic reaching only some pods.
var unevenTraffic = regexp.MustCompile(`(?i)\b(never|don't|do not|doesn't|does not|no|not)\s+(get|gets|getting|receive|receives|receiving|see|sees|serve|serves)\s+(any\s+)?(traffic|requests?|load|connections?|calls)|\b(traffic|requests?|load|connections?|calls)\s+(never|don't|do not|doesn't|does not)\s+(reach|reaches|hit|hits|get to)\b|\b(all|every)\s+(\w+\s+){0,2}(traffic|requests?|load|connections?|calls)\s+(go|goes|going|land|lands|hit|hits|end up|ends up|reach|reaches)\b|\b(the )?same (pod|replica|instance)\b|\bonly one (pod|replica|instance)\b|\buneven|\bimbalanc|\bunbalanc|\bnot (evenly|balanced|load[- ]balanced)|\bone (pod|replica) (is |gets |takes )?(overloaded|all)|\bhot ?spot`)

// asksUnevenTraffic reports a problem text about traffic reaching only some pods.
func (e *env) asksUnevenTraffic() bool {
	return unevenTraffic.MatchString(clipString(e.s.Problem, 2000))
}

// sessionAffinity reports a ClientIP Service when the problem asks why traffic is uneven.
func (e *env) sessionAffinity(ctx context.Context, svc *corev1.Service, ready int, evIDs []string) bool {
	if svc.Spec.SessionAffinity != corev1.ServiceAffinityClientIP || !e.asksUnevenTraffic() {
		return false
	}
	timeout := int32(10800)
	if c := svc.Spec.SessionAffinityConfig; c != nil && c.ClientIP != nil && c.ClientIP.TimeoutSeconds != nil {
		timeout = *c.ClientIP.TimeoutSeconds
	}
	sref := e.ref("Service", svc.Name)
	callers, affected := e.callersOf(ctx, svc.Name)
	who := "few clients"
	if callers != "" {
		who = "its callers " + callers
	}
	e.find(Finding{Rule: "service-session-affinity", Object: sref, Culprit: sref, Affected: affected, Evidence: evIDs,
		Facts: map[string]string{"timeout": fmt.Sprint(timeout)},
		Summary: fmt.Sprintf("Service %s has sessionAffinity ClientIP (timeout %s): kube-proxy sends every connection from one client IP to the same endpoint until the timeout, so with %s one of its %d ready pod(s) takes the traffic and the others get none. Set sessionAffinity: None unless clients need to stick to one pod.",
			svc.Name, (time.Duration(timeout) * time.Second).String(), who, ready)})
	return true
}

// callersOf names the Deployments whose env or arguments call host name, with their pod counts.
func (e *env) callersOf(ctx context.Context, name string) (string, []ObjectRef) {
	deps, err := listOnce[*appsv1.Deployment](ctx, e, "Deployment", scanMaxObjects)
	if err != nil {
		return "", nil
	}
	var parts []string
	var refs []ObjectRef
	for _, d := range deps {
		calls := false
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, ev := range c.Env {
				calls = calls || hostIn(ev.Value, name)
			}
			for _, a := range append(append([]string{}, c.Command...), c.Args...) {
				calls = calls || hostIn(a, name)
			}
		}
		if calls && len(parts) < 4 {
			parts = append(parts, fmt.Sprintf("Deployment %s (%d pod(s))", d.Name, replicasOr(d.Spec.Replicas, 1)))
			refs = append(refs, e.ref("Deployment", d.Name))
		}
	}
	return strings.Join(parts, ", "), refs
}

// hostIn reports whether s calls host name (name, name:port, //name/, name.ns.svc).
func hostIn(s, name string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], name)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(name)
		if (j == 0 || !isNameByte(s[j-1]) && s[j-1] != '.') && (end == len(s) || s[end] == ':' || s[end] == '/' || s[end] == '.' || !isNameByte(s[end])) {
			return true
		}
		i = j + 1
	}
}

// servicesOf are the Services whose selector picks the template's labels.
func (e *env) servicesOf(ctx context.Context, lbls map[string]string) []ObjectRef {
	svcs, err := listOnce[*corev1.Service](ctx, e, "Service", maxServiceList)
	if err != nil {
		return nil
	}
	var out []ObjectRef
	for _, s := range svcs {
		if len(s.Spec.Selector) > 0 && labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(lbls)) {
			out = append(out, e.ref("Service", s.Name))
		}
	}
	return out
}
