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

package runner

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
)

var jobNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func newJobRunner(objs ...runtime.Object) (*Job, *fake.Clientset) {
	cs := fake.NewClientset(append([]runtime.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: owner.Namespace, UID: "ns-uid"}},
	}, objs...)...)
	r := NewJob(cs, JobOptions{Image: "kubage:dev", ManageAccess: true, StartTimeout: time.Minute})
	r.now = func() time.Time { return jobNow }
	return r, cs
}

func taskReq(id string) agent.TaskRequest {
	return agent.TaskRequest{
		Session: agent.Session{ID: "shop/checkout", Problem: "checkout is down", Namespace: owner.Namespace},
		Task:    agent.Task{ID: id, Type: agent.TaskAnalyze, Tool: "workload", Args: map[string]string{"kind": "Deployment", "name": "api"}},
	}
}

func getJob(g Gomega, cs *fake.Clientset, name string) *batchv1.Job {
	j, err := cs.BatchV1().Jobs(owner.Namespace).Get(context.Background(), name, metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	return j
}

func TestJobStartCreatesOneOwnedBoundedJob(t *testing.T) {
	g := NewWithT(t)
	r, cs := newJobRunner()
	ctx := WithTaskDeadline(context.Background(), jobNow.Add(90*time.Second))

	g.Expect(r.Start(ctx, owner, taskReq("i1-t1"))).To(Succeed())
	g.Expect(r.Start(ctx, owner, taskReq("i1-t1"))).To(Succeed(), "Start is idempotent")
	jobs, err := cs.BatchV1().Jobs(owner.Namespace).List(ctx, metav1.ListOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(jobs.Items).To(HaveLen(1))

	j := jobs.Items[0]
	g.Expect(j.Name).To(Equal("checkout-i1-t1"))
	g.Expect(j.Labels).To(HaveKeyWithValue(LabelTroubleshoot, "checkout"))
	g.Expect(j.Labels).To(HaveKeyWithValue(LabelTaskID, "i1-t1"))
	g.Expect(j.Labels).To(HaveKeyWithValue(LabelAgent, ComponentAgent))
	g.Expect(j.Spec.Template.Labels).To(HaveKeyWithValue(LabelAgent, ComponentAgent))
	g.Expect(j.OwnerReferences).To(HaveLen(1))
	ref := j.OwnerReferences[0]
	g.Expect(ref.UID).To(Equal(owner.UID))
	g.Expect(*ref.Controller && *ref.BlockOwnerDeletion).To(BeTrue())
	g.Expect(*j.Spec.BackoffLimit).To(Equal(int32(1)))
	g.Expect(*j.Spec.ActiveDeadlineSeconds).To(Equal(int64(90)), "the session's remaining time")
	g.Expect(*j.Spec.TTLSecondsAfterFinished).To(Equal(int32(3600)))

	pod := j.Spec.Template.Spec
	g.Expect(pod.RestartPolicy).To(Equal(corev1.RestartPolicyNever))
	g.Expect(pod.ServiceAccountName).To(Equal("kubage-agent"))
	g.Expect(*pod.SecurityContext.RunAsNonRoot).To(BeTrue())
	g.Expect(pod.Containers).To(HaveLen(1))
	c := pod.Containers[0]
	g.Expect(c.Image).To(Equal("kubage:dev"))
	g.Expect(c.Command).To(Equal([]string{"/kubage", "agent", "task"}))
	g.Expect(c.Args).To(Equal([]string{"--timeout=1m20s"}), "the agent stops before the Job deadline")
	g.Expect(*c.SecurityContext.ReadOnlyRootFilesystem).To(BeTrue())
	g.Expect(*c.SecurityContext.AllowPrivilegeEscalation).To(BeFalse())
	g.Expect(c.Resources.Limits.Memory().String()).To(Equal("256Mi"))

	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	got, err := OwnerFromEnv(func(k string) string { return env[k] })
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got).To(Equal(owner))
	var req agent.TaskRequest
	g.Expect(json.Unmarshal([]byte(env[EnvTaskRequest]), &req)).To(Succeed())
	g.Expect(req).To(Equal(taskReq("i1-t1")))

	// The agent's identity and least-privilege bindings exist in the session namespace.
	_, err = cs.CoreV1().ServiceAccounts(owner.Namespace).Get(ctx, "kubage-agent", metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	for _, role := range []string{"kubage-agent", "kubage-agent-result"} {
		rb, err := cs.RbacV1().RoleBindings(owner.Namespace).Get(ctx, role, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(rb.RoleRef.Name).To(Equal(role))
		g.Expect(rb.Subjects[0].Name).To(Equal("kubage-agent"))
		g.Expect(rb.Subjects[0].Namespace).To(Equal(owner.Namespace))
	}
	crb, err := cs.RbacV1().ClusterRoleBindings().Get(ctx, "kubage-agent-cluster-shop", metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(crb.RoleRef.Name).To(Equal("kubage-agent-cluster"))
	g.Expect(crb.OwnerReferences[0].Kind).To(Equal("Namespace"), "removed with the namespace")
	g.Expect(crb.OwnerReferences[0].UID).To(Equal(types.UID("ns-uid")))
}

func TestJobDeadlineIsBounded(t *testing.T) {
	g := NewWithT(t)
	r, _ := newJobRunner()
	g.Expect(r.deadlineFor(context.Background())).To(Equal(5 * time.Minute))
	g.Expect(r.deadlineFor(WithTaskDeadline(context.Background(), jobNow.Add(-time.Minute)))).To(Equal(30 * time.Second))
	g.Expect(r.deadlineFor(WithTaskDeadline(context.Background(), jobNow.Add(48*time.Hour)))).To(Equal(15 * time.Minute))
}

func TestJobStartRefusesWhatCannotRun(t *testing.T) {
	g := NewWithT(t)
	r, cs := newJobRunner()
	ctx := context.Background()
	big := taskReq("i1-t1")
	big.Session.Problem = strings.Repeat("x", MaxJobRequestBytes)
	g.Expect(r.Start(ctx, owner, big)).To(MatchError(ErrRequestTooLarge))
	g.Expect(r.Start(ctx, Owner{Namespace: "shop", Name: "x"}, taskReq("i1-t1"))).To(MatchError(ContainSubstring("UID")))

	noImage := NewJob(cs, JobOptions{})
	g.Expect(noImage.Start(ctx, owner, taskReq("i1-t1"))).To(MatchError(ContainSubstring("--agent-image")))
	jobs, _ := cs.BatchV1().Jobs(owner.Namespace).List(ctx, metav1.ListOptions{})
	g.Expect(jobs.Items).To(BeEmpty())
}

func TestJobStartSkipsTasksWithAResult(t *testing.T) {
	g := NewWithT(t)
	r, cs := newJobRunner()
	ctx := context.Background()
	g.Expect(WriteResult(ctx, cs, owner, agent.TaskResult{TaskID: "i1-t1", Summary: "done"})).To(Succeed())
	g.Expect(r.Start(ctx, owner, taskReq("i1-t1"))).To(Succeed())
	jobs, _ := cs.BatchV1().Jobs(owner.Namespace).List(ctx, metav1.ListOptions{})
	g.Expect(jobs.Items).To(BeEmpty())
	out, err := r.Check(ctx, owner, "i1-t1")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out.State).To(Equal(StateDone))
	g.Expect(out.Result.Summary).To(Equal("done"))
}

func TestJobRunNamesDoNotCollide(t *testing.T) {
	g := NewWithT(t)
	rerun := owner
	rerun.Run = RunToken("again")
	g.Expect(JobName(owner, "i1-t1")).NotTo(Equal(JobName(rerun, "i1-t1")))
	g.Expect(JobName(rerun, "i1-t1")).To(HaveSuffix("i1-t1"))
}

// failJob marks a Job failed the way the Job controller does and gives it a pod.
func failJob(g Gomega, cs *fake.Clientset, name, reason string, pod *corev1.Pod) {
	ctx := context.Background()
	j := getJob(g, cs, name)
	j.Status.Failed = 2
	j.Status.Conditions = append(j.Status.Conditions, batchv1.JobCondition{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: reason})
	_, err := cs.BatchV1().Jobs(owner.Namespace).UpdateStatus(ctx, j, metav1.UpdateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	if pod != nil {
		addPod(g, cs, j, pod)
	}
}

func addPod(g Gomega, cs *fake.Clientset, j *batchv1.Job, pod *corev1.Pod) {
	pod.Namespace = owner.Namespace
	pod.Labels = map[string]string{jobNameLabel: j.Name}
	pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: j.Name, UID: j.UID, Controller: boolPtr(true)}}
	_, err := cs.CoreV1().Pods(owner.Namespace).Create(context.Background(), pod, metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
}

func boolPtr(v bool) *bool { return &v }

func started(g Gomega, r *Job, cs *fake.Clientset, id string) *batchv1.Job {
	g.Expect(r.Start(context.Background(), owner, taskReq(id))).To(Succeed())
	j := getJob(g, cs, JobName(owner, id))
	// The fake API server sets no UID or creation time; the real one does.
	j.UID = types.UID("job-" + id)
	j.CreationTimestamp = metav1.NewTime(jobNow.Add(-2 * time.Minute))
	j, err := cs.BatchV1().Jobs(owner.Namespace).Update(context.Background(), j, metav1.UpdateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	return j
}

func TestJobCheckStates(t *testing.T) {
	ctx := context.Background()
	terminatedPod := func(code int32, msg string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "p-term", CreationTimestamp: metav1.NewTime(jobNow.Add(-time.Minute))},
			Status: corev1.PodStatus{Phase: corev1.PodFailed, ContainerStatuses: []corev1.ContainerStatus{{
				Name: agentContainer, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: "Error", Message: msg}},
			}}},
		}
	}
	waitingPod := func(age time.Duration, reason string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "p-wait", CreationTimestamp: metav1.NewTime(jobNow.Add(-age))},
			Status: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{
				Name: agentContainer, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: `Back-off pulling image "kubage:does-not-exist"`}},
			}}},
		}
	}
	for name, tc := range map[string]struct {
		setup      func(g Gomega, r *Job, cs *fake.Clientset)
		state      State
		reasonHas  []string
		noJobStart bool
	}{
		"no Job and no result": {noJobStart: true, state: StateMissing},
		"a Job that runs": {
			setup: func(g Gomega, r *Job, cs *fake.Clientset) { started(g, r, cs, "i1-t1") },
			state: StateRunning,
		},
		"a result": {
			setup: func(g Gomega, r *Job, cs *fake.Clientset) {
				started(g, r, cs, "i1-t1")
				g.Expect(WriteResult(ctx, cs, owner, agent.TaskResult{TaskID: "i1-t1", Summary: "ok"})).To(Succeed())
			},
			state: StateDone,
		},
		"a malformed result": {
			setup: func(g Gomega, r *Job, cs *fake.Clientset) {
				started(g, r, cs, "i1-t1")
				g.Expect(WriteResult(ctx, cs, owner, agent.TaskResult{TaskID: "i1-t1"})).To(Succeed())
				cm, _ := cs.CoreV1().ConfigMaps(owner.Namespace).Get(ctx, ResultName(owner, "i1-t1"), metav1.GetOptions{})
				cm.Data[ResultKey] = "{not json"
				_, err := cs.CoreV1().ConfigMaps(owner.Namespace).Update(ctx, cm, metav1.UpdateOptions{})
				g.Expect(err).NotTo(HaveOccurred())
			},
			state: StateFailed, reasonHas: []string{"malformed task result"},
		},
		"a crashed agent": {
			setup: func(g Gomega, r *Job, cs *fake.Clientset) {
				started(g, r, cs, "i1-t1")
				failJob(g, cs, "checkout-i1-t1", batchv1.JobReasonBackoffLimitExceeded,
					terminatedPod(1, "starting\nError: kubage agent task: loading kubeconfig: no configuration"))
			},
			state: StateFailed, reasonHas: []string{"failed 2 time(s)", "exit code 1", "loading kubeconfig: no configuration"},
		},
		"a Job past its deadline": {
			setup: func(g Gomega, r *Job, cs *fake.Clientset) {
				started(g, r, cs, "i1-t1")
				failJob(g, cs, "checkout-i1-t1", batchv1.JobReasonDeadlineExceeded, nil)
			},
			state: StateFailed, reasonHas: []string{"exceeded its deadline of 300s"},
		},
		"an image that cannot be pulled for too long": {
			setup: func(g Gomega, r *Job, cs *fake.Clientset) {
				addPod(g, cs, started(g, r, cs, "i1-t1"), waitingPod(2*time.Minute, "ImagePullBackOff"))
			},
			state: StateFailed, reasonHas: []string{"cannot start its pod for 2m0s", "ImagePullBackOff", "does-not-exist"},
		},
		"an image pull that just failed": {
			setup: func(g Gomega, r *Job, cs *fake.Clientset) {
				addPod(g, cs, started(g, r, cs, "i1-t1"), waitingPod(10*time.Second, "ErrImagePull"))
			},
			state: StateRunning,
		},
		"a pod of a previous Job of that name": {
			setup: func(g Gomega, r *Job, cs *fake.Clientset) {
				j := started(g, r, cs, "i1-t1")
				old := j.DeepCopy()
				old.UID = "previous-job"
				addPod(g, cs, old, waitingPod(5*time.Minute, "ImagePullBackOff"))
			},
			state: StateRunning,
		},
		"a Job that completed without a result": {
			setup: func(g Gomega, r *Job, cs *fake.Clientset) {
				j := started(g, r, cs, "i1-t1")
				j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
				_, err := cs.BatchV1().Jobs(owner.Namespace).UpdateStatus(ctx, j, metav1.UpdateOptions{})
				g.Expect(err).NotTo(HaveOccurred())
			},
			state: StateFailed, reasonHas: []string{"completed without writing its result"},
		},
		"a Job that cannot create its pod": {
			setup: func(g Gomega, r *Job, cs *fake.Clientset) {
				j := started(g, r, cs, "i1-t1")
				_, err := cs.CoreV1().Events(owner.Namespace).Create(ctx, &corev1.Event{
					ObjectMeta:     metav1.ObjectMeta{Name: "e1"},
					InvolvedObject: corev1.ObjectReference{Kind: "Job", Name: j.Name, UID: j.UID},
					Reason:         "FailedCreate", Type: corev1.EventTypeWarning,
					Message:       `Error creating: pods "checkout-i1-t1-x" is forbidden: exceeded quota: pods`,
					LastTimestamp: metav1.NewTime(jobNow),
				}, metav1.CreateOptions{})
				g.Expect(err).NotTo(HaveOccurred())
			},
			state: StateFailed, reasonHas: []string{"cannot create its pod", "exceeded quota"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			r, cs := newJobRunner()
			if tc.setup != nil {
				tc.setup(g, r, cs)
			}
			out, err := r.Check(ctx, owner, "i1-t1")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(out.State).To(Equal(tc.state), "reason: %s", out.Reason)
			for _, s := range tc.reasonHas {
				g.Expect(out.Reason).To(ContainSubstring(s))
			}
			g.Expect(len(out.Reason)).To(BeNumerically("<=", maxReason))
		})
	}
}

