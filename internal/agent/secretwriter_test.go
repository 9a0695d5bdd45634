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
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// Rejected registry credentials that a CronJob keeps refreshing: its failed run is the cause.
func TestRejectedPullSecretFollowsItsFailingWriter(t *testing.T) {
	image := "123456789012.dkr.ecr.eu-west-1.amazonaws.com/shop/checkout:5.1.0"
	msg := `rpc error: code = Unknown desc = failed to pull and unpack image "` + image + `": failed to resolve reference "` + image +
		`": unexpected status code 401 Unauthorized: Your authorization token has expired. Reauthenticate and try again.`
	objs := app("checkout", 1, func(s *corev1.PodSpec) { s.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}} }, func(p *corev1.Pod) {
		p.Spec.Containers[0].Image = image
		fx.Waiting(p, "ImagePullBackOff", msg)
	})
	cj := fx.CronJob(ns, "ecr-token-refresh", "0 */10 * * *")
	cj.UID = fx.UID("CronJob", "ecr-token-refresh")
	j := fx.Job(ns, "ecr-token-refresh-manual-x7k2p", "aws-cli:2")
	j.Spec.Template.Spec.Containers[0].Command = []string{"/bin/sh", "-c", "kubectl create secret docker-registry regcred --docker-password=$(aws ecr get-login-password) --dry-run=client -o yaml | kubectl apply -f -"}
	j.OwnerReferences = []metav1.OwnerReference{fx.OwnerRef("CronJob", "batch/v1", cj)}
	j.OwnerReferences[0].Controller = fx.Ptr(true)
	j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded"}}
	pod := fx.FailedJobPod(j, "abcde", 254)
	pod.Status.ContainerStatuses[0].State.Terminated.Message = "An error occurred (AccessDeniedException) when calling the GetAuthorizationToken operation"
	objs = append(objs, cj, j, pod, fx.PullSecret(ns, "regcred"), fx.Node("node-1"))
	for _, target := range []*agent.Target{nil, {Kind: "Deployment", Name: "checkout"}} {
		e := agent.NewRuleEngine(fake.NewClientset(objs...))
		e.Now = func() time.Time { return fx.Now }
		e.Logs = logBook{}.source()
		rc := drive(t, e, agent.Session{ID: "t", Problem: "checkout deploy stuck: 0 of 3 replicas available", Namespace: ns, Target: target}).RootCause
		if rc.Culprit.Kind != "CronJob" || rc.Culprit.Name != "ecr-token-refresh" {
			t.Fatalf("target %v: got %s on %s: %s", target, rc.Rule, rc.Culprit, rc.Summary)
		}
		for _, w := range []string{"expired", "AccessDeniedException", "regcred", "Deployment checkout"} {
			if !strings.Contains(rc.Summary, w) {
				t.Errorf("summary lacks %q: %s", w, rc.Summary)
			}
		}
	}
}

// A generic ephemeral volume whose claim template names a StorageClass that does not exist:
// the pod's claim is <pod>-<volume>, owned by the pod; the class is the culprit and the
// workload whose template holds the claim template is named.
func TestEphemeralVolumeClassMissing(t *testing.T) {
	class := "scratch-nvme"
	objs := app("ci-runner", 1, func(s *corev1.PodSpec) {
		s.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
			VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class,
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}}}}}}}
	}, func(p *corev1.Pod) {
		p.Spec.NodeName = ""
		fx.Unschedulable(p, "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")
	})
	var pod *corev1.Pod
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok {
			pod = p
		}
	}
	pvc := fx.PVC(ns, pod.Name+"-scratch", &class, corev1.ClaimPending)
	pvc.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: fx.Ptr(true)}}
	objs = append(objs, pvc, fx.StorageClass("standard", "ebs.csi.aws.com", true, "WaitForFirstConsumer"), fx.Node("node-1"))
	for _, target := range []*agent.Target{nil, {Kind: "Deployment", Name: "ci-runner"}} {
		e := agent.NewRuleEngine(fake.NewClientset(objs...))
		e.Now = func() time.Time { return fx.Now }
		e.Logs = logBook{}.source()
		rc := drive(t, e, agent.Session{ID: "t", Problem: "CI jobs are queued forever, the runners never start", Namespace: ns, Target: target}).RootCause
		names := map[string]bool{}
		for _, a := range rc.AffectedObjects {
			names[a.Kind+"/"+a.Name] = true
		}
		if rc.Culprit.Kind != "StorageClass" || rc.Culprit.Name != class || !names["Deployment/ci-runner"] {
			t.Fatalf("target %v: got %s on %s, affected %v: %s", target, rc.Rule, rc.Culprit, rc.AffectedObjects, rc.Summary)
		}
	}
}
