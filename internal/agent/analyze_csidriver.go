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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubage/kubage/internal/tools"
)

// A CSI volume mounts only on a node where the driver's node plugin runs and has registered
// with the kubelet. "driver name X not found in the list of registered CSI drivers" means the
// plugin is not running on the pod's node: the DaemonSet that runs it (named for the driver
// in its name, image or arguments) schedules no pod there, because of its nodeSelector,
// affinity or missing tolerations.

var unregisteredDriver = regexp.MustCompile(`driver name ([a-z0-9][a-z0-9.-]{0,252}) not found in the list of registered CSI drivers`)

// driverFiller are the words every driver name and plugin shares.
var driverFiller = map[string]bool{"csi": true, "k8s": true, "io": true, "com": true, "driver": true, "x": true, "sigs": true, "storage": true, "plugin": true, "node": true}

// csiDriverAbsent reports the DaemonSet that should run the unregistered driver's node plugin
// on the pod's node but does not.
func (pc *podCheck) csiDriverAbsent(ctx context.Context, container, msg string, evIDs []string) bool {
	m := unregisteredDriver.FindStringSubmatch(msg)
	if m == nil {
		return false
	}
	driver := m[1]
	var want []string
	for _, w := range strings.FieldsFunc(driver, func(r rune) bool { return r == '.' || r == '-' }) {
		if !driverFiller[w] && len(w) >= 3 {
			want = append(want, w)
		}
	}
	dss, err := listOnce[*appsv1.DaemonSet](ctx, pc.e, "DaemonSet", scanMaxObjects)
	if err != nil || len(want) == 0 {
		return false
	}
	for _, ds := range dss {
		text := strings.ToLower(ds.Name)
		for _, c := range ds.Spec.Template.Spec.Containers {
			text += " " + strings.ToLower(c.Image+" "+strings.Join(commandLine(c), " "))
		}
		if !strings.Contains(text, driver) && !allWordsIn(want, text) {
			continue
		}
		ref := pc.e.ref("DaemonSet", ds.Name)
		why := fmt.Sprintf("it schedules %d pod(s)", ds.Status.DesiredNumberScheduled)
		if sel := ds.Spec.Template.Spec.NodeSelector; len(sel) > 0 {
			n := pc.nodesMatching(ctx, sel, pc.pod.Spec.NodeName)
			why += fmt.Sprintf(", and its nodeSelector %s matches %s", tools.LabelsString(sel), n)
		} else if ds.Spec.Template.Spec.Affinity != nil && ds.Spec.Template.Spec.Affinity.NodeAffinity != nil {
			why += ", and its node affinity decides where"
		}
		evIDs = append(evIDs, pc.e.objEvidence(ref, "DaemonSet "+ds.Name+": "+tools.Summarize(ds, pc.e.now).Status))
		pc.find(ctx, "volume-mount-failed", container, fmt.Sprintf("Pod %s is stuck creating containers: its CSI volume needs driver %s, which is not registered on node %s: DaemonSet %s runs that driver's node plugin, but %s, so no plugin runs on the pod's node. Make the DaemonSet's nodeSelector (or tolerations) cover the nodes that run such pods. Kubelet: %s",
			pc.pod.Name, driver, orDefault(pc.pod.Spec.NodeName, "(unscheduled)"), ds.Name, why, tools.Sanitize(msg, 200, true)),
			ref, evIDs, map[string]string{"message": tools.Sanitize(msg, 200, true), "driver": driver})
		return true
	}
	return false
}

func allWordsIn(words []string, text string) bool {
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// nodesMatching says how many of the cluster's nodes carry labels sel ("no node" when none)
// and whether podNode is one of them.
func (pc *podCheck) nodesMatching(ctx context.Context, sel map[string]string, podNode string) string {
	nodes, err := listOnce[*corev1.Node](ctx, pc.e, "Node", scanMaxObjects)
	if err != nil {
		return "nodes the session cannot list"
	}
	s := labels.SelectorFromSet(sel)
	n, mine := 0, false
	for _, node := range nodes {
		if s.Matches(labels.Set(node.Labels)) {
			n++
			mine = mine || node.Name == podNode
		}
	}
	switch {
	case n == 0:
		return fmt.Sprintf("no node (of %d)", len(nodes))
	case mine:
		return fmt.Sprintf("%d of %d node(s), the pod's among them (its tolerations or the node's taints keep it off)", n, len(nodes))
	}
	return fmt.Sprintf("%d of %d node(s), not the pod's node", n, len(nodes))
}
