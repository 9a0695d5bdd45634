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

package scenarios

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// The shared kwok nodes of a test cluster (hack/cluster.sh, testcluster's default of 3): every
// pod that is not pinned to a scenario's own node lands on them.
const (
	sharedNodes     = 3
	sharedNodeMilli = 4000              // allocatable cpu of one node, millicores
	sharedNodeMemMi = 15 * 1024         // allocatable memory of one node, MiB
	sharedBudget    = 2.0 / 3.0         // share of the shared nodes a whole corpus may request
	sharedNodeLabel = "kwok-standard-4" // node.kubernetes.io/instance-type of the shared nodes
)

// sharedNodeLabels are the labels a shared node carries (values vary per node where empty).
var sharedNodeLabels = map[string]string{
	"type": "kwok", "kubernetes.io/hostname": "", "topology.kubernetes.io/zone": "",
	"topology.kubernetes.io/region": "local", "node.kubernetes.io/instance-type": sharedNodeLabel,
	"kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
}

// TestCorpusFitsSharedNodes adds up the CPU and memory that every scenario's pods request on
// the shared kwok nodes when a whole corpus runs at once, and keeps it within a budget of
// those nodes' allocatable. Beyond it the pods created last (a rollout's new pod, the last
// replica of an OrderedReady StatefulSet, an HPA's scale-up) stay Pending on Insufficient cpu
// and their scenario's failure never shows: wave 9 took the corpus from 10 to over 18 CPU of
// 12, and two scenarios never showed theirs. A scenario whose pods must run with requests gets
// a node of its own (Env.ownNode, Env.pin).
//
// Only Setup is seen (pods a Wait step creates later are not), requests default the way
// admission does (limits, then a LimitRange's defaults); pods that fit no shared node, that
// select nodes the shared ones are not, that a LimitRange rejects, or that another scheduler
// owns are Pending by design and request nothing.
func TestCorpusFitsSharedNodes(t *testing.T) {
	type use struct {
		name      string
		milli     int64
		mi        int64
		pods      int64
		heldOut   bool
		templates []string
	}
	var uses []use
	var milli, mi int64
	for _, s := range All() {
		cs := setupFake(t, s)
		u := use{name: s.Name, heldOut: s.Split() == HeldOut}
		ctx := context.Background()
		lrs, _ := cs.CoreV1().LimitRanges(fakeNamespace).List(ctx, metav1.ListOptions{})
		add := func(kind, name string, spec corev1.PodSpec, n int64) {
			c, m, ok := sharedRequest(spec, lrs.Items)
			if !ok || n <= 0 || (c == 0 && m == 0) {
				return
			}
			u.milli += c * n
			u.mi += m * n
			u.pods += n
			u.templates = append(u.templates, fmt.Sprintf("%s/%s %dx(%dm,%dMi)", kind, name, n, c, m))
		}
		hpaMin := map[string]int64{}
		hpas, _ := cs.AutoscalingV2().HorizontalPodAutoscalers(fakeNamespace).List(ctx, metav1.ListOptions{})
		for _, h := range hpas.Items {
			if h.Spec.MinReplicas != nil {
				hpaMin[h.Spec.ScaleTargetRef.Kind+"/"+h.Spec.ScaleTargetRef.Name] = int64(*h.Spec.MinReplicas)
			}
		}
		replicas := func(kind, name string, r *int32) int64 {
			n := int64(1)
			if r != nil {
				n = int64(*r)
			}
			return max(n, hpaMin[kind+"/"+name])
		}
		ds, _ := cs.AppsV1().Deployments(fakeNamespace).List(ctx, metav1.ListOptions{})
		for _, d := range ds.Items {
			add("Deployment", d.Name, d.Spec.Template.Spec, replicas("Deployment", d.Name, d.Spec.Replicas))
		}
		ss, _ := cs.AppsV1().StatefulSets(fakeNamespace).List(ctx, metav1.ListOptions{})
		for _, d := range ss.Items {
			add("StatefulSet", d.Name, d.Spec.Template.Spec, replicas("StatefulSet", d.Name, d.Spec.Replicas))
		}
		dss, _ := cs.AppsV1().DaemonSets(fakeNamespace).List(ctx, metav1.ListOptions{})
		for _, d := range dss.Items {
			add("DaemonSet", d.Name, d.Spec.Template.Spec, sharedNodes)
		}
		js, _ := cs.BatchV1().Jobs(fakeNamespace).List(ctx, metav1.ListOptions{})
		for _, j := range js.Items {
			n := int64(1)
			if j.Spec.Parallelism != nil {
				n = int64(*j.Spec.Parallelism)
			}
			add("Job", j.Name, j.Spec.Template.Spec, n)
		}
		ps, _ := cs.CoreV1().Pods(fakeNamespace).List(ctx, metav1.ListOptions{})
		for _, p := range ps.Items {
			add("Pod", p.Name, p.Spec, 1)
		}
		milli += u.milli
		mi += u.mi
		if u.milli > 0 || u.mi > 0 {
			uses = append(uses, u)
		}
	}
	budgetMilli := int64(sharedBudget * sharedNodes * sharedNodeMilli)
	budgetMi := int64(sharedBudget * sharedNodes * sharedNodeMemMi)
	t.Logf("a whole corpus requests %dm cpu and %dMi memory of the shared nodes (budget %dm, %dMi)", milli, mi, budgetMilli, budgetMi)
	if milli <= budgetMilli && mi <= budgetMi {
		return
	}
	sort.Slice(uses, func(i, j int) bool { return uses[i].milli+uses[i].mi/4 > uses[j].milli+uses[j].mi/4 })
	var b strings.Builder
	for i, u := range uses {
		if i == 12 {
			break
		}
		fmt.Fprintf(&b, "\n  %s: %dm, %dMi (%s)", u.name, u.milli, u.mi, strings.Join(u.templates, ", "))
	}
	t.Errorf("a whole corpus requests %dm cpu and %dMi memory of the %d shared kwok nodes, over the budget of %dm and %dMi: "+
		"the pods created last would stay Pending. Give the heaviest scenarios a node of their own (Env.ownNode, Env.pin). Largest:%s",
		milli, mi, sharedNodes, budgetMilli, budgetMi, b.String())
}

