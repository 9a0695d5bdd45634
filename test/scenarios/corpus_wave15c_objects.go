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
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Sources of wave 15c, looked up before any Want was written.
const (
	w15cSrcSpark    = "https://github.com/kubeflow/spark-operator/issues/1270 (spark-rbac.yaml grants pods and services but not configmaps; Spark 3 drivers create a ConfigMap for their executors)"
	w15cSrcEvents   = "https://github.com/networking-incubator/coraza-kubernetes-operator/pull/84 (\"Server rejected event (will not retry!)\": events are created in API group \"\" or events.k8s.io depending on the recorder, the Role must grant the one used)"
	w15cSrcEviction = "k8s-docs/concepts/scheduling-eviction/api-eviction.md (an API-initiated eviction creates the Eviction subresource of the pod, POST .../pods/NAME/eviction)"
	w15cSrcHistory  = "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#jobs-history-limits (setting a limit to 0 keeps none of the corresponding Jobs after they finish)"
	w15cSrcSchedule = "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#schedule-syntax (the first field is the minute; */5 means every five minutes)"
	w15cSrcJob      = "k8s-docs/concepts/workloads/controllers/job.md (a Job is complete only once its pods terminate successfully)"
	w15cSrcCATaint  = "https://github.com/kubernetes/autoscaler/issues/5657 (nodes tainted ToBeDeletedByClusterAutoscaler remain in the cluster and take no new pods)"
	w15cSrcMinReady = "k8s-docs/concepts/workloads/controllers/deployment.md (Min Ready Seconds; a rolling update with maxUnavailable 0 waits for new pods to become available)"
	w15cSrcAffinity = "k8s-docs/concepts/services-networking/service.md (session affinity based on the client's IP address sends a client to the same Pod each time)"
	w15cSrcRunning  = "k8s-docs/tasks/debug/debug-application/debug-running-pod.md (a Running pod that does not do its work: read its configuration and its logs)"
)

// w15cRule is an RBAC rule on resources of one API group.
func w15cRule(group string, resources []string, verbs ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: resources, Verbs: verbs}
}

// w15cAccount creates ServiceAccount sa with Role role (rules) bound to it by a RoleBinding of
// the same name, as a chart's rbac.yaml does.
func (e *Env) w15cAccount(ctx context.Context, sa, role string, rules ...rbacv1.PolicyRule) error {
	return steps(
		func() error { return e.createServiceAccount(ctx, sa) },
		func() error { return e.createRole(ctx, role, rules...) },
		func() error { return e.createRoleBinding(ctx, role, "Role", role, sa) },
	)
}

// w15cForbidden is the apiserver's RBAC denial for the namespace's ServiceAccount sa; what is
// `pods "NAME"` for a named object or the bare resource for a collection.
func w15cForbidden(e *Env, what, sa, verb, resource, group string) string {
	return fmt.Sprintf(`%s is forbidden: User "system:serviceaccount:%s:%s" cannot %s resource %q in API group %q in the namespace %q`,
		what, e.Namespace, sa, verb, resource, group, e.Namespace)
}

// w15cSelect lists the objects labelled lbl.
func w15cSelect(lbl map[string]string) metav1.ListOptions {
	return metav1.ListOptions{LabelSelector: labels.Set(lbl).String()}
}

// w15cJob is a Job of one pod running image with args as ServiceAccount sa (empty: default).
func w15cJob(name, image, sa string, backoff int32, lbl, ann map[string]string, args ...string) *batchv1.Job {
	j := job(name, backoff, ann)
	j.Labels = lbl
	t := &j.Spec.Template
	t.Labels = lbl
	t.Spec.ServiceAccountName = sa
	t.Spec.Containers[0].Name = name
	t.Spec.Containers[0].Image = image
	t.Spec.Containers[0].Args = args
	return j
}

// w15cHistoryGone succeeds once CronJob name has finished a run successfully although no Job
// of it is left in the namespace.
func w15cHistoryGone(name string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		c, err := e.Client.BatchV1().CronJobs(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if c.Status.LastSuccessfulTime == nil {
			return fmt.Errorf("cronjob %s has not completed a run yet", name)
		}
		l, err := e.Client.BatchV1().Jobs(e.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, j := range l.Items {
			for _, o := range j.OwnerReferences {
				if o.Kind == "CronJob" && o.Name == name {
					return fmt.Errorf("job %s of cronjob %s still listed", j.Name, name)
				}
			}
		}
		return nil
	}
}

// w15cOnOneNode succeeds once n pods labelled lbl are Running and Ready, all on the same node.
func w15cOnOneNode(lbl map[string]string, n int) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		l, err := e.Client.CoreV1().Pods(e.Namespace).List(ctx, metav1.ListOptions{LabelSelector: labels.Set(lbl).String()})
		if err != nil {
			return err
		}
		nodes := map[string]bool{}
		ready := 0
		for i := range l.Items {
			if runningReady(&l.Items[i]) == nil {
				ready++
				nodes[l.Items[i].Spec.NodeName] = true
			}
		}
		if ready < n || len(nodes) != 1 {
			return fmt.Errorf("%d of %d pods ready on %d nodes", ready, n, len(nodes))
		}
		return nil
	}
}

// w15cRolloutHeld succeeds once Deployment name has one updated pod Ready while every old
// replica is still kept (the rollout stands still with the new pod up).
func w15cRolloutHeld(name string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		d, err := e.Client.AppsV1().Deployments(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		want := int32(1)
		if d.Spec.Replicas != nil {
			want = *d.Spec.Replicas
		}
		st := d.Status
		if st.ObservedGeneration < d.Generation || st.UpdatedReplicas != 1 || st.ReadyReplicas <= want {
			return fmt.Errorf("deployment %s: updated %d, ready %d of %d", name, st.UpdatedReplicas, st.ReadyReplicas, want)
		}
		return nil
	}
}

// w15cAutoscalerTaint is the taint the cluster autoscaler puts on a node it is about to remove
// (its value is the Unix time of the decision), left behind when the deletion failed.
func w15cAutoscalerTaint(age time.Duration) corev1.Taint {
	return corev1.Taint{Key: "ToBeDeletedByClusterAutoscaler", Value: fmt.Sprint(time.Now().Add(-age).Unix()), Effect: corev1.TaintEffectNoSchedule}
}
