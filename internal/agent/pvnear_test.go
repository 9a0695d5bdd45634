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
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// storageSpelling is one cluster's names for a workload waiting on a static volume.
type storageSpelling struct {
	app, claim, volume, class, label string
	// provisioner is the class's provisioner; "" means no StorageClass object carries the
	// class name (the docs' "manual").
	provisioner  string
	size, pvSize string
}

var storageSpellings = []storageSpelling{
	{app: "reports-db", claim: "reports-pgdata", volume: "pv-reports-01", class: "local-ssd", label: "app", provisioner: "kubernetes.io/no-provisioner", size: "20Gi", pvSize: "10Gi"},
	{app: "wiki-mysql", claim: "mysql-data", volume: "wiki-hostpath", class: "manual", label: "app.kubernetes.io/name", size: "30Gi", pvSize: "8Gi"},
	{app: "gitea", claim: "gitea-repos", volume: "nfs-export-7", class: "", label: "component", size: "500Gi", pvSize: "200Gi"},
}

// claimWorkload is the workload whose one pod waits on the claim, the claim, and the class.
func claimWorkload(s storageSpelling, claim func(*corev1.PersistentVolumeClaim)) []runtime.Object {
	o := labelledApp(s.app, s.label, 1, func(ps *corev1.PodSpec) {
		ps.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: s.claim}}}}
	}, func(p *corev1.Pod) {
		fx.Unschedulable(p, "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")
	})
	class := s.class
	pvc := fx.PVC(ns, s.claim, &class, corev1.ClaimPending, corev1.ReadWriteOnce)
	pvc.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse(s.size)
	if claim != nil {
		claim(pvc)
	}
	o = append(o, pvc, fx.Node("node-1"))
	if s.provisioner != "" {
		o = append(o, fx.StorageClass(s.class, s.provisioner, false, storagev1.VolumeBindingImmediate))
	}
	return o
}

func staticPV(s storageSpelling, size string, f func(*corev1.PersistentVolume)) *corev1.PersistentVolume {
	pv := &corev1.PersistentVolume{
		TypeMeta:   metav1.TypeMeta{Kind: "PersistentVolume", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: s.volume, UID: fx.UID("PersistentVolume", s.volume), CreationTimestamp: fx.Ago(30 * 24 * time.Hour)},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			StorageClassName:              s.class,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/mnt/" + s.volume}},
		},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeAvailable},
	}
	if f != nil {
		f(pv)
	}
	return pv
}