// sharedRequest is what a pod of spec requests on a shared node (millicores, MiB), and false
// when it never lands on one.
func sharedRequest(spec corev1.PodSpec, lrs []corev1.LimitRange) (milli, mi int64, ok bool) {
	if spec.NodeName != "" || (spec.SchedulerName != "" && spec.SchedulerName != corev1.DefaultSchedulerName) {
		return 0, 0, false
	}
	for k, v := range spec.NodeSelector {
		want, known := sharedNodeLabels[k]
		if !known || (want != "" && want != v) {
			return 0, 0, false
		}
	}
	one := func(c corev1.Container) (int64, int64, bool) {
		var out [2]int64
		for i, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			q, found := effectiveRequest(c, r, lrs)
			if !found {
				continue
			}
			for _, lr := range lrs {
				for _, it := range lr.Spec.Limits {
					if m, has := it.Max[r]; it.Type == corev1.LimitTypeContainer && has && q.Cmp(m) > 0 {
						return 0, 0, false // admission rejects the pod
					}
				}
			}
			if r == corev1.ResourceCPU {
				out[i] = q.MilliValue()
			} else {
				out[i] = q.Value() >> 20
			}
		}
		return out[0], out[1], true
	}
	for _, c := range spec.Containers {
		c1, m1, fine := one(c)
		if !fine {
			return 0, 0, false
		}
		milli, mi = milli+c1, mi+m1
	}
	for _, c := range spec.InitContainers {
		c1, m1, fine := one(c)
		if !fine {
			return 0, 0, false
		}
		milli, mi = max(milli, c1), max(mi, m1)
	}
	if milli > sharedNodeMilli || mi > sharedNodeMemMi {
		return 0, 0, false // fits no node: Pending by design
	}
	return milli, mi, true
}

// effectiveRequest is a container's request of r after admission: its own, else its limit,
// else a LimitRange's defaultRequest, else its default (limit).
func effectiveRequest(c corev1.Container, r corev1.ResourceName, lrs []corev1.LimitRange) (resource.Quantity, bool) {
	if q, ok := c.Resources.Requests[r]; ok {
		return q, true
	}
	if q, ok := c.Resources.Limits[r]; ok {
		return q, true
	}
	for _, lr := range lrs {
		for _, it := range lr.Spec.Limits {
			if it.Type != corev1.LimitTypeContainer {
				continue
			}
			if q, ok := it.DefaultRequest[r]; ok {
				return q, true
			}
			if q, ok := it.Default[r]; ok {
				return q, true
			}
		}
	}
	return resource.Quantity{}, false
}

