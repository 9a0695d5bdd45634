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

package testcluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// The kubelet harness: kwok simulates every pod of the local cluster except KubAge's own (task
// Jobs and the Helm-deployed manager; hack/kwok/stages/pod.yaml skips them). Kubelet plays the
// node for those: it runs the pod's command as a local process of the real kubage binary and
// writes the pod status a kubelet would, so the real Job and Deployment controllers see it.

const (
	// AgentSelector selects the pods of task Jobs, which the harness runs by default.
	AgentSelector = "kubage.io/component=agent"
	// KubagePodsSelector selects every pod kwok leaves alone (hack/kwok/stages/pod.yaml): task
	// Jobs' and the manager's, as the Helm chart deploys it.
	KubagePodsSelector = "kubage.io/component in (agent,manager)"
	// EnvKubageBin names the kubage binary the harness runs; <repo>/bin/kubage when unset.
	EnvKubageBin = "KUBAGE_BIN"
	// kwokNodeAnnotation marks the nodes kwok manages (hack/cluster.sh).
	kwokNodeAnnotation = "kwok.x-k8s.io/node"
)

// Identity is the credential a pod's process gets in its KUBECONFIG.
type Identity string

const (
	// IdentityServiceAccount hands each process a token of its pod's ServiceAccount, bound to the
	// pod (TokenRequest), so RBAC applies exactly as in a real cluster.
	IdentityServiceAccount Identity = "ServiceAccount"
	// IdentityAdmin hands each process the harness's own credentials.
	IdentityAdmin Identity = "Admin"
)

// KubeletOptions configure StartKubelet. Client and RESTConfig are required.
type KubeletOptions struct {
	// Client watches and updates pods.
	Client kubernetes.Interface
	// RESTConfig gives the server address, CA and (IdentityAdmin) credentials for the processes.
	RESTConfig *rest.Config
	// Binary is the kubage binary; default $KUBAGE_BIN, else bin/kubage of the repository.
	Binary string
	// Selector is the label selector of the pods to run (default AgentSelector).
	Selector string
	// MaxConcurrent bounds the processes running at once (default 4); other pods wait Pending.
	MaxConcurrent int
	// Identity of the processes (default IdentityServiceAccount).
	Identity Identity
	// WorkDir holds per-pod working directories and kubeconfigs; a temporary one when empty
	// (removed by Stop).
	WorkDir string
	// MaxOutputBytes is how much of a process's output is kept (default 64 KiB).
	MaxOutputBytes int
	// PullBackOffDelay is how long ErrImagePull shows before ImagePullBackOff (default 2 s).
	PullBackOffDelay time.Duration
	// ImageMissing says an image cannot be pulled; default: the name contains "does-not-exist"
	// (the kwok convention of hack/kwok/README.md).
	ImageMissing func(image string) bool
	// Log receives one line per pod transition; discarded when nil.
	Log io.Writer
}

// PodRun is the record of one pod the harness handled.
type PodRun struct {
	Namespace string
	Name      string
	UID       types.UID
	// Args is the command line as run (argv[0] mapped to the kubage binary).
	Args []string
	// Phase is the pod phase the harness wrote last (Pending for pull and config failures).
	Phase corev1.PodPhase
	// Reason is Completed, Error, DeadlineExceeded, Deleted, ImagePullBackOff,
	// CreateContainerConfigError or StartError.
	Reason   string
	ExitCode int
	// Output is the tail of the process's combined stdout and stderr.
	Output   string
	Started  time.Time
	Finished time.Time
}

// maxRuns bounds the run history kept for Runs.
const maxRuns = 1000

type podKey struct {
	namespace, name string
	uid             types.UID
}

// process is a pod process; cancel stops it with a cause (also before it started).
type process struct {
	cancel  context.CancelCauseFunc
	started bool
}

var (
	errPodDeleted       = errors.New("pod deleted")
	errDeadlineExceeded = errors.New("pod active deadline exceeded")
)