// A claim that stays Pending is explained by the volume that almost serves it: the volume is
// named, with the one point on which it misses, and the side to fix is the culprit.
func TestPendingClaimNearMissVolume(t *testing.T) {
	released := func(s storageSpelling) func(*corev1.PersistentVolume) {
		return func(pv *corev1.PersistentVolume) {
			pv.Spec.ClaimRef = &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: ns, Name: s.claim, UID: types.UID("0d6f1c2e-old-" + s.claim)}
			pv.Status.Phase = corev1.VolumeReleased
		}
	}
	cases := []struct {
		name    string
		objs    func(s storageSpelling) []runtime.Object
		rule    string
		culprit func(s storageSpelling) string
		terms   func(s storageSpelling) []string
	}{
		{name: "volume named in volumeName is Released, its claimRef holds the deleted claim",
			objs: func(s storageSpelling) []runtime.Object {
				o := claimWorkload(s, func(c *corev1.PersistentVolumeClaim) {
					c.Spec.VolumeName = s.volume
					c.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse(s.pvSize)
				})
				return append(o, staticPV(s, s.pvSize, released(s)))
			},
			rule: "pvc-no-matching-pv", culprit: func(s storageSpelling) string { return "PersistentVolume/" + s.volume },
			terms: func(s storageSpelling) []string { return []string{"Released", "claimRef", "Retain", s.volume} }},
		{name: "the only volume of the class is Released, the claim names none",
			objs: func(s storageSpelling) []runtime.Object {
				o := claimWorkload(s, func(c *corev1.PersistentVolumeClaim) {
					c.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse(s.pvSize)
				})
				return append(o, staticPV(s, s.pvSize, released(s)))
			},
			rule: "pvc-no-matching-pv", culprit: func(s storageSpelling) string { return "PersistentVolume/" + s.volume },
			terms: func(s storageSpelling) []string { return []string{"Released", s.volume} }},
		{name: "the only volume of the class is Failed: deleting it under a Delete policy failed",
			objs: func(s storageSpelling) []runtime.Object {
				o := claimWorkload(s, func(c *corev1.PersistentVolumeClaim) {
					c.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse(s.pvSize)
				})
				return append(o, staticPV(s, s.pvSize, func(pv *corev1.PersistentVolume) {
					released(s)(pv)
					pv.Spec.PersistentVolumeReclaimPolicy = corev1.PersistentVolumeReclaimDelete
					pv.Status.Phase, pv.Status.Reason, pv.Status.Message = corev1.VolumeFailed, "VolumeFailedDelete", "host_path deleter only supports /tmp/.+ but received provided /mnt/disks/ssd0"
				}))
			},
			rule: "pvc-no-matching-pv", culprit: func(s storageSpelling) string { return "PersistentVolume/" + s.volume },
			terms: func(s storageSpelling) []string {
				return []string{"Failed", "reclaim", "Delete", "VolumeFailedDelete", s.volume}
			}},
		{name: "the volume of the class is smaller; another, first by name, is reserved for a claim of another namespace",
			objs: func(s storageSpelling) []runtime.Object {
				other := staticPV(s, s.size, func(pv *corev1.PersistentVolume) {
					pv.Name = "a-" + s.volume + "-other"
					pv.Spec.ClaimRef = &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: "kafka", Name: "data-kafka-1"}
				})
				return append(claimWorkload(s, nil), staticPV(s, s.pvSize, nil), other)
			},
			rule: "pvc-no-matching-pv", culprit: func(s storageSpelling) string { return "PersistentVolumeClaim/" + s.claim },
			terms: func(s storageSpelling) []string { return []string{s.pvSize, s.size, s.volume} }},
		{name: "the volume of the class is smaller than the request",
			objs: func(s storageSpelling) []runtime.Object {
				return append(claimWorkload(s, nil), staticPV(s, s.pvSize, nil))
			},
			rule: "pvc-no-matching-pv", culprit: func(s storageSpelling) string { return "PersistentVolumeClaim/" + s.claim },
			terms: func(s storageSpelling) []string { return []string{s.pvSize, s.size, s.volume} }},
		{name: "the volume of the class offers another access mode",
			objs: func(s storageSpelling) []runtime.Object {
				o := claimWorkload(s, func(c *corev1.PersistentVolumeClaim) {
					c.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}
				})
				return append(o, staticPV(s, s.size, nil))
			},
			rule: "pvc-access-mode-unsupported", culprit: func(s storageSpelling) string { return "PersistentVolumeClaim/" + s.claim },
			terms: func(s storageSpelling) []string { return []string{"ReadWriteMany", s.volume} }},
		{name: "the volume of the class is a raw block device",
			objs: func(s storageSpelling) []runtime.Object {
				return append(claimWorkload(s, nil), staticPV(s, s.size, func(pv *corev1.PersistentVolume) {
					pv.Spec.VolumeMode = fx.Ptr(corev1.PersistentVolumeBlock)
				}))
			},
			rule: "pvc-no-matching-pv", culprit: func(s storageSpelling) string { return "PersistentVolumeClaim/" + s.claim },
			terms: func(s storageSpelling) []string { return []string{"volumeMode", "Block", s.volume} }},
	}
	for _, s := range storageSpellings {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s/%s", s.app, tc.name), func(t *testing.T) {
				e := agent.NewRuleEngine(fake.NewClientset(tc.objs(s)...))
				e.Now = func() time.Time { return fx.Now }
				c := drive(t, e, agent.Session{ID: "t", Problem: s.app + " is Pending", Namespace: ns, Target: &agent.Target{Kind: "Deployment", Name: s.app}})
				rc := c.RootCause
				t.Logf("%s: %s", rc.Rule, rc.Summary)
				if got := rc.Culprit.Kind + "/" + rc.Culprit.Name; rc.Rule != tc.rule || got != tc.culprit(s) {
					t.Fatalf("got %s on %s, want %s on %s", rc.Rule, got, tc.rule, tc.culprit(s))
				}
				for _, term := range tc.terms(s) {
					if !strings.Contains(rc.Summary, term) {
						t.Errorf("summary lacks %q", term)
					}
				}
				named := map[string]bool{}
				for _, r := range rc.AffectedObjects {
					named[r.Kind+"/"+r.Name] = true
				}
				if !named["PersistentVolume/"+s.volume] || !named["PersistentVolumeClaim/"+s.claim] {
					t.Errorf("affected objects %v lack the volume or the claim", rc.AffectedObjects)
				}
			})
		}
	}
}

// Block volumes for Filesystem claims, made by a static provisioner whose ConfigMap sets
// volumeMode Block for the class: that ConfigMap is where the mode is changed, not the claim.
func TestVolumeModeSetByTheProvisionersConfig(t *testing.T) {
	s := storageSpellings[0]
	objs := func(mode string) []runtime.Object {
		o := append(claimWorkload(s, nil), staticPV(s, s.size, func(pv *corev1.PersistentVolume) {
			pv.Spec.VolumeMode = fx.Ptr(corev1.PersistentVolumeBlock)
		}))
		cm := fx.ConfigMap(ns, "local-provisioner-config")
		cm.Data["storageClassMap"] = s.class + ":\n  hostDir: /mnt/fast-disks\n  mountDir: /mnt/fast-disks\n  volumeMode: " + mode + "\n"
		return append(o, cm)
	}
	for mode, want := range map[string]string{"Block": "ConfigMap/local-provisioner-config", "Filesystem": "PersistentVolumeClaim/" + s.claim} {
		e := agent.NewRuleEngine(fake.NewClientset(objs(mode)...))
		e.Now = func() time.Time { return fx.Now }
		rc := drive(t, e, agent.Session{ID: "t", Problem: s.app + " is Pending", Namespace: ns, Target: &agent.Target{Kind: "Deployment", Name: s.app}}).RootCause
		if got := rc.Culprit.Kind + "/" + rc.Culprit.Name; got != want {
			t.Errorf("provisioner volumeMode %s: culprit %s, want %s: %s", mode, got, want, rc.Summary)
		}
		if mode == "Block" && !strings.Contains(rc.Summary, "volumeMode: Block") {
			t.Errorf("summary does not say the provisioner's setting: %s", rc.Summary)
		}
	}
}
