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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
	"github.com/kubage/kubage/test/vocabulary"
)

// The scheduler's message is followed clause by clause to the object a user changes. Each
// fact is tried on two clusters spelt differently, and on one where it must stay silent.

// sizedNode is a node of a pool, labelled key=value, with the given allocatable.
func sizedNode(name, key, value string, alloc corev1.ResourceList) *corev1.Node {
	n := fx.Node(name)
	n.Labels[key] = value
	for r, q := range alloc {
		n.Status.Allocatable[r] = q
		n.Status.Capacity[r] = q
	}
	return n
}

func rl(kv ...string) corev1.ResourceList {
	l := corev1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		l[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return l
}

// askAbout asks about the pending workload.
func askAbout(name, problem string) agent.Session {
	return agent.Session{ID: "t", Problem: problem, Namespace: ns, Target: &agent.Target{Kind: "Deployment", Name: name}}
}

func wantIn(t *testing.T, rc agent.RootCause, words ...string) {
	t.Helper()
	summary := rc.Summary
	t.Log(summary)
	for _, g := range vocabulary.Gaps(rc) {
		t.Errorf("%s: the summary does not name %s", rc.Rule, g)
	}
	for _, w := range words {
		if !strings.Contains(summary, w) {
			t.Errorf("summary lacks %q: %s", w, summary)
		}
	}
}

func TestSchedPreemptionNever(t *testing.T) {
	type sp struct {
		app, batch, class, poolKey, pool, res, alloc, batchReq, appReq string
	}
	for _, c := range []sp{
		{"checkout", "recs-batch", "checkout-critical", "pool", "shop", "cpu", "4", "3600m", "1"},
		{"ledger-api", "nightly-etl", "tier-zero", "nodegroup.example/name", "core", "memory", "16Gi", "14Gi", "4Gi"},
	} {
		build := func(never bool) []runtime.Object {
			objs := []runtime.Object{sizedNode(c.pool+"-1", c.poolKey, c.pool, rl(c.res, c.alloc))}
			pin := func(s *corev1.PodSpec, req string) {
				s.NodeSelector = map[string]string{c.poolKey: c.pool}
				s.Containers[0].Resources.Requests = rl(c.res, req)
			}
			objs = append(objs, labelledApp(c.batch, "app", 1, func(s *corev1.PodSpec) { pin(s, c.batchReq) }, func(p *corev1.Pod) {
				p.Spec.NodeName = c.pool + "-1"
				p.Spec.Priority = fx.Ptr(int32(0))
			})...)
			msg := fmt.Sprintf("0/1 nodes are available: 1 Insufficient %s. preemption: not eligible due to preemptionPolicy=Never.", c.res)
			policy := corev1.PreemptNever
			if !never {
				policy = corev1.PreemptLowerPriority
				msg = fmt.Sprintf("0/1 nodes are available: 1 Insufficient %s. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.", c.res)
			}
			objs = append(objs, labelledApp(c.app, "app", 1, func(s *corev1.PodSpec) {
				pin(s, c.appReq)
				s.PriorityClassName = c.class
				s.Priority = fx.Ptr(int32(1000000))
				s.PreemptionPolicy = &policy
			}, func(p *corev1.Pod) { fx.Unschedulable(p, msg) })...)
			return objs
		}
		s := askAbout(c.app, c.app+" pods stay Pending although it has the highest priority")
		t.Run(c.app, func(t *testing.T) {
			cl := rootUnderShuffles(t, build(true), logBook{}, s, "unschedulable-preemption-never on PriorityClass/"+c.class)
			wantIn(t, cl.RootCause, "preemptionPolicy", c.batch, c.batchReq)
		})
		t.Run(c.app+"/may preempt", func(t *testing.T) {
			cl := drive(t, newEngine(build(false)), s)
			if cl.RootCause.Rule == "unschedulable-preemption-never" {
				t.Fatalf("blamed preemption for a pod that may preempt: %s", cl.RootCause.Summary)
			}
		})
	}
}

func newEngine(objs []runtime.Object) *agent.RuleEngine {
	return engineWith(objs, logBook{})
}

func engineWith(objs []runtime.Object, logs logBook) *agent.RuleEngine {
	e := agent.NewRuleEngine(fake.NewClientset(objs...))
	e.Now = func() time.Time { return fx.Now }
	e.Logs = logs.source()
	return e
}

func TestSchedVolumeNodeAffinity(t *testing.T) {
	type sp struct {
		db, filler, class, pv, claim, key, fullNode, emptyNode, res, alloc, fillReq, dbReq, clause string
	}
	for _, c := range []sp{
		{"quotes-db", "risk-batch", "local-nvme", "nvme-pv-1", "data-quotes-db", "kubernetes.io/hostname", "nvme-1", "nvme-2", "cpu", "8", "7", "2", "1 node(s) didn't match PersistentVolume's node affinity"},
		{"orders-pg", "spark-exec", "fast-local", "ssd-vol-a", "pgdata", "topology.local.example/disk-host", "ssd-a", "ssd-b", "memory", "32Gi", "30Gi", "8Gi", "1 node(s) had volume node affinity conflict"},
	} {
		build := func(mode storagev1.VolumeBindingMode, pinned bool) []runtime.Object {
			a := sizedNode(c.fullNode, "disk", "local", rl(c.res, c.alloc))
			b := sizedNode(c.emptyNode, "disk", "local", rl(c.res, c.alloc))
			a.Labels[c.key], b.Labels[c.key] = c.fullNode, c.emptyNode
			pv := &corev1.PersistentVolume{
				TypeMeta:   metav1.TypeMeta{Kind: "PersistentVolume", APIVersion: "v1"},
				ObjectMeta: metav1.ObjectMeta{Name: c.pv, UID: fx.UID("PersistentVolume", c.pv)},
				Spec: corev1.PersistentVolumeSpec{
					StorageClassName: c.class, Capacity: rl("storage", "100Gi"),
					AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					PersistentVolumeSource: corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: "/mnt/disks/1"}},
					ClaimRef:               &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: ns, Name: c.claim},
				},
				Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound},
			}
			if pinned {
				pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: c.key, Operator: corev1.NodeSelectorOpIn, Values: []string{c.fullNode}}}}}}}
			}
			pvc := fx.PVC(ns, c.claim, fx.Ptr(c.class), corev1.ClaimBound)
			pvc.Spec.VolumeName = c.pv
			objs := []runtime.Object{a, b, pv, pvc, fx.StorageClass(c.class, "kubernetes.io/no-provisioner", false, mode)}
			objs = append(objs, labelledApp(c.filler, "app", 1, func(s *corev1.PodSpec) {
				s.NodeSelector = map[string]string{"disk": "local"}
				s.Containers[0].Resources.Requests = rl(c.res, c.fillReq)
			}, func(p *corev1.Pod) { p.Spec.NodeName = c.fullNode })...)
			msg := fmt.Sprintf("0/2 nodes are available: 1 Insufficient %s, %s. preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.", c.res, c.clause)
			if !pinned {
				msg = fmt.Sprintf("0/2 nodes are available: 2 Insufficient %s.", c.res)
			}
			objs = append(objs, labelledApp(c.db, "app.kubernetes.io/name", 1, func(s *corev1.PodSpec) {
				s.NodeSelector = map[string]string{"disk": "local"}
				s.Containers[0].Resources.Requests = rl(c.res, c.dbReq)
				s.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: c.claim}}}}
			}, func(p *corev1.Pod) { fx.Unschedulable(p, msg) })...)
			return objs
		}
		s := askAbout(c.db, c.db+" never starts although one of the two nodes is empty")
		t.Run(c.db+"/immediate", func(t *testing.T) {
			cl := rootUnderShuffles(t, build(storagev1.VolumeBindingImmediate, true), logBook{}, s, "unschedulable-volume-node-affinity on StorageClass/"+c.class)
			wantIn(t, cl.RootCause, "Immediate", "node affinity", c.pv, c.fullNode, "WaitForFirstConsumer")
			if !refsHave(cl.RootCause.AffectedObjects, "PersistentVolume/"+c.pv) {
				t.Errorf("the volume is not among the affected objects: %v", cl.RootCause.AffectedObjects)
			}
		})
		t.Run(c.db+"/late binding: the volume", func(t *testing.T) {
			rootUnderShuffles(t, build(storagev1.VolumeBindingWaitForFirstConsumer, true), logBook{}, s, "unschedulable-volume-node-affinity on PersistentVolume/"+c.pv)
		})
		t.Run(c.db+"/volume not pinned", func(t *testing.T) {
			cl := drive(t, newEngine(build(storagev1.VolumeBindingImmediate, false)), s)
			if cl.RootCause.Rule == "unschedulable-volume-node-affinity" {
				t.Fatalf("blamed a volume without node affinity: %s", cl.RootCause.Summary)
			}
		})
	}
}