// Kubelet runs agent pods as local processes. Create it with StartKubelet; Stop it.
type Kubelet struct {
	opts     KubeletOptions
	selector labels.Selector
	ctx      context.Context
	cancel   context.CancelFunc
	queue    *workqueue.Typed[podKey]
	wg       sync.WaitGroup
	tempDir  bool

	mu      sync.Mutex
	handled map[types.UID]bool
	running map[types.UID]*process
	kwok    map[string]bool
	runs    []PodRun
	adminKC string
	stopped bool
}

// StartKubelet starts watching pods and returns once the watch is synced.
func StartKubelet(ctx context.Context, opts KubeletOptions) (*Kubelet, error) {
	if opts.Client == nil || opts.RESTConfig == nil {
		return nil, errors.New("kubelet harness: Client and RESTConfig are required")
	}
	if opts.Binary == "" {
		opts.Binary = os.Getenv(EnvKubageBin)
	}
	if opts.Binary == "" {
		root, err := FindRepoRoot()
		if err != nil {
			return nil, fmt.Errorf("kubelet harness: no binary (set %s): %w", EnvKubageBin, err)
		}
		opts.Binary = filepath.Join(root, "bin", "kubage")
	}
	bin, err := filepath.Abs(opts.Binary)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(bin); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return nil, fmt.Errorf("kubelet harness: %s is not an executable (build it with make build, or set %s)", bin, EnvKubageBin)
	}
	opts.Binary = bin
	if opts.Selector == "" {
		opts.Selector = AgentSelector
	}
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = 4
	}
	if opts.Identity == "" {
		opts.Identity = IdentityServiceAccount
	}
	if opts.Identity != IdentityServiceAccount && opts.Identity != IdentityAdmin {
		return nil, fmt.Errorf("kubelet harness: identity %q is neither %s nor %s", opts.Identity, IdentityServiceAccount, IdentityAdmin)
	}
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = 64 << 10
	}
	if opts.PullBackOffDelay <= 0 {
		opts.PullBackOffDelay = 2 * time.Second
	}
	if opts.ImageMissing == nil {
		opts.ImageMissing = func(image string) bool { return strings.Contains(image, "does-not-exist") }
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	sel, err := labels.Parse(opts.Selector)
	if err != nil {
		return nil, fmt.Errorf("kubelet harness: selector %q: %w", opts.Selector, err)
	}
	k := &Kubelet{
		opts:     opts,
		selector: sel,
		handled:  map[types.UID]bool{},
		running:  map[types.UID]*process{},
		kwok:     map[string]bool{},
	}
	if opts.WorkDir == "" {
		dir, err := os.MkdirTemp("", "kubage-kubelet-")
		if err != nil {
			return nil, err
		}
		k.opts.WorkDir, k.tempDir = dir, true
	} else if err := os.MkdirAll(opts.WorkDir, 0o700); err != nil {
		return nil, err
	}
	k.ctx, k.cancel = context.WithCancel(context.Background())
	k.queue = workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[podKey]{Name: "kubage-kubelet-harness"})

	factory := informers.NewSharedInformerFactoryWithOptions(opts.Client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = opts.Selector }))
	inf := factory.Core().V1().Pods().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    k.onPod,
		UpdateFunc: func(_, obj any) { k.onPod(obj) },
		DeleteFunc: k.onDelete,
	}); err != nil {
		k.cancel()
		return nil, err
	}
	factory.Start(k.ctx.Done())
	syncCtx, syncCancel := context.WithTimeout(ctx, 30*time.Second)
	defer syncCancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), inf.HasSynced) {
		k.cancel()
		factory.Shutdown()
		return nil, errors.New("kubelet harness: pod watch did not sync")
	}
	for range opts.MaxConcurrent {
		k.wg.Add(1)
		go func() {
			defer k.wg.Done()
			for k.next() {
			}
		}()
	}
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		<-k.ctx.Done()
		k.queue.ShutDown()
		factory.Shutdown()
	}()
	k.logf("kubelet harness: running pods %q with %s (identity %s, %d at once)", opts.Selector, opts.Binary, opts.Identity, opts.MaxConcurrent)
	return k, nil
}

