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
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Builders for wave 11a: the failures an SRE meets every week (crash loops, probes, Service
// wiring, NetworkPolicies, quotas, claims), laid out the way product teams run them. The wave 8
// to 10 builders (w8bDeployment, w8bService, w8cRequests, w9bRollout ...) do the rest.

// w11aEvent succeeds once an event about an object of kind has reason and mentions text.
func w11aEvent(kind, reason, text string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error { return podEventOn(ctx, e, kind, reason, text) }
}

// w11aJobFailed succeeds once Job name failed with reason.
func w11aJobFailed(name, reason string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error { return jobFailed(ctx, e, name, reason) }
}

// w11aStatefulSetReady succeeds once StatefulSet name has n ready replicas.
func w11aStatefulSetReady(name string, n int32) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error { return readyStatefulSet(ctx, e, name, n) }
}

// w11aExists succeeds once the CronJob name exists (a scenario whose failure is the
// configuration itself: nothing more becomes visible over time).
func w11aCronJobExists(name string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		_, err := e.Client.BatchV1().CronJobs(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		return err
	}
}

// w11aCronJob is a CronJob running image with args on schedule, labelled lbl.
func w11aCronJob(name, image, schedule string, suspend bool, lbl map[string]string, args ...string) *batchv1.CronJob {
	t := template(name, image, nil)
	t.Labels = lbl
	t.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
	t.Spec.Containers[0].Name = name
	t.Spec.Containers[0].Ports = nil
	t.Spec.Containers[0].Args = args
	return &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbl},
		Spec: batchv1.CronJobSpec{
			Schedule: schedule, Suspend: ptr.To(suspend), ConcurrencyPolicy: batchv1.ForbidConcurrent,
			SuccessfulJobsHistoryLimit: ptr.To[int32](3), FailedJobsHistoryLimit: ptr.To[int32](1),
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{BackoffLimit: ptr.To[int32](2), Template: t}},
		},
	}
}

func (e *Env) w11aCreateCronJob(ctx context.Context, c *batchv1.CronJob) error {
	_, err := e.Client.BatchV1().CronJobs(e.Namespace).Create(ctx, c, metav1.CreateOptions{})
	return wrap("CronJob", c.Name, err)
}

// w11aQuota creates ResourceQuota name with hard limits given as resource, quantity pairs.
func (e *Env) w11aQuota(ctx context.Context, name string, kv ...string) error {
	hard := corev1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		hard[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return e.createQuota(ctx, name, hard)
}

// w11aRefusedMessage is the termination message of a Node.js client whose connection to a
// Service's cluster IP was refused (ioredis and node-postgres quote the address they dialled).
func (e *Env) w11aRefusedMessage(ctx context.Context, prefix, svc string, port int) string {
	return strings.TrimSpace(fmt.Sprintf("%s Error: connect ECONNREFUSED %s:%d", prefix, e.clusterIP(ctx, svc), port))
}

// w11aAnyJobComplete succeeds once some Job of the namespace has completed (a CronJob that
// runs, next to one that does not).
func w11aAnyJobComplete(ctx context.Context, e *Env) error {
	l, err := e.Client.BatchV1().Jobs(e.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, j := range l.Items {
		for _, c := range j.Status.Conditions {
			if c.Type == batchv1.JobComplete && c.Status == corev1.ConditionTrue {
				return nil
			}
		}
	}
	return fmt.Errorf("no completed Job yet")
}
