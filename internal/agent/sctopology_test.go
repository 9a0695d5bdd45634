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

package agent_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// allowedTopologies on a label no node carries (the removed failure-domain.beta zone label)
// keep a claim Pending; the label the nodes carry is named. A class whose terms a node meets
// is not blamed.
func TestStorageClassTopologyNoNodeMeets(t *testing.T) {
	objs := func(key string) []runtime.Object {
		sc := "ssd-zonal"
		class := fx.StorageClass(sc, "ebs.csi.aws.com", false, storagev1.VolumeBindingWaitForFirstConsumer)
		class.AllowedTopologies = []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{{Key: key, Values: []string{"us-east-1a", "us-east-1b"}}}}}
		n := fx.Node("node-1")
		n.Labels = map[string]string{corev1.LabelTopologyZone: "us-east-1a"}
		return []runtime.Object{fx.PVC(ns, "data-search-0", &sc, corev1.ClaimPending), class, n}
	}
	target := &agent.Target{Kind: "PersistentVolumeClaim", Name: "data-search-0"}
	e := engine(objs("failure-domain.beta.kubernetes.io/zone")...)
	rc := drive(t, e, agent.Session{ID: "t", Problem: "search never becomes ready", Namespace: ns, Target: target}).RootCause
	if rc.Rule != "storageclass-topology-unmatched" || rc.Culprit.Name != "ssd-zonal" {
		t.Fatalf("got %s on %s: %s", rc.Rule, rc.Culprit.Name, rc.Summary)
	}
	for _, w := range []string{"failure-domain.beta.kubernetes.io/zone in (us-east-1a, us-east-1b)", "topology.kubernetes.io/zone=us-east-1a"} {
		if !strings.Contains(rc.Summary, w) {
			t.Errorf("summary lacks %q: %s", w, rc.Summary)
		}
	}
	e = engine(objs(corev1.LabelTopologyZone)...)
	if rc := drive(t, e, agent.Session{ID: "t", Problem: "search never becomes ready", Namespace: ns, Target: target}).RootCause; rc.Rule == "storageclass-topology-unmatched" {
		t.Errorf("a class whose topology a node meets was blamed: %s", rc.Summary)
	}
}

// A pod that names its node keeps its WaitForFirstConsumer claim unbound; once the scheduler
// has picked a node for the claim (selected-node), the question is the provisioner's.
func TestNodeNameBypassesVolumeBinding(t *testing.T) {
	objs := func(selected bool) []runtime.Object {
		sc := "local-nvme"
		o := app("bazel-cache", 1, func(s *corev1.PodSpec) {
			s.Volumes = []corev1.Volume{{Name: "cache", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "cache"}}}}
		}, func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending })
		c := fx.PVC(ns, "cache", &sc, corev1.ClaimPending)
		if selected {
			c.Annotations = map[string]string{"volume.kubernetes.io/selected-node": "node-1"}
		}
		return append(o, c, fx.StorageClass(sc, "rancher.io/local-path", false, storagev1.VolumeBindingWaitForFirstConsumer), fx.Node("node-1"))
	}
	target := &agent.Target{Kind: "PersistentVolumeClaim", Name: "cache"}
	rc := drive(t, engine(objs(false)...), agent.Session{ID: "t", Problem: "the cache is stuck creating", Namespace: ns, Target: target}).RootCause
	if rc.Rule != "pvc-nodename-bypasses-scheduler" || rc.Culprit.Kind != "Deployment" || !strings.Contains(rc.Summary, "spec.nodeName node-1") {
		t.Fatalf("got %s on %s: %s", rc.Rule, rc.Culprit.Key(), rc.Summary)
	}
	if rc := drive(t, engine(objs(true)...), agent.Session{ID: "t", Problem: "the cache is stuck creating", Namespace: ns, Target: target}).RootCause; rc.Rule == "pvc-nodename-bypasses-scheduler" {
		t.Errorf("a claim the scheduler placed was blamed on nodeName: %s", rc.Summary)
	}
}