// Stop kills every running process, waits for all of them and for the workers, and removes a
// temporary work directory. Pods left running keep their last status.
func (k *Kubelet) Stop() error {
	if k == nil {
		return nil
	}
	k.mu.Lock()
	k.stopped = true
	k.mu.Unlock()
	k.cancel()
	k.wg.Wait()
	if k.tempDir {
		return os.RemoveAll(k.opts.WorkDir)
	}
	return nil
}

// Runs returns the pods handled so far (the last 1000), oldest first.
func (k *Kubelet) Runs() []PodRun {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]PodRun(nil), k.runs...)
}

// Active is the number of processes running now.
func (k *Kubelet) Active() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := 0
	for _, p := range k.running {
		if p.started {
			n++
		}
	}
	return n
}

func (k *Kubelet) logf(format string, args ...any) {
	fmt.Fprintf(k.opts.Log, time.Now().Format("15:04:05.000")+" "+format+"\n", args...)
}

func (k *Kubelet) onPod(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	if pod.DeletionTimestamp != nil {
		k.stopProcess(pod.UID, errPodDeleted)
		return
	}
	if pod.Spec.NodeName == "" || isTerminal(pod) || !k.selector.Matches(labels.Set(pod.Labels)) {
		return
	}
	k.mu.Lock()
	done := k.handled[pod.UID]
	k.mu.Unlock()
	if !done {
		k.queue.Add(podKey{namespace: pod.Namespace, name: pod.Name, uid: pod.UID})
	}
}

func (k *Kubelet) onDelete(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	k.stopProcess(pod.UID, errPodDeleted)
	k.mu.Lock()
	delete(k.handled, pod.UID)
	k.mu.Unlock()
}

func (k *Kubelet) stopProcess(uid types.UID, cause error) {
	k.mu.Lock()
	p := k.running[uid]
	k.mu.Unlock()
	if p != nil {
		p.cancel(cause)
	}
}

func (k *Kubelet) next() bool {
	key, quit := k.queue.Get()
	if quit {
		return false
	}
	defer k.queue.Done(key)
	k.handle(key)
	return true
}

func (k *Kubelet) record(r PodRun) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.runs = append(k.runs, r)
	if len(k.runs) > maxRuns {
		k.runs = append([]PodRun(nil), k.runs[len(k.runs)-maxRuns:]...)
	}
}

