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
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// A toleration of a NoExecute taint with tolerationSeconds does not keep a pod on the node:
// it delays its eviction. The taint eviction controller deletes the pod that many seconds
// after the taint and the pod meet (TaintManagerEviction, "Marking for deletion"), its
// controller creates another on the same node, and the workload churns forever while each
// pod looks healthy. tolerationExpires names the toleration, the taint and the node.

// tolerationExpires reports a pod on a node whose NoExecute taint it tolerates for a time only.
func (pc *podCheck) tolerationExpires(ctx context.Context) bool {
	p := pc.pod
	if p.Spec.NodeName == "" {
		return false
	}
	var timed []corev1.Toleration
	for _, t := range p.Spec.Tolerations {
		// The not-ready and unreachable tolerations admission adds to every pod are about
		// a failing node, which the node checks report.
		if t.TolerationSeconds != nil && (t.Effect == corev1.TaintEffectNoExecute || t.Effect == "") &&
			t.Key != corev1.TaintNodeNotReady && t.Key != corev1.TaintNodeUnreachable {
			timed = append(timed, t)
		}
	}
	if len(timed) == 0 {
		return false
	}
	n, err := getAs[*corev1.Node](ctx, pc.e, "Node", p.Spec.NodeName)
	if err != nil {
		return false
	}
	for i := range n.Spec.Taints {
		taint := n.Spec.Taints[i]
		if taint.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		for _, t := range timed {
			if !t.ToleratesTaint(klog.Background(), &taint, false) {
				continue
			}
			e := pc.e
			wl := e.workloadOf(ctx, p)
			secs := *t.TolerationSeconds
			ran := ""
			if !p.CreationTimestamp.IsZero() {
				ran = fmt.Sprintf(" (this one was created %s ago)", e.now.Sub(p.CreationTimestamp.Time).Round(time.Second))
			}
			nref := e.ref("Node", n.Name)
			ev := e.objEvidence(nref, fmt.Sprintf("Node %s taint %s", n.Name, taint.ToString()))
			summary := fmt.Sprintf("Pod %s of %s %s runs on node %s, which has the NoExecute taint %s; the pod tolerates it only for tolerationSeconds %d, so the taint eviction controller deletes it %d s after it lands there (TaintManagerEviction: Marking for deletion)%s, and %s %s replaces it on the same node: its pods never live longer than that. Drop tolerationSeconds from the toleration of %s to stay on the node, or keep the pods off the tainted node (nodeSelector or node affinity), or remove the taint.",
				p.Name, wl.Kind, wl.Name, n.Name, taint.ToString(), secs, secs, ran, wl.Kind, wl.Name, t.Key)
			pc.find(ctx, "toleration-seconds-evicts", "", summary, wl, []string{ev},
				map[string]string{"node": n.Name, "taint": taint.ToString(), "tolerationSeconds": fmt.Sprint(secs)})
			last := &e.res.Findings[len(e.res.Findings)-1]
			last.Affected = mergeRefs(last.Affected, []ObjectRef{nref})
			return true
		}
	}
	return false
}
