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
	"errors"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Wait steps: each returns nil once the failure it names is visible in the cluster.

// anyPod succeeds when a pod of app passes check.
func anyPod(app string, check func(p *corev1.Pod) error) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		pods, err := e.pods(ctx, app)
		if err != nil {
			return err
		}
		var errs []error
		for i := range pods {
			err := check(&pods[i])
			if err == nil {
				return nil
			}
			errs = append(errs, fmt.Errorf("pod %s: %w", pods[i].Name, err))
		}
		return errors.Join(errs...)
	}
}

func waiting(reasons ...string) func(p *corev1.Pod) error {
	return func(p *corev1.Pod) error {
		for _, cs := range p.Status.ContainerStatuses {
			if cs.State.Waiting != nil {
				for _, r := range reasons {
					if cs.State.Waiting.Reason == r {
						return nil
					}
				}
			}
		}
		return fmt.Errorf("no container waiting with %v", reasons)
	}
}

// restartedWith: a container restarted after terminating with reason (and exit code when >= 0).
func restartedWith(reason string, exit int32) func(p *corev1.Pod) error {
	return func(p *corev1.Pod) error {
		for _, cs := range p.Status.ContainerStatuses {
			t := cs.LastTerminationState.Terminated
			if cs.RestartCount > 0 && t != nil && t.Reason == reason && (exit < 0 || t.ExitCode == exit) {
				return nil
			}
		}
		return fmt.Errorf("no container restarted after %s", reason)
	}
}

// crashLooping: a container has crashed at least n times. The kubelet shows a crash-looping
// pod Running and Ready between crashes, and the engine counts a Ready pod as crash-looping from
// its third restart, so scenarios wait for that.
func crashLooping(n int32) func(p *corev1.Pod) error {
	return func(p *corev1.Pod) error {
		for _, cs := range p.Status.ContainerStatuses {
			if t := cs.LastTerminationState.Terminated; t != nil && t.ExitCode != 0 && cs.RestartCount >= n {
				return nil
			}
		}
		return fmt.Errorf("no container restarted %d times after a failure", n)
	}
}

func runningNotReady(p *corev1.Pod) error {
	if p.Status.Phase != corev1.PodRunning {
		return fmt.Errorf("phase %s", p.Status.Phase)
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionFalse {
			return nil
		}
	}
	return errors.New("not marked unready")
}

func runningReady(p *corev1.Pod) error {
	if p.Status.Phase != corev1.PodRunning {
		return fmt.Errorf("phase %s", p.Status.Phase)
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return nil
		}
	}
	return errors.New("not ready")
}

// unschedulable: the scheduler gave up on the pod with a message containing text.
func unschedulable(text string) func(p *corev1.Pod) error {
	return func(p *corev1.Pod) error {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && strings.Contains(c.Message, text) {
				return nil
			}
		}
		return fmt.Errorf("not unschedulable with %q", text)
	}
}

// podEvent succeeds once an event about a pod of the namespace has reason and contains text.
func podEvent(reason, text string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		l, err := e.Client.CoreV1().Events(e.Namespace).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.kind=Pod,reason=" + reason})
		if err != nil {
			return err
		}
		for _, ev := range l.Items {
			if strings.Contains(ev.Message, text) {
				return nil
			}
		}
		return fmt.Errorf("no %s event with %q", reason, text)
	}
}

// deploymentCondition succeeds once Deployment name has condition t with reason.
func deploymentCondition(name string, t appsv1.DeploymentConditionType, reason string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		d, err := e.Client.AppsV1().Deployments(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range d.Status.Conditions {
			if c.Type == t && c.Reason == reason {
				return nil
			}
		}
		return fmt.Errorf("deployment %s has no %s condition %s", name, t, reason)
	}
}

func jobFailed(ctx context.Context, e *Env, name, reason string) error {
	j, err := e.Client.BatchV1().Jobs(e.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	for _, c := range j.Status.Conditions {
		if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue && c.Reason == reason {
			return nil
		}
	}
	return fmt.Errorf("job %s not failed with %s", name, reason)
}

func pvcPending(name string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		c, err := e.Client.CoreV1().PersistentVolumeClaims(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if c.Status.Phase != corev1.ClaimPending {
			return fmt.Errorf("claim %s is %s", name, c.Status.Phase)
		}
		return nil
	}
}

// all succeeds when every step does, in order.
func all(steps ...func(context.Context, *Env) error) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		for _, s := range steps {
			if err := s(ctx, e); err != nil {
				return err
			}
		}
		return nil
	}
}
