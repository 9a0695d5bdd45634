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
	"flag"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/kubage/kubage/internal/agent"
)

// The Job runner needs, on top of the controller's permissions: Jobs deleted on cleanup, the
// agent's ServiceAccount and bindings ensured in each session namespace, and `bind` on exactly
// the agent's ClusterRoles (so the manager never needs the agent's permissions itself).
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups="",resources=pods;events,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=serviceaccounts,verbs=get;create
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=rolebindings;clusterrolebindings,verbs=get;create
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=clusterroles,verbs=bind,resourceNames=kubage-agent;kubage-agent-result;kubage-agent-cluster

const (
	// EnvTaskRequest carries the agent.TaskRequest JSON into a task Job's container.
	EnvTaskRequest = "KUBAGE_TASK_REQUEST"
	// EnvModelPrefix prefixes the keys of the session's model Secret in a task Job's
	// environment: the kubelet fills them (envFrom), so the API key is never in the Job spec
	// and the agent's account needs no read access to Secrets.
	EnvModelPrefix = "KUBAGE_MODEL_"
	// EnvKnowledgeURL is the operator's knowledge endpoint, for the agent's Knowledge tasks.
	EnvKnowledgeURL = "KUBAGE_KNOWLEDGE_URL"
	// MaxJobRequestBytes bounds the request a Job carries in its environment.
	MaxJobRequestBytes = 64 << 10

	// LabelAgent marks the pods of task Jobs ("agent"); the e2e kubelet harness runs these.
	LabelAgent = "kubage.io/component"
	// ComponentAgent is the value of LabelAgent on task Jobs and their pods.
	ComponentAgent = "agent"
	// ComponentTask is the LabelComponent value of task Jobs.
	ComponentTask = "task"

	// agentContainer is the name of the task Job's only container.
	agentContainer = "agent"
	// jobNameLabel is set by the Job controller on the Job's pods.
	jobNameLabel = "batch.kubernetes.io/job-name"
	// maxListedJobs bounds the Jobs read back for one session.
	maxListedJobs = 1000
	// maxReason bounds a failure reason handed to the controller.
	maxReason = 400
)

// JobOptions configure NewJob. Image is required; zero values pick the defaults of BindFlags.
type JobOptions struct {
	// Image is the operator's own image; its binary runs `kubage agent task`.
	Image string
	// ImagePullPolicy of the agent container (default IfNotPresent).
	ImagePullPolicy corev1.PullPolicy
	// Command runs the agent in Image (default /kubage agent task).
	Command []string
	// ServiceAccount the task pods run as, in the session's namespace (default kubage-agent).
	ServiceAccount string
	// ManageAccess makes Start ensure, in each session namespace, the ServiceAccount and its
	// bindings to ReadRole and ResultRole (RoleBindings) and ClusterReadRole (a
	// ClusterRoleBinding owned by the Namespace). Off: an administrator provides them.
	ManageAccess bool
	// ReadRole is the read-only ClusterRole bound in the session namespace (default kubage-agent).
	ReadRole string
	// ResultRole lets the agent write its result ConfigMap (default kubage-agent-result).
	ResultRole string
	// ClusterReadRole grants read of cluster-scoped kinds (default kubage-agent-cluster).
	ClusterReadRole string
	// Env is extra environment of the agent container (e.g. the operator's egress policy).
	Env map[string]string
	// Resources of the agent container (default requests 50m/64Mi, limits 500m/256Mi).
	Resources corev1.ResourceRequirements
	// DefaultDeadline is the Job's activeDeadlineSeconds when the session sets no deadline
	// (default 5m); a session deadline is clamped to [MinDeadline, MaxDeadline].
	DefaultDeadline time.Duration
	MinDeadline     time.Duration
	MaxDeadline     time.Duration
	// TTLAfterFinished lets the Job controller remove finished Jobs (default 1h).
	TTLAfterFinished time.Duration
	// StartTimeout is how long a pod may fail to start (image pull, config error) or a Job
	// fail to create its pod before the task counts as Failed (default 1m).
	StartTimeout time.Duration
	// KnowledgeURL is the operator's knowledge endpoint the agents search (see
	// internal/knowledge/remote); empty: task Jobs have no knowledge.
	KnowledgeURL string
}