func refsHave(refs []agent.ObjectRef, kindName string) bool {
	for _, r := range refs {
		if r.Kind+"/"+r.Name == kindName {
			return true
		}
	}
	return false
}

// nsDaemonSet is a DaemonSet of the namespace with one pod per named node.
func nsDaemonSet(name, image string, args []string, nodes []string, pod func(*corev1.Pod)) []runtime.Object {
	lbl := map[string]string{"name": name}
	ds := &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{Kind: "DaemonSet", APIVersion: "apps/v1"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: fx.UID("DaemonSet", ns+"/"+name), Generation: 1, CreationTimestamp: fx.Ago(0)},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: lbl}, Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: lbl},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{fx.Container(name, image)}},
		}},
		Status: appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: int32(len(nodes)), CurrentNumberScheduled: int32(len(nodes)), NumberReady: int32(len(nodes))},
	}
	ds.Spec.Template.Spec.Containers[0].Args = args
	objs := []runtime.Object{ds}
	for i, n := range nodes {
		spec := ds.Spec.Template.Spec
		spec.NodeName = n
		p := fx.Pod(ns, fmt.Sprintf("%s-%c%c%c%c%d", name, 'q', 'x', 'z', 'k', i), lbl, spec, ds, "DaemonSet")
		if pod != nil {
			pod(p)
		}
		objs = append(objs, p)
	}
	return objs
}