func TestJobStartRerunsAFailedJob(t *testing.T) {
	g := NewWithT(t)
	r, cs := newJobRunner()
	ctx := context.Background()
	started(g, r, cs, "i1-t1")
	failJob(g, cs, "checkout-i1-t1", batchv1.JobReasonBackoffLimitExceeded, nil)
	g.Expect(r.Start(ctx, owner, taskReq("i1-t1"))).To(Succeed())
	j := getJob(g, cs, "checkout-i1-t1")
	g.Expect(j.Status.Conditions).To(BeEmpty(), "a fresh Job replaced the failed one")
}

func TestJobStartReplacesANamesakeOfADeletedTroubleshoot(t *testing.T) {
	g := NewWithT(t)
	r, cs := newJobRunner()
	ctx := context.Background()
	previous := owner
	previous.UID = "uid-of-a-deleted-troubleshoot"
	g.Expect(r.Start(ctx, previous, taskReq("i1-t1"))).To(Succeed())

	g.Expect(r.Start(ctx, owner, taskReq("i1-t1"))).To(MatchError(ContainSubstring("previous Troubleshoot")))
	g.Expect(r.Start(ctx, owner, taskReq("i1-t1"))).To(Succeed(), "the retry creates ours")
	g.Expect(getJob(g, cs, "checkout-i1-t1").OwnerReferences[0].UID).To(Equal(owner.UID))
}