// handle plays a kubelet for one pod, from admission to a terminal (or stuck) status.
func (k *Kubelet) handle(key podKey) {
	ctx := k.ctx
	pod, err := k.opts.Client.CoreV1().Pods(key.namespace).Get(ctx, key.name, metav1.GetOptions{})
	if err != nil || pod.UID != key.uid || pod.DeletionTimestamp != nil || isTerminal(pod) || pod.Spec.NodeName == "" {
		return
	}
	k.mu.Lock()
	if k.handled[pod.UID] || k.stopped {
		k.mu.Unlock()
		return
	}
	k.mu.Unlock()
	if !k.isKwokNode(ctx, pod.Spec.NodeName) {
		return
	}
	k.mu.Lock()
	k.handled[pod.UID] = true
	k.mu.Unlock()

	run := PodRun{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID, Started: time.Now()}
	defer func() {
		run.Finished = time.Now()
		k.record(run)
	}()
	if len(pod.Spec.Containers) != 1 || len(pod.Spec.InitContainers) > 0 {
		run.Phase, run.Reason, run.ExitCode = corev1.PodFailed, "StartError", 128
		run.Output = "the kubelet harness runs pods with exactly one container and no init containers"
		k.terminate(ctx, pod, run)
		return
	}
	c := pod.Spec.Containers[0]
	if k.opts.ImageMissing(c.Image) {
		run.Phase, run.Reason = corev1.PodPending, "ImagePullBackOff"
		k.pullFailure(ctx, pod, c)
		return
	}
	env, err := k.containerEnv(ctx, pod, c)
	if err != nil {
		run.Phase, run.Reason, run.Output = corev1.PodPending, "CreateContainerConfigError", err.Error()
		k.configError(ctx, pod, c, err)
		return
	}
	argv := expandArgs(append(append([]string(nil), c.Command...), c.Args...), env)
	if len(argv) == 0 || filepath.Base(argv[0]) != "kubage" {
		run.Phase, run.Reason, run.ExitCode = corev1.PodFailed, "StartError", 128
		run.Output = fmt.Sprintf("the kubelet harness only runs the kubage binary, not %q (set the container command)", strings.Join(argv, " "))
		k.terminate(ctx, pod, run)
		return
	}
	argv[0] = k.opts.Binary
	scratch := filepath.Join(k.opts.WorkDir, "emptydir", string(pod.UID))
	argv = mapEmptyDirs(pod, c, argv, scratch)
	defer func() { _ = os.RemoveAll(scratch) }()
	run.Args = argv
	kubeconfig, err := k.kubeconfigFor(ctx, pod)
	if err != nil {
		run.Phase, run.Reason, run.Output = corev1.PodPending, "CreateContainerConfigError", err.Error()
		k.configError(ctx, pod, c, err)
		return
	}
	env = append(env, "KUBECONFIG="+kubeconfig)

	started, err := k.markRunning(ctx, pod)
	if err != nil {
		// The pod went away or the cluster did; nothing to run for.
		k.logf("pod %s/%s: not started: %v", pod.Namespace, pod.Name, err)
		run.Phase, run.Reason, run.Output = corev1.PodPending, "Deleted", err.Error()
		return
	}
	k.execute(pod, started, argv, env, &run)
	if k.ctx.Err() != nil {
		// Stopping: the cluster may be gone too; leave the pod as it is.
		return
	}
	k.terminate(context.Background(), pod, run)
}

// isKwokNode caches whether a node is one kwok plays (so the harness never races a real kubelet).
func (k *Kubelet) isKwokNode(ctx context.Context, name string) bool {
	k.mu.Lock()
	v, ok := k.kwok[name]
	k.mu.Unlock()
	if ok {
		return v
	}
	node, err := k.opts.Client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return false
	}
	v = node.Annotations[kwokNodeAnnotation] == "fake"
	k.mu.Lock()
	k.kwok[name] = v
	k.mu.Unlock()
	return v
}

func isTerminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

func isNotFound(err error) bool { return apierrors.IsNotFound(err) }

// mapEmptyDirs gives each emptyDir the container mounts a directory of its own under
// scratch (the pod's, removed when it ends) and points the arguments that name a path
// under the mount there: the process runs on the host, where the mount path may be
// shared with other pods or not writable.
func mapEmptyDirs(pod *corev1.Pod, c corev1.Container, argv []string, scratch string) []string {
	empty := map[string]bool{}
	for _, v := range pod.Spec.Volumes {
		if v.EmptyDir != nil {
			empty[v.Name] = true
		}
	}
	out := append([]string(nil), argv...)
	for _, m := range c.VolumeMounts {
		if !empty[m.Name] || m.MountPath == "/" || m.MountPath == "" {
			continue
		}
		host := filepath.Join(scratch, m.Name)
		for i, a := range out {
			if name, v, ok := strings.Cut(a, "="); ok && (v == m.MountPath || strings.HasPrefix(v, strings.TrimSuffix(m.MountPath, "/")+"/")) {
				out[i] = name + "=" + host + strings.TrimPrefix(v, strings.TrimSuffix(m.MountPath, "/"))
			}
		}
	}
	return out
}