// BindFlags registers the tuning options as flags (--agent-start-timeout, ...). Image and
// ServiceAccount come from the manager's own --agent-image and --agent-service-account.
func (o *JobOptions) BindFlags(fs *flag.FlagSet) {
	o.ManageAccess = true
	fs.BoolVar(&o.ManageAccess, "agent-manage-access", o.ManageAccess, "Create the agent ServiceAccount and its read-only bindings in session namespaces when missing (Job runner).")
	fs.StringVar((*string)(&o.ImagePullPolicy), "agent-image-pull-policy", string(corev1.PullIfNotPresent), "Pull policy of task Jobs.")
	fs.StringVar(&o.ReadRole, "agent-read-role", "kubage-agent", "ClusterRole bound (RoleBinding) to the agent in session namespaces: read-only.")
	fs.StringVar(&o.ResultRole, "agent-result-role", "kubage-agent-result", "ClusterRole bound (RoleBinding) to the agent in session namespaces: write result ConfigMaps.")
	fs.StringVar(&o.ClusterReadRole, "agent-cluster-read-role", "kubage-agent-cluster", "ClusterRole bound cluster-wide to each namespace's agent: read Nodes, PersistentVolumes, StorageClasses, CSIDrivers, IngressClasses, webhook configurations.")
	fs.DurationVar(&o.DefaultDeadline, "agent-job-deadline", 5*time.Minute, "activeDeadlineSeconds of a task Job when the session passes no deadline.")
	fs.DurationVar(&o.MaxDeadline, "agent-job-max-deadline", 15*time.Minute, "Upper bound of a task Job's activeDeadlineSeconds.")
	fs.DurationVar(&o.TTLAfterFinished, "agent-job-ttl", time.Hour, "ttlSecondsAfterFinished of task Jobs.")
	fs.DurationVar(&o.StartTimeout, "agent-start-timeout", time.Minute, "How long a task pod may fail to start (image pull, config) before its task fails.")
}

func (o JobOptions) withDefaults() JobOptions {
	if o.ImagePullPolicy == "" {
		o.ImagePullPolicy = corev1.PullIfNotPresent
	}
	if len(o.Command) == 0 {
		o.Command = []string{"/kubage", "agent", "task"}
	}
	if o.ServiceAccount == "" {
		o.ServiceAccount = "kubage-agent"
	}
	if o.ReadRole == "" {
		o.ReadRole = "kubage-agent"
	}
	if o.ResultRole == "" {
		o.ResultRole = "kubage-agent-result"
	}
	if o.ClusterReadRole == "" {
		o.ClusterReadRole = "kubage-agent-cluster"
	}
	if o.Resources.Requests == nil && o.Resources.Limits == nil {
		o.Resources = corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
		}
	}
	if o.MinDeadline <= 0 {
		o.MinDeadline = 30 * time.Second
	}
	if o.MaxDeadline <= 0 {
		o.MaxDeadline = 15 * time.Minute
	}
	if o.MaxDeadline < o.MinDeadline {
		o.MaxDeadline = o.MinDeadline
	}
	if o.DefaultDeadline <= 0 {
		o.DefaultDeadline = 5 * time.Minute
	}
	if o.TTLAfterFinished <= 0 {
		o.TTLAfterFinished = time.Hour
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = time.Minute
	}
	return o
}

// Job runs each task as a Kubernetes Job of the operator's image under the agent's
// ServiceAccount. The Job is named from (owner, run, task id), so Start is idempotent and
// survives operator restarts; the agent writes the result ConfigMap itself.
type Job struct {
	client kubernetes.Interface
	opts   JobOptions
	now    func() time.Time

	mu sync.Mutex
	// access remembers namespaces whose ServiceAccount and bindings exist (bounded).
	access map[string]time.Time
}

var (
	_ Runner = (*Job)(nil)
	_ Namer  = (*Job)(nil)
)

// TaskObjectName implements Namer: the Job of the task.
func (r *Job) TaskObjectName(owner Owner, taskID string) string { return JobName(owner, taskID) }

// accessRecheck is how long an ensured namespace is trusted before it is checked again.
const accessRecheck = 10 * time.Minute

// maxAccessCache bounds the namespaces remembered.
const maxAccessCache = 4096

// NewJob returns the Job runner.
func NewJob(cs kubernetes.Interface, opts JobOptions) *Job {
	return &Job{client: cs, opts: opts.withDefaults(), now: time.Now, access: map[string]time.Time{}}
}

type (
	deadlineKey  struct{}
	freshTaskKey struct{}
)

// WithFreshTask tells Start that the task was planned by the step that starts it, so no
// earlier attempt can have started it or left a result: Start need not look for one.
func WithFreshTask(ctx context.Context) context.Context {
	return context.WithValue(ctx, freshTaskKey{}, true)
}

func freshTask(ctx context.Context) bool {
	fresh, _ := ctx.Value(freshTaskKey{}).(bool)
	return fresh
}