func TestSchedDevicePlugin(t *testing.T) {
	type sp struct {
		app, resource, ds, image, log string
		args                          []string
		crash                         bool
	}
	for _, c := range []sp{
		{"llm-inference", "nvidia.com/gpu", "nvidia-device-plugin", "nvcr.io/nvidia/k8s-device-plugin:v0.14.1", "Incompatible platform detected\nNo devices found. Waiting indefinitely.\n", nil, false},
		{"video-encode", "example.com/fpga", "accel-agent", "registry.example/accel-agent:2", "E0101 registering example.com/fpga with kubelet failed: socket missing\n", []string{"--resource-name=example.com/fpga"}, true},
	} {
		build := func(advertised bool) []runtime.Object {
			n1 := sizedNode("accel-1", "accel", "yes", nil)
			n2 := sizedNode("accel-2", "accel", "yes", nil)
			if advertised {
				n1.Status.Allocatable[corev1.ResourceName(c.resource)] = resource.MustParse("1")
			}
			objs := []runtime.Object{n1, n2}
			objs = append(objs, nsDaemonSet(c.ds, c.image, c.args, []string{"accel-1", "accel-2"}, func(p *corev1.Pod) {
				if c.crash {
					fx.CrashLoop(p, 1, "Error", 7)
					p.Status.ContainerStatuses[0].LastTerminationState.Terminated.Message = "kubelet device plugin socket not found"
				}
			})...)
			if advertised {
				objs = append(objs, labelledApp("holder", "app", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Resources.Requests = rl(c.resource, "1")
				}, func(p *corev1.Pod) { p.Spec.NodeName = "accel-1" })...)
			}
			objs = append(objs, labelledApp(c.app, "app", 1, func(s *corev1.PodSpec) {
				s.NodeSelector = map[string]string{"accel": "yes"}
				s.Containers[0].Resources.Requests = rl(c.resource, "1")
				s.Containers[0].Resources.Limits = rl(c.resource, "1")
			}, func(p *corev1.Pod) {
				fx.Unschedulable(p, fmt.Sprintf("0/2 nodes are available: 2 Insufficient %s. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.", c.resource))
			})...)
			return objs
		}
		s := askAbout(c.app, c.app+" has had no running pod since the node group was rebuilt")
		logs := logBook{c.ds: c.log}
		t.Run(c.app, func(t *testing.T) {
			cl := rootUnderShuffles(t, build(false), logs, s, "unschedulable-device-plugin on DaemonSet/"+c.ds)
			wantIn(t, cl.RootCause, c.resource, c.ds)
			if c.crash {
				wantIn(t, cl.RootCause, "socket not found")
			} else {
				wantIn(t, cl.RootCause, "No devices found")
			}
		})
		t.Run(c.app+"/a node advertises it", func(t *testing.T) {
			cl := drive(t, engineWith(build(true), logs), s)
			if cl.RootCause.Rule == "unschedulable-device-plugin" {
				t.Fatalf("blamed the device plugin although a node advertises the resource: %s", cl.RootCause.Summary)
			}
		})
	}
}

