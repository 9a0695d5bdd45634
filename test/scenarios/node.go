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
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
)

// Scenario nodes are dedicated: a taint keeps every other pod of the cluster (other specs'
// pods included) off them, and the scenario's own pods tolerate it and select the node's pool.
const (
	taintDedicated = "scenarios.kubage.io/dedicated"
	labelPool      = "scenarios.kubage.io/pool"
	// kwokAnnotation makes kwok play the node's kubelet (hack/cluster.sh).
	kwokAnnotation = "kwok.x-k8s.io/node"
)

type nodeSpec struct {
	// name is relative: the node is called ClusterName(name).
	name          string
	taints        []corev1.Taint
	unschedulable bool
	// kwok lets kwok play the kubelet; otherwise a SimNode of this package does.
	kwok bool
	// pods is the pod capacity (default 110).
	pods int
}

// createNode registers a node of the scenario, removed by Cleanup, and returns its name.
func (e *Env) createNode(ctx context.Context, s nodeSpec) (string, error) {
	name := e.ClusterName(s.name)
	if s.pods <= 0 {
		s.pods = 110
	}
	alloc := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("15Gi"),
		corev1.ResourcePods: *resource.NewQuantity(int64(s.pods), resource.DecimalSI),
	}
	capacity := alloc.DeepCopy()
	capacity[corev1.ResourceMemory] = resource.MustParse("16Gi")
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Labels: map[string]string{
				LabelScenario: e.Namespace, labelPool: e.Namespace,
				"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
			},
		},
		Spec: corev1.NodeSpec{
			Unschedulable: s.unschedulable,
			Taints:        append([]corev1.Taint{{Key: taintDedicated, Value: e.Namespace, Effect: corev1.TaintEffectNoSchedule}}, s.taints...),
		},
		// Nodes accept their status on create, as a registering kubelet sends it.
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: alloc, NodeInfo: corev1.NodeSystemInfo{
			Architecture: "amd64", OperatingSystem: "linux", KubeletVersion: "v1.36.3", ContainerRuntimeVersion: "containerd://1.7.0-sim",
		}},
	}
	if s.kwok {
		n.Annotations = map[string]string{kwokAnnotation: "fake"}
	}
	if _, err := e.Client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
		return "", wrap("Node", name, err)
	}
	e.onCleanup(func(ctx context.Context) error {
		return ignoreNotFound(e.Client.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{}))
	})
	return name, nil
}

// ownNode gives a scenario whose pods request CPU or memory a kwok node of its own (see
// createNode; pin the templates to it). The three shared kwok nodes (12 CPU, 45Gi) hold every
// other scenario's pods at once: when a whole corpus asks more of them than they have, the pods
// created last (a rollout's new pod, a StatefulSet's last replica) stay Pending on
// Insufficient cpu and their scenario's failure never shows. TestCorpusFitsSharedNodes keeps
// the corpus's requests on the shared nodes within budget.
func (e *Env) ownNode(ctx context.Context, name string) error {
	_, err := e.createNode(ctx, nodeSpec{name: name, kwok: true})
	return err
}

// pin makes a pod template select the scenario's nodes and tolerate their dedicated taint.
func (e *Env) pin(t *corev1.PodTemplateSpec) {
	t.Spec.NodeSelector = map[string]string{labelPool: e.Namespace}
	t.Spec.Tolerations = append(t.Spec.Tolerations, corev1.Toleration{Key: taintDedicated, Operator: corev1.TolerationOpEqual, Value: e.Namespace, Effect: corev1.TaintEffectNoSchedule})
}

// SimNode plays the kubelet of a node that kwok does not manage: it posts the node's
// conditions with fresh heartbeats, renews its Lease, and starts the pods bound to it, so a
// scenario can make the node fail (NotReady, memory pressure) the way a kubelet reports it.
type SimNode struct {
	Name string
	e    *Env

	mu       sync.Mutex
	ready    corev1.NodeCondition
	pressure map[corev1.NodeConditionType]bool
	since    map[corev1.NodeConditionType]metav1.Time
	nextIP   int
	stop     context.CancelFunc
}

// startSimNode creates a node (see createNode) and starts its kubelet until Cleanup.
func (e *Env) startSimNode(ctx context.Context, s nodeSpec, pressure ...corev1.NodeConditionType) (*SimNode, error) {
	s.kwok = false
	name, err := e.createNode(ctx, s)
	if err != nil {
		return nil, err
	}
	n := &SimNode{Name: name, e: e, pressure: map[corev1.NodeConditionType]bool{}, since: map[corev1.NodeConditionType]metav1.Time{}}
	n.ready = corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"}
	for _, p := range pressure {
		n.pressure[p] = true
	}
	if err := n.postStatus(ctx); err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.sims[s.name] = n
	e.mu.Unlock()
	done := make(chan struct{})
	ctx, n.stop = context.WithCancel(e.bg)
	go n.run(ctx, done)
	e.onCleanup(func(ctx context.Context) error {
		<-done
		return ignoreNotFound(e.Client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Delete(ctx, name, metav1.DeleteOptions{}))
	})
	return n, nil
}

// Stop kills the kubelet: no more heartbeats or Lease renewals, so the node lifecycle
// controller marks the node NotReady (Unknown) after its grace period, like a node that died.
func (n *SimNode) Stop() { n.stop() }