// WithTaskDeadline tells Start when the session must be done; the Job's activeDeadlineSeconds
// follows from it (bounded). Without it Start uses the default deadline.
func WithTaskDeadline(ctx context.Context, deadline time.Time) context.Context {
	return context.WithValue(ctx, deadlineKey{}, deadline)
}

func taskDeadline(ctx context.Context) (time.Time, bool) {
	t, ok := ctx.Value(deadlineKey{}).(time.Time)
	return t, ok && !t.IsZero()
}

// JobName is the name of the Job of a task (run-specific, so a rerun never meets old Jobs).
func JobName(owner Owner, taskID string) string {
	if owner.Run != "" {
		return ObjectName(owner.Name, owner.Run+"-"+taskID)
	}
	return ObjectName(owner.Name, taskID)
}

// ErrRequestTooLarge is returned by Start for a request that does not fit in a Job.
var ErrRequestTooLarge = errors.New("task request too large for a Job")

// Start implements Runner: it creates the task's Job unless the task has a Job or a result.
func (r *Job) Start(ctx context.Context, owner Owner, req agent.TaskRequest) error {
	if err := owner.Validate(); err != nil {
		return err
	}
	if req.Task.ID == "" {
		return errors.New("task has no id")
	}
	if r.opts.Image == "" {
		return errors.New("the Job runner has no agent image: start the manager with --agent-image")
	}
	res, err := ReadResult(ctx, r.client, owner, req.Task.ID)
	if err != nil && !errors.Is(err, ErrMalformedResult) {
		return err
	}
	if res != nil || err != nil {
		// Done, or failed for good with a malformed result: Check reports which.
		return nil
	}
	jobs := r.client.BatchV1().Jobs(owner.Namespace)
	name := JobName(owner, req.Task.ID)
	if existing, err := jobs.Get(ctx, name, metav1.GetOptions{}); err == nil {
		if !owner.Owns(existing.OwnerReferences) || !jobFinished(existing) {
			return r.adopt(ctx, owner, existing)
		}
		// A finished Job without a result: the controller retries the task, so run it afresh.
		if err := r.deleteJob(ctx, existing); err != nil {
			return err
		}
	} else if !apierrors.IsNotFound(err) {
		return fmt.Errorf("reading Job %s/%s: %w", owner.Namespace, name, err)
	}
	job, err := r.jobFor(ctx, owner, req)
	if err != nil {
		return err
	}
	if r.opts.ManageAccess {
		if err := r.ensureAccess(ctx, owner.Namespace); err != nil {
			return err
		}
	}
	_, err = jobs.Create(ctx, job, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		existing, gerr := jobs.Get(ctx, name, metav1.GetOptions{})
		if gerr != nil {
			return fmt.Errorf("reading Job %s/%s: %w", owner.Namespace, name, gerr)
		}
		return r.adopt(ctx, owner, existing)
	}
	if err != nil {
		return fmt.Errorf("creating Job %s/%s: %w", owner.Namespace, name, err)
	}
	return nil
}

// adopt accepts an existing Job of this owner; a namesake of a deleted Troubleshoot is
// removed so the next Start can create ours.
func (r *Job) adopt(ctx context.Context, owner Owner, job *batchv1.Job) error {
	if owner.Owns(job.OwnerReferences) {
		return nil
	}
	if err := r.deleteJob(ctx, job); err != nil {
		return err
	}
	return fmt.Errorf("job %s/%s belongs to a previous Troubleshoot of that name and is being removed; retry", job.Namespace, job.Name)
}

// deleteJob deletes exactly this Job (UID precondition); its pods follow in the background.
func (r *Job) deleteJob(ctx context.Context, job *batchv1.Job) error {
	err := r.client.BatchV1().Jobs(job.Namespace).Delete(ctx, job.Name, metav1.DeleteOptions{
		PropagationPolicy: ptr.To(metav1.DeletePropagationBackground),
		Preconditions:     &metav1.Preconditions{UID: &job.UID},
	})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("deleting Job %s/%s: %w", job.Namespace, job.Name, err)
	}
	return nil
}

func jobFinished(job *batchv1.Job) bool {
	return jobCondition(job, batchv1.JobFailed) != nil || jobCondition(job, batchv1.JobComplete) != nil
}

// deadlineFor is the Job's activeDeadlineSeconds: the session's remaining time, bounded.
func (r *Job) deadlineFor(ctx context.Context) time.Duration {
	d := r.opts.DefaultDeadline
	if t, ok := taskDeadline(ctx); ok {
		d = t.Sub(r.now())
	}
	d = max(d, r.opts.MinDeadline)
	d = min(d, r.opts.MaxDeadline)
	return d.Truncate(time.Second)
}