func TestSchedInitContainerRequest(t *testing.T) {
	type sp struct {
		app, init, res, appReq, initReq string
		sidecar                         bool
	}
	for _, c := range []sp{
		{"vector-tiles", "warm-tile-cache", "memory", "1Gi", "24Gi", false},
		{"geo-coder", "index-builder", "cpu", "500m", "12", true},
	} {
		build := func(initReq string) []runtime.Object {
			objs := []runtime.Object{sizedNode("tiles-1", "role", "web", nil), sizedNode("tiles-2", "role", "web", nil)}
			objs = append(objs, labelledApp(c.app, "app", 1, func(s *corev1.PodSpec) {
				s.Containers[0].Resources.Requests = rl(c.res, c.appReq)
				init := fx.Container(c.init, "registry.example/"+c.init+":1")
				init.Resources.Requests = rl(c.res, initReq)
				s.InitContainers = []corev1.Container{init}
				if c.sidecar {
					side := fx.Container("proxy", "registry.example/proxy:1")
					side.RestartPolicy = fx.Ptr(corev1.ContainerRestartPolicyAlways)
					side.Resources.Requests = rl(c.res, c.appReq)
					s.InitContainers = append([]corev1.Container{side}, s.InitContainers...)
				}
			}, func(p *corev1.Pod) {
				fx.Unschedulable(p, fmt.Sprintf("0/2 nodes are available: 2 Insufficient %s. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.", c.res))
			})...)
			return objs
		}
		s := askAbout(c.app, "the "+c.app+" rollout is stuck with one new pod Pending")
		t.Run(c.app, func(t *testing.T) {
			cl := rootUnderShuffles(t, build(c.initReq), logBook{}, s, "unschedulable-insufficient-resources on Deployment/"+c.app)
			wantIn(t, cl.RootCause, "init container "+c.init, c.initReq)
		})
		t.Run(c.app+"/app containers drive it", func(t *testing.T) {
			cl := rootUnderShuffles(t, build(c.appReq), logBook{}, s, "unschedulable-insufficient-resources on Deployment/"+c.app)
			if strings.Contains(cl.RootCause.Summary, "init container "+c.init) {
				t.Errorf("named an init container that does not set the request: %s", cl.RootCause.Summary)
			}
		})
	}
}

func TestSchedTopologySpread(t *testing.T) {
	type sp struct {
		app, key, taintKey string
		domains            [3]string
	}
	for _, c := range []sp{
		{"ledger-api", "topology.kubernetes.io/zone", "ml", [3]string{"zone-a", "zone-b", "zone-c"}},
		{"search-front", "rack.example.org/id", "dedicated", [3]string{"r1", "r2", "r3"}},
	} {
		build := func(honor, spreadClause bool) []runtime.Object {
			var objs []runtime.Object
			for i, d := range c.domains {
				n := sizedNode(fmt.Sprintf("node-%s", d), c.key, d, nil)
				if i == 2 {
					n.Spec.Taints = []corev1.Taint{{Key: c.taintKey, Value: "true", Effect: corev1.TaintEffectNoSchedule}}
				}
				objs = append(objs, n)
			}
			lbl := map[string]string{"app": c.app}
			spread := corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: c.key, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: lbl}}
			if honor {
				spread.NodeTaintsPolicy = fx.Ptr(corev1.NodeInclusionPolicyHonor)
			}
			msg := fmt.Sprintf("0/3 nodes are available: 2 node(s) didn't match pod topology spread constraints, 1 node(s) had untolerated taint {%s: true}. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.", c.taintKey)
			if !spreadClause {
				msg = fmt.Sprintf("0/3 nodes are available: 2 Insufficient cpu, 1 node(s) had untolerated taint {%s: true}.", c.taintKey)
			}
			i := 0
			objs = append(objs, labelledApp(c.app, "app", 3, func(s *corev1.PodSpec) {
				s.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{spread}
				if !spreadClause {
					s.Containers[0].Resources.Requests = rl("cpu", "6")
				}
			}, func(p *corev1.Pod) {
				if i < 2 {
					p.Spec.NodeName = "node-" + c.domains[i]
				} else {
					fx.Unschedulable(p, msg)
				}
				i++
			})...)
			return objs
		}
		s := askAbout(c.app, c.app+" runs fewer replicas than asked; the rest stay Pending although the nodes are nearly empty")
		t.Run(c.app, func(t *testing.T) {
			cl := rootUnderShuffles(t, build(false, true), logBook{}, s, "unschedulable-topology-spread on Deployment/"+c.app)
			wantIn(t, cl.RootCause, "topology spread", "taint", c.domains[2], "nodeTaintsPolicy")
		})
		t.Run(c.app+"/no spread clause", func(t *testing.T) {
			cl := drive(t, newEngine(build(false, false)), s)
			if cl.RootCause.Rule == "unschedulable-topology-spread" {
				t.Fatalf("blamed the spread constraint for a pod short of cpu: %s", cl.RootCause.Summary)
			}
		})
	}
}