// Ready is the Ready status the kubelet reports.
func (n *SimNode) Ready() corev1.ConditionStatus {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.ready.Status
}

func (n *SimNode) run(ctx context.Context, done chan struct{}) {
	defer close(done)
	// Well inside the node lifecycle controller's grace period (40-50 s).
	heartbeat := time.NewTicker(10 * time.Second)
	defer heartbeat.Stop()
	pods := time.NewTicker(time.Second)
	defer pods.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-heartbeat.C:
			_ = n.postStatus(ctx)
		case <-pods.C:
			_ = n.syncPods(ctx)
		}
	}
}

func (n *SimNode) conditions(now metav1.Time) []corev1.NodeCondition {
	n.mu.Lock()
	defer n.mu.Unlock()
	conds := []corev1.NodeCondition{n.ready}
	// The kubelet's own reasons and messages for each pressure condition: {False, True}.
	texts := []struct {
		t                 corev1.NodeConditionType
		okReason, okMsg   string
		badReason, badMsg string
	}{
		{corev1.NodeMemoryPressure, "KubeletHasSufficientMemory", "kubelet has sufficient memory available", "KubeletHasInsufficientMemory", "kubelet has insufficient memory available"},
		{corev1.NodeDiskPressure, "KubeletHasNoDiskPressure", "kubelet has no disk pressure", "KubeletHasDiskPressure", "kubelet has disk pressure"},
		{corev1.NodePIDPressure, "KubeletHasSufficientPID", "kubelet has sufficient PID available", "KubeletHasInsufficientPID", "kubelet has insufficient PID available"},
	}
	for _, x := range texts {
		c := corev1.NodeCondition{Type: x.t, Status: corev1.ConditionFalse, Reason: x.okReason, Message: x.okMsg}
		if n.pressure[x.t] {
			c.Status, c.Reason, c.Message = corev1.ConditionTrue, x.badReason, x.badMsg
		}
		conds = append(conds, c)
	}
	for i := range conds {
		conds[i].LastHeartbeatTime = now
		key := conds[i].Type + corev1.NodeConditionType("/"+string(conds[i].Status))
		if _, ok := n.since[key]; !ok {
			n.since[key] = now
		}
		conds[i].LastTransitionTime = n.since[key]
	}
	return conds
}

// postStatus writes the node's conditions and renews its Lease, as a kubelet's heartbeat does.
func (n *SimNode) postStatus(ctx context.Context) error {
	cs := n.e.Client
	var node *corev1.Node
	// The node controller writes the same object (taints), so conflicts are expected.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var err error
		if node, err = cs.CoreV1().Nodes().Get(ctx, n.Name, metav1.GetOptions{}); err != nil {
			return err
		}
		node.Status.Conditions = n.conditions(metav1.Now())
		node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "192.0.2.10"}, {Type: corev1.NodeHostName, Address: n.Name}}
		node, err = cs.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return err
	}
	leases := cs.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	renew := metav1.NewMicroTime(time.Now())
	l, err := leases.Get(ctx, n.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = leases.Create(ctx, &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: n.Name, OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: n.Name, UID: node.UID}}},
			Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr.To(n.Name), LeaseDurationSeconds: ptr.To[int32](40), RenewTime: &renew},
		}, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	l.Spec.RenewTime = &renew
	_, err = leases.Update(ctx, l, metav1.UpdateOptions{})
	return err
}

// syncPods starts the scenario's pods bound to the node (Running and Ready) while the node is
// Ready, and confirms deletions, like a kubelet.
func (n *SimNode) syncPods(ctx context.Context) error {
	if n.Ready() != corev1.ConditionTrue {
		return nil
	}
	pods := n.e.Client.CoreV1().Pods(n.e.Namespace)
	l, err := pods.List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", n.Name).String()})
	if err != nil {
		return err
	}
	for i := range l.Items {
		p := &l.Items[i]
		if p.DeletionTimestamp != nil {
			_ = pods.Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
			continue
		}
		if p.Status.Phase != corev1.PodPending || len(p.Status.ContainerStatuses) > 0 {
			continue
		}
		now := metav1.Now()
		n.nextIP++
		p.Status.Phase = corev1.PodRunning
		p.Status.HostIP = "192.0.2.10"
		p.Status.PodIP = fmt.Sprintf("10.245.%d.%d", n.nextIP/250, n.nextIP%250+1)
		p.Status.PodIPs = []corev1.PodIP{{IP: p.Status.PodIP}}
		p.Status.StartTime = &now
		p.Status.Conditions = []corev1.PodCondition{
			{Type: corev1.PodReadyToStartContainers, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
		}
		p.Status.ContainerStatuses = nil
		for _, c := range p.Spec.Containers {
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
				Name: c.Name, Image: c.Image, ImageID: c.Image, ContainerID: "containerd://" + string(p.UID) + "-" + c.Name,
				Ready: true, Started: ptr.To(true), State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
			})
		}
		if _, err := pods.UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// sim returns the simulated node registered under a relative name.
func (e *Env) sim(name string) *SimNode {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sims[name]
}

// nodeCondition returns a node's condition of type t (nil when absent).
func nodeCondition(n *corev1.Node, t corev1.NodeConditionType) *corev1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == t {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

func hasTaint(n *corev1.Node, key string) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == key {
			return true
		}
	}
	return false
}