// jobFor renders the task Job.
func (r *Job) jobFor(ctx context.Context, owner Owner, req agent.TaskRequest) (*batchv1.Job, error) {
	raw, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encoding task %s: %w", req.Task.ID, err)
	}
	if len(raw) > MaxJobRequestBytes {
		return nil, fmt.Errorf("%w: task %s is %d bytes, at most %d", ErrRequestTooLarge, req.Task.ID, len(raw), MaxJobRequestBytes)
	}
	deadline := r.deadlineFor(ctx)
	// The agent stops a little before the Job's deadline so it can still write an error result.
	agentTimeout := max(deadline-10*time.Second, deadline*3/4)

	lbls := owner.Labels()
	lbls[LabelTaskID] = req.Task.ID
	lbls[LabelComponent] = ComponentTask
	lbls[LabelAgent] = ComponentAgent
	ref := owner.Reference()
	ref.Controller, ref.BlockOwnerDeletion = ptr.To(true), ptr.To(true)

	env := []corev1.EnvVar{{Name: EnvTaskRequest, Value: string(raw)}}
	ownerEnv := owner.Env()
	keys := make([]string, 0, len(ownerEnv))
	for k := range ownerEnv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, corev1.EnvVar{Name: k, Value: ownerEnv[k]})
	}
	if r.opts.KnowledgeURL != "" {
		env = append(env, corev1.EnvVar{Name: EnvKnowledgeURL, Value: r.opts.KnowledgeURL})
	}
	env = append(env, clusterEnv(owner, req)...)
	extra := make([]string, 0, len(r.opts.Env))
	for k := range r.opts.Env {
		if _, taken := ownerEnv[k]; !taken && k != EnvTaskRequest && k != EnvKnowledgeURL && k != EnvClusterKubeConfig && k != EnvClusterContext {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		env = append(env, corev1.EnvVar{Name: k, Value: r.opts.Env[k]})
	}

	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name:            JobName(owner, req.Task.ID),
			Namespace:       owner.Namespace,
			Labels:          lbls,
			OwnerReferences: []metav1.OwnerReference{ref},
		},
		Spec: batchv1.JobSpec{
			BackoffLimit:            ptr.To[int32](1),
			ActiveDeadlineSeconds:   ptr.To(int64(deadline / time.Second)),
			TTLSecondsAfterFinished: ptr.To(int32(r.opts.TTLAfterFinished / time.Second)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: lbls},
				Spec: corev1.PodSpec{
					RestartPolicy:                 corev1.RestartPolicyNever,
					ServiceAccountName:            r.opts.ServiceAccount,
					AutomountServiceAccountToken:  ptr.To(true),
					EnableServiceLinks:            ptr.To(false),
					TerminationGracePeriodSeconds: ptr.To[int64](10),
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   ptr.To(true),
						RunAsUser:      ptr.To[int64](65532),
						RunAsGroup:     ptr.To[int64](65532),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []corev1.Container{{
						Name:            agentContainer,
						Image:           r.opts.Image,
						ImagePullPolicy: r.opts.ImagePullPolicy,
						Command:         append([]string(nil), r.opts.Command...),
						Args:            []string{"--timeout=" + agentTimeout.String()},
						Env:             env,
						EnvFrom:         modelEnvFrom(owner, req),
						Resources:       r.opts.Resources,
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: ptr.To(false),
							ReadOnlyRootFilesystem:   ptr.To(true),
							RunAsNonRoot:             ptr.To(true),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
						TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
					}},
				},
			},
		},
	}, nil
}

// modelEnvFrom hands the session's model Secret to the agent through the kubelet. Only a
// Secret of the session's namespace can be: a pod reads no other namespace's Secrets, so
// with an operator-wide model elsewhere the agent finds none and its tasks degrade to the
// rule engine. Optional, so a missing Secret degrades the same way instead of blocking the pod.
func modelEnvFrom(owner Owner, req agent.TaskRequest) []corev1.EnvFromSource {
	b := req.Session.Brain
	if b == nil || b.Model == nil || b.Model.Namespace != owner.Namespace {
		return nil
	}
	return []corev1.EnvFromSource{{
		Prefix:    EnvModelPrefix,
		SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: b.Model.Name}, Optional: ptr.To(true)},
	}}
}

// ModelSecretFromEnv returns the model Secret data the kubelet put in environ (as from
// os.Environ) with EnvModelPrefix; nil when there is none.
func ModelSecretFromEnv(environ []string) map[string][]byte {
	var data map[string][]byte
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(k, EnvModelPrefix) || len(k) == len(EnvModelPrefix) {
			continue
		}
		if data == nil {
			data = map[string][]byte{}
		}
		data[strings.TrimPrefix(k, EnvModelPrefix)] = []byte(v)
	}
	return data
}