func TestJobCleanupDeletesOnlyTheOwnersJobs(t *testing.T) {
	g := NewWithT(t)
	r, cs := newJobRunner()
	ctx := context.Background()
	other := Owner{Namespace: owner.Namespace, Name: "other", UID: "uid-2"}
	g.Expect(r.Start(ctx, owner, taskReq("i1-t1"))).To(Succeed())
	g.Expect(r.Start(ctx, owner, taskReq("i1-t2"))).To(Succeed())
	g.Expect(r.Start(ctx, other, taskReq("i1-t1"))).To(Succeed())

	g.Expect(r.Cleanup(ctx, owner)).To(Succeed())
	jobs, err := cs.BatchV1().Jobs(owner.Namespace).List(ctx, metav1.ListOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(jobs.Items).To(HaveLen(1))
	g.Expect(jobs.Items[0].Name).To(Equal("other-i1-t1"))

	// Without a UID (the Troubleshoot is gone) every Job of that name goes.
	g.Expect(r.Cleanup(ctx, Owner{Namespace: other.Namespace, Name: other.Name})).To(Succeed())
	jobs, _ = cs.BatchV1().Jobs(owner.Namespace).List(ctx, metav1.ListOptions{})
	g.Expect(jobs.Items).To(BeEmpty())
}

// A binding of the agent's name that grants something else is refused, never trusted;
// one with the expected contents (an earlier run's) is accepted.
func TestJobRefusesAgentBindingsWithOtherContents(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	agentSA := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "kubage-agent", Namespace: owner.Namespace}
	clusterRef := func(name string) rbacv1.RoleRef {
		return rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name}
	}
	for name, obj := range map[string]runtime.Object{
		"RoleBinding to cluster-admin": &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: owner.Namespace, Name: "kubage-agent"},
			RoleRef: clusterRef("cluster-admin"), Subjects: []rbacv1.Subject{agentSA}},
		"RoleBinding with another subject": &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: owner.Namespace, Name: "kubage-agent-result"},
			RoleRef: clusterRef("kubage-agent-result"), Subjects: []rbacv1.Subject{agentSA, {Kind: rbacv1.UserKind, Name: "mallory"}}},
		"ClusterRoleBinding to cluster-admin": &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "kubage-agent-cluster-shop"},
			RoleRef: clusterRef("cluster-admin"), Subjects: []rbacv1.Subject{agentSA}},
	} {
		r, cs := newJobRunner(obj)
		err := r.Start(ctx, owner, taskReq("i1-t1"))
		g.Expect(errors.Is(err, ErrAccessConflict)).To(BeTrue(), "%s: %v", name, err)
		_, gerr := cs.BatchV1().Jobs(owner.Namespace).Get(ctx, JobName(owner, "i1-t1"), metav1.GetOptions{})
		g.Expect(gerr).To(HaveOccurred(), "%s: no Job runs under a binding that was refused", name)
	}
	ok := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "kubage-agent-cluster-shop"},
		RoleRef: clusterRef("kubage-agent-cluster"), Subjects: []rbacv1.Subject{agentSA}}
	r, _ := newJobRunner(ok)
	g.Expect(r.Start(ctx, owner, taskReq("i1-t1"))).To(Succeed())
}
