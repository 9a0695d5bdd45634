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
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubage/kubage/internal/tools"
)

// A write refused by a read-only replica is a wrong address: the setting that names the
// replica is the culprit. The replica is recognised by its Service's name, its selector or
// its pods' labels (replica, standby, secondary, ro, ...) or by its own settings (read_only,
// replicaof, a replication role); when the address sits in a Secret, whose values are never
// read, the Secret key is named with the replica Services the namespace has.

// blameByAddress blames the object holding the address of a read-only replica.
func (pc *podCheck) blameByAddress(ctx context.Context, d *depCheck, k *knownError, provs []knownProvider) *knownFinding {
	// A writer's Service that also selects the replicas sends some writes to them whatever
	// address the client holds.
	for _, p := range provs {
		if f := pc.selectorSpansReplicas(ctx, p.svc); f != nil {
			return f
		}
	}
	for _, p := range provs {
		sign := pc.replicaSign(ctx, k, p.svc)
		if sign == "" {
			continue
		}
		says := fmt.Sprintf("the client is configured with Service %s, a read replica (%s)", p.svc.Name, sign)
		f := &knownFinding{extra: []ObjectRef{pc.e.ref("Service", p.svc.Name)}}
		if src := pc.findValue(ctx, d, p.svc.Name); src != nil {
			f.culprit, f.key = src.ref, src.key
			says += fmt.Sprintf(" in %s", src.where)
		} else {
			f.culprit, f.key = pc.e.workloadOf(ctx, pc.pod), "address"
		}
		if prim := pc.primaryBeside(ctx, k, p.svc.Name); prim != "" {
			says += fmt.Sprintf("; the writer is Service %s", prim)
		}
		f.says = []string{says}
		return f
	}
	if len(provs) > 0 {
		return nil // it calls a Service that does not look like a replica: not an address fault
	}
	src := pc.secretSource(ctx, d)
	if src == nil {
		return nil
	}
	svcs, err := listOnce[*corev1.Service](ctx, pc.e, "Service", maxServiceList)
	if err != nil {
		return nil
	}
	var reps []string
	var extra []ObjectRef
	for _, s := range svcs {
		if len(reps) >= 3 {
			break
		}
		if sign := pc.replicaSign(ctx, k, s); sign != "" {
			r := fmt.Sprintf("Service %s (%s)", s.Name, sign)
			if prim := pc.primaryBeside(ctx, k, s.Name); prim != "" {
				r += fmt.Sprintf(", whose writer is Service %s", prim)
			}
			reps = append(reps, r)
			extra = append(extra, pc.e.ref("Service", s.Name))
		}
	}
	if len(reps) == 0 {
		return nil
	}
	return &knownFinding{culprit: src.ref, key: src.key, extra: extra, conf: 72,
		says: []string{fmt.Sprintf("the address comes from %s, and the namespace's read replica is %s: the setting most likely names the replica", src.where, strings.Join(reps, "; "))}}
}

// primaryBeside names the Service that is the writer next to replica Service name: the same
// name without its replica words, or one with a primary word and the same stem.
func (pc *podCheck) primaryBeside(ctx context.Context, k *knownError, name string) string {
	var stem []string
	for _, w := range nameWords(name) {
		if !replicaWords[w] {
			stem = append(stem, w)
		}
	}
	base := strings.Join(stem, "-")
	if base == "" {
		return ""
	}
	svcs, err := listOnce[*corev1.Service](ctx, pc.e, "Service", maxServiceList)
	if err != nil {
		return ""
	}
	for _, s := range svcs {
		if s.Name == base && pc.replicaSign(ctx, k, s) == "" {
			return s.Name
		}
	}
	for _, s := range svcs {
		if s.Name != name && strings.HasPrefix(s.Name, base) && hasWord(s.Name, primaryWords) {
			return s.Name
		}
	}
	return ""
}

// selectorSpansReplicas blames a writer's Service whose selector also picks the replicas:
// the pods it selects belong to two or more workloads, one named as a replica, so a share of
// the connections (and of the writes) lands on a read-only copy. Its selector lacks the label
// that tells them apart (a role or component).
func (pc *podCheck) selectorSpansReplicas(ctx context.Context, svc *corev1.Service) *knownFinding {
	if len(svc.Spec.Selector) == 0 || hasWord(svc.Name, replicaWords) {
		return nil
	}
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	pods, _, err := listAs[*corev1.Pod](ctx, pc.e, "Pod", tools.ListOptions{LabelSelector: sel.String(), Max: 100})
	if err != nil {
		return nil
	}
	var wls []ObjectRef
	replica := ""
	for _, p := range pods {
		wl := pc.e.workloadOf(ctx, p)
		if containsRef(wls, wl) {
			continue
		}
		wls = append(wls, wl)
		if replica == "" && hasWord(wl.Name, replicaWords) {
			replica = wl.Kind + " " + wl.Name
		}
	}
	if len(wls) < 2 || replica == "" {
		return nil
	}
	names := make([]string, 0, len(wls))
	for _, w := range wls {
		names = append(names, w.Kind+" "+w.Name)
	}
	sref := pc.e.ref("Service", svc.Name)
	return &knownFinding{culprit: sref, key: "selector", extra: append([]ObjectRef{sref}, wls...),
		says: []string{fmt.Sprintf("the client calls Service %s, whose selector %s selects the pods of %s: it also selects the read replicas of %s, so part of the writes land on a read-only copy; add the label that tells the writer apart (a role or component) to the selector",
			svc.Name, labels.Set(svc.Spec.Selector).String(), strings.Join(names, " and "), replica)}}
}