func TestSchedHostPort(t *testing.T) {
	type sp struct {
		app, holder string
		port        int32
		own         bool
	}
	for _, c := range []sp{
		{"metrics-proxy", "node-exporter", 9100, false},
		{"ingress-edge", "ingress-edge", 8443, true},
	} {
		build := func(held bool) []runtime.Object {
			objs := []runtime.Object{sizedNode("edge-1", "tier", "edge", nil), sizedNode("edge-2", "tier", "edge", nil)}
			port := func(s *corev1.PodSpec) {
				s.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: c.port, HostPort: c.port}}
			}
			msg := "0/2 nodes are available: 2 node(s) didn't have free ports for the requested pod ports. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."
			if c.own {
				i := 0
				objs = append(objs, labelledApp(c.app, "app", 3, port, func(p *corev1.Pod) {
					if i < 2 && held {
						p.Spec.NodeName = fmt.Sprintf("edge-%d", i+1)
					} else if i == 2 {
						fx.Unschedulable(p, msg)
					} else {
						p.Spec.NodeName = ""
						p.Status.Phase = corev1.PodPending
					}
					i++
				})...)
				return objs
			}
			if held {
				objs = append(objs, nsDaemonSet(c.holder, "registry.example/"+c.holder+":1", nil, []string{"edge-1", "edge-2"}, func(p *corev1.Pod) {
					p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: c.port, HostPort: c.port}}
				})...)
			}
			objs = append(objs, labelledApp(c.app, "app", 1, port, func(p *corev1.Pod) { fx.Unschedulable(p, msg) })...)
			return objs
		}
		s := askAbout(c.app, c.app+" pods stay Pending")
		want := "DaemonSet/" + c.holder
		if c.own {
			want = "Deployment/" + c.app
		}
		t.Run(c.app, func(t *testing.T) {
			cl := rootUnderShuffles(t, build(true), logBook{}, s, "unschedulable-host-port on "+want)
			wantIn(t, cl.RootCause, fmt.Sprint(c.port), "hostPort")
		})
		t.Run(c.app+"/holders out of sight", func(t *testing.T) {
			cl := drive(t, newEngine(build(false)), s)
			if cl.RootCause.Rule == "unschedulable-host-port" {
				t.Fatalf("named host-port holders it cannot see: %s", cl.RootCause.Summary)
			}
		})
	}
}

// A pod of one pool whose claim finds no volume is not explained by the taints of the other
// teams' pools, which the scheduler counts in the same message.
func TestSchedVolumeClauseOverOtherPools(t *testing.T) {
	for _, c := range []struct{ app, claim, class, poolKey, taintKey string }{
		{"reports-db", "pgdata-reports-db", "local-ssd", "pool", "dedicated"},
		{"search-index", "index-data", "fast-disk", "nodegroup.example/name", "team"},
	} {
		objs := []runtime.Object{sizedNode("own-1", c.poolKey, "own", nil)}
		for i := 0; i < 3; i++ {
			n := sizedNode(fmt.Sprintf("other-%d", i), c.poolKey, fmt.Sprintf("other-%d", i), nil)
			n.Spec.Taints = []corev1.Taint{{Key: c.taintKey, Value: fmt.Sprintf("team-%d", i), Effect: corev1.TaintEffectNoSchedule}}
			objs = append(objs, n)
		}
		objs = append(objs, fx.StorageClass(c.class, "kubernetes.io/no-provisioner", false, storagev1.VolumeBindingWaitForFirstConsumer),
			fx.PVC(ns, c.claim, fx.Ptr(c.class), corev1.ClaimPending))
		msg := fmt.Sprintf("0/4 nodes are available: 1 node(s) didn't find available persistent volumes to bind, 3 node(s) had untolerated taint {%s: team-0}. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.", c.taintKey)
		objs = append(objs, labelledApp(c.app, "app", 1, func(s *corev1.PodSpec) {
			s.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: c.claim}}}}
		}, func(p *corev1.Pod) { fx.Unschedulable(p, msg) })...)
		t.Run(c.app, func(t *testing.T) {
			cl := drive(t, newEngine(objs), askAbout(c.app, c.app+" never starts"))
			rc := cl.RootCause
			if strings.HasPrefix(rc.Rule, "unschedulable") || !strings.Contains(rc.Summary, c.claim) {
				t.Fatalf("got %s on %s, want the claim %s followed: %s", rc.Rule, rc.Culprit, c.claim, rc.Summary)
			}
			t.Log(rc.Rule, rc.Culprit, rc.Summary)
		})
	}
}