const fakeNamespace = "scn-test"

// setupDone holds each scenario's set-up fake clientset, so the corpus checks below share one
// Setup pass (about 30 s for the whole corpus on a loaded 2-core machine). They only read it.
var setupDone = map[string]*fake.Clientset{}

// setupFake runs a scenario's Setup against a fake clientset (once per scenario) and returns it.
func setupFake(t *testing.T, s *Scenario) *fake.Clientset {
	t.Helper()
	if cs, ok := setupDone[s.Name]; ok {
		return cs
	}
	cs := fake.NewClientset()
	defer func() { setupDone[s.Name] = cs }()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	bg, stop := context.WithCancel(context.Background())
	e := &Env{Client: cs, Namespace: fakeNamespace, State: map[string]string{}, sims: map[string]*SimNode{}, bg: bg, stopBg: stop}
	if err := s.Setup(ctx, e); err != nil && ctx.Err() == nil {
		t.Errorf("%s: setup: %v", s.Name, err)
	}
	// Stop the scenario's simulated kubelets; its objects stay in the fake clientset.
	stop()
	return cs
}

// TestCorpusVolumesStayInTheirScenario checks that every PersistentVolume a scenario creates
// can bind only the scenario's own claims: PersistentVolumes are cluster-wide, and an Available
// volume of a class another scenario's claim asks for binds that claim (wave 9's class-""
// volume bound no-default-storageclass's claim in every whole-corpus run). A volume is pre-bound
// by claimRef to a claim of the scenario's namespace, or its StorageClass name is the
// scenario's own (it contains the namespace, Env.ClusterName).
func TestCorpusVolumesStayInTheirScenario(t *testing.T) {
	for _, s := range All() {
		cs := setupFake(t, s)
		pvs, _ := cs.CoreV1().PersistentVolumes().List(context.Background(), metav1.ListOptions{})
		for _, pv := range pvs.Items {
			if r := pv.Spec.ClaimRef; r != nil && r.Namespace == fakeNamespace && r.Name != "" {
				continue
			}
			if strings.Contains(pv.Spec.StorageClassName, fakeNamespace) {
				continue
			}
			t.Errorf("%s: PersistentVolume %s (class %q) can bind any scenario's claim: pre-bind it with claimRef to a claim of the scenario's namespace, or give it a class of its own",
				s.Name, pv.Name, pv.Spec.StorageClassName)
		}
	}
}

// TestCorpusFixedClusterIPsAreUnique keeps the Service ClusterIPs a scenario pins (to print a
// realistic "dial tcp 10.96.0.x:5432" before the Service exists) apart: a whole corpus runs in
// one cluster, where a second Service asking the same address is refused and its scenario never
// starts. Pinned addresses sit in the service range's static band (the first 256 addresses of
// hack/cluster.sh's 10.96.0.0/16), which the API server hands out dynamically only when the rest
// is exhausted, and never on the cluster's own Services (.1 kubernetes, .10 DNS).
func TestCorpusFixedClusterIPsAreUnique(t *testing.T) {
	owner := map[string]string{"10.96.0.1": "the kubernetes Service", "10.96.0.10": "the cluster DNS Service"}
	for _, s := range All() {
		cs := setupFake(t, s)
		svcs, _ := cs.CoreV1().Services(fakeNamespace).List(context.Background(), metav1.ListOptions{})
		for _, svc := range svcs.Items {
			ip := svc.Spec.ClusterIP
			if ip == "" || ip == corev1.ClusterIPNone {
				continue
			}
			if !strings.HasPrefix(ip, "10.96.0.") {
				t.Errorf("%s: Service %s pins ClusterIP %s outside the static band 10.96.0.0/24", s.Name, svc.Name, ip)
			}
			if o, ok := owner[ip]; ok {
				t.Errorf("%s: Service %s pins ClusterIP %s, already %s", s.Name, svc.Name, ip, o)
				continue
			}
			owner[ip] = s.Name + "'s Service " + svc.Name
		}
	}
}
