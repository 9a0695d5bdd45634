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
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
)

const (
	// maxGrace bounds the SIGTERM→SIGKILL grace of a stopped process.
	maxGrace = 5 * time.Second
	// maxTerminationMessage is the kubelet's limit for a termination message.
	maxTerminationMessage = 4096
	// tokenSeconds is the lifetime of the ServiceAccount token handed to a process.
	tokenSeconds = 3600
)

// containerEnv resolves the container's environment like a kubelet: literal values with $(VAR)
// references, fieldRef of the common pod fields, ConfigMap and Secret keys, envFrom.
func (k *Kubelet) containerEnv(ctx context.Context, pod *corev1.Pod, c corev1.Container) ([]string, error) {
	vars := map[string]string{}
	var order []string
	set := func(name, value string) {
		if _, ok := vars[name]; !ok {
			order = append(order, name)
		}
		vars[name] = value
	}
	core := k.opts.Client.CoreV1()
	for _, from := range c.EnvFrom {
		var data map[string]string
		switch {
		case from.ConfigMapRef != nil:
			cm, err := core.ConfigMaps(pod.Namespace).Get(ctx, from.ConfigMapRef.Name, metav1.GetOptions{})
			if err != nil {
				if isNotFound(err) && ptr.Deref(from.ConfigMapRef.Optional, false) {
					continue
				}
				return nil, fmt.Errorf("configmap %q not found: %w", from.ConfigMapRef.Name, err)
			}
			data = cm.Data
		case from.SecretRef != nil:
			s, err := core.Secrets(pod.Namespace).Get(ctx, from.SecretRef.Name, metav1.GetOptions{})
			if err != nil {
				if isNotFound(err) && ptr.Deref(from.SecretRef.Optional, false) {
					continue
				}
				return nil, fmt.Errorf("secret %q not found: %w", from.SecretRef.Name, err)
			}
			data = map[string]string{}
			for key, v := range s.Data {
				data[key] = string(v)
			}
		}
		keys := make([]string, 0, len(data))
		for key := range data {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		for _, key := range keys {
			if len(validation.IsEnvVarName(from.Prefix+key)) == 0 {
				set(from.Prefix+key, data[key])
			}
		}
	}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			set(e.Name, expandRefs(e.Value, vars))
			continue
		}
		v, skip, err := k.valueFrom(ctx, pod, e)
		if err != nil {
			return nil, err
		}
		if !skip {
			set(e.Name, v)
		}
	}
	// The process sees the pod's environment only, plus what a Go binary needs to run.
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + k.opts.WorkDir}
	for _, name := range order {
		env = append(env, name+"="+vars[name])
	}
	return env, nil
}

// valueFrom resolves one env.valueFrom; skip is true for a missing optional key.
func (k *Kubelet) valueFrom(ctx context.Context, pod *corev1.Pod, e corev1.EnvVar) (string, bool, error) {
	core := k.opts.Client.CoreV1()
	src := e.ValueFrom
	switch {
	case src.FieldRef != nil:
		v, err := podField(pod, src.FieldRef.FieldPath)
		return v, false, err
	case src.ConfigMapKeyRef != nil:
		ref := src.ConfigMapKeyRef
		cm, err := core.ConfigMaps(pod.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil {
			if isNotFound(err) && ptr.Deref(ref.Optional, false) {
				return "", true, nil
			}
			return "", false, fmt.Errorf("configmap %q not found: %w", ref.Name, err)
		}
		v, ok := cm.Data[ref.Key]
		if !ok {
			if ptr.Deref(ref.Optional, false) {
				return "", true, nil
			}
			return "", false, fmt.Errorf("couldn't find key %s in ConfigMap %s/%s", ref.Key, pod.Namespace, ref.Name)
		}
		return v, false, nil
	case src.SecretKeyRef != nil:
		ref := src.SecretKeyRef
		s, err := core.Secrets(pod.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil {
			if isNotFound(err) && ptr.Deref(ref.Optional, false) {
				return "", true, nil
			}
			return "", false, fmt.Errorf("secret %q not found: %w", ref.Name, err)
		}
		v, ok := s.Data[ref.Key]
		if !ok {
			if ptr.Deref(ref.Optional, false) {
				return "", true, nil
			}
			return "", false, fmt.Errorf("couldn't find key %s in Secret %s/%s", ref.Key, pod.Namespace, ref.Name)
		}
		return string(v), false, nil
	}
	return "", false, fmt.Errorf("env %s: the kubelet harness does not support this valueFrom", e.Name)
}

// podField resolves a downward-API fieldPath.
func podField(pod *corev1.Pod, path string) (string, error) {
	switch path {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.uid":
		return string(pod.UID), nil
	case "spec.nodeName":
		return pod.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, nil
	case "status.hostIP":
		return pod.Status.HostIP, nil
	case "status.podIP":
		return pod.Status.PodIP, nil
	}
	for prefix, m := range map[string]map[string]string{"metadata.labels": pod.Labels, "metadata.annotations": pod.Annotations} {
		if rest, ok := strings.CutPrefix(path, prefix+"['"); ok && strings.HasSuffix(rest, "']") {
			return m[strings.TrimSuffix(rest, "']")], nil
		}
	}
	return "", fmt.Errorf("fieldPath %q is not supported by the kubelet harness", path)
}

// expandRefs replaces $(VAR) with earlier variables, $$(VAR) with a literal $(VAR), and leaves
// unknown references as they are (the kubelet's rules).
func expandRefs(s string, vars map[string]string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
			continue
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				b.WriteByte('$')
				continue
			}
			name := s[i+2 : i+2+end]
			if v, ok := vars[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(s[i : i+3+end])
			}
			i += 2 + end
			continue
		}
		b.WriteByte('$')
	}
	return b.String()
}

func expandArgs(args []string, env []string) []string {
	vars := map[string]string{}
	for _, kv := range env {
		if name, v, ok := strings.Cut(kv, "="); ok {
			vars[name] = v
		}
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = expandRefs(a, vars)
	}
	return out
}

// kubeconfigFor writes the kubeconfig the pod's process uses and returns its path.
func (k *Kubelet) kubeconfigFor(ctx context.Context, pod *corev1.Pod) (string, error) {
	if k.opts.Identity == IdentityAdmin {
		k.mu.Lock()
		defer k.mu.Unlock()
		if k.adminKC == "" {
			path := filepath.Join(k.opts.WorkDir, "admin.kubeconfig")
			if err := writeKubeconfig(path, k.opts.RESTConfig, ""); err != nil {
				return "", err
			}
			k.adminKC = path
		}
		return k.adminKC, nil
	}
	sa := pod.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	tr, err := k.opts.Client.CoreV1().ServiceAccounts(pod.Namespace).CreateToken(ctx, sa, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{
			ExpirationSeconds: ptr.To[int64](tokenSeconds),
			BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("token of serviceaccount %s/%s: %w", pod.Namespace, sa, err)
	}
	if tr.Status.Token == "" {
		return "", fmt.Errorf("token of serviceaccount %s/%s is empty", pod.Namespace, sa)
	}
	dir := filepath.Join(k.opts.WorkDir, string(pod.UID))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "kubeconfig")
	return path, writeKubeconfig(path, k.opts.RESTConfig, tr.Status.Token)
}

// writeKubeconfig writes cfg's server and CA with either token or cfg's own credentials.
func writeKubeconfig(path string, cfg *rest.Config, token string) error {
	cluster := &clientcmdapi.Cluster{
		Server:                   cfg.Host,
		CertificateAuthority:     cfg.CAFile,
		CertificateAuthorityData: cfg.CAData,
		InsecureSkipTLSVerify:    cfg.Insecure,
		TLSServerName:            cfg.ServerName,
	}
	user := &clientcmdapi.AuthInfo{Token: token}
	if token == "" {
		user = &clientcmdapi.AuthInfo{
			Token:                 cfg.BearerToken,
			TokenFile:             cfg.BearerTokenFile,
			ClientCertificate:     cfg.CertFile,
			ClientCertificateData: cfg.CertData,
			ClientKey:             cfg.KeyFile,
			ClientKeyData:         cfg.KeyData,
		}
	}
	kc := clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"local": cluster},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{"pod": user},
		Contexts:       map[string]*clientcmdapi.Context{"pod": {Cluster: "local", AuthInfo: "pod"}},
		CurrentContext: "pod",
	}
	return clientcmd.WriteToFile(kc, path)
}

// updateStatus applies mutate to a fresh copy of the pod and writes its status.
func (k *Kubelet) updateStatus(ctx context.Context, pod *corev1.Pod, mutate func(*corev1.PodStatus)) error {
	pods := k.opts.Client.CoreV1().Pods(pod.Namespace)
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		cur, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cur.UID != pod.UID {
			return fmt.Errorf("pod %s/%s was replaced", pod.Namespace, pod.Name)
		}
		mutate(&cur.Status)
		_, err = pods.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		return err
	})
}

func setCondition(st *corev1.PodStatus, t corev1.PodConditionType, status corev1.ConditionStatus, reason, message string) {
	now := metav1.Now()
	for i := range st.Conditions {
		c := &st.Conditions[i]
		if c.Type != t {
			continue
		}
		if c.Status != status {
			c.LastTransitionTime = now
		}
		c.Status, c.Reason, c.Message = status, reason, message
		return
	}
	st.Conditions = append(st.Conditions, corev1.PodCondition{Type: t, Status: status, Reason: reason, Message: message, LastTransitionTime: now})
}

// admitted writes what a kubelet writes once it accepted the pod: start time, host IP, the
// sandbox and init conditions.
func (k *Kubelet) admitted(ctx context.Context, st *corev1.PodStatus, pod *corev1.Pod) {
	if st.StartTime == nil {
		st.StartTime = ptr.To(metav1.Now())
	}
	if st.HostIP == "" {
		if node, err := k.opts.Client.CoreV1().Nodes().Get(ctx, pod.Spec.NodeName, metav1.GetOptions{}); err == nil {
			for _, a := range node.Status.Addresses {
				if a.Type == corev1.NodeInternalIP {
					st.HostIP, st.HostIPs = a.Address, []corev1.HostIP{{IP: a.Address}}
					break
				}
			}
		}
	}
	setCondition(st, corev1.PodReadyToStartContainers, corev1.ConditionTrue, "", "")
	setCondition(st, corev1.PodInitialized, corev1.ConditionTrue, "", "")
}

func containerID(pod *corev1.Pod) string { return "harness://" + string(pod.UID) }

// markRunning writes the Running status and returns the container's start time.
func (k *Kubelet) markRunning(ctx context.Context, pod *corev1.Pod) (time.Time, error) {
	started := metav1.Now()
	c := pod.Spec.Containers[0]
	err := k.updateStatus(ctx, pod, func(st *corev1.PodStatus) {
		k.admitted(ctx, st, pod)
		st.Phase = corev1.PodRunning
		setCondition(st, corev1.ContainersReady, corev1.ConditionTrue, "", "")
		setCondition(st, corev1.PodReady, corev1.ConditionTrue, "", "")
		st.ContainerStatuses = []corev1.ContainerStatus{{
			Name: c.Name, Image: c.Image, ImageID: "harness://" + c.Image, ContainerID: containerID(pod),
			Ready: true, Started: ptr.To(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}},
		}}
	})
	if err != nil {
		return time.Time{}, err
	}
	k.logf("pod %s/%s: running %s", pod.Namespace, pod.Name, strings.Join(append(c.Command, c.Args...), " "))
	return started.Time, nil
}

// execute runs the process until it exits, its pod is deleted, its active deadline passes or
// the harness stops, and fills run's exit code, reason and output.
func (k *Kubelet) execute(pod *corev1.Pod, started time.Time, argv, env []string, run *PodRun) {
	ctx, cancel := context.WithCancelCause(k.ctx)
	defer cancel(nil)
	if ads := pod.Spec.ActiveDeadlineSeconds; ads != nil {
		start := started
		if pod.Status.StartTime != nil {
			start = pod.Status.StartTime.Time
		}
		timer := time.AfterFunc(time.Until(start.Add(time.Duration(*ads)*time.Second)), func() { cancel(errDeadlineExceeded) })
		defer timer.Stop()
	}
	k.mu.Lock()
	if k.stopped {
		k.mu.Unlock()
		return
	}
	proc := &process{cancel: cancel}
	k.running[pod.UID] = proc
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		delete(k.running, pod.UID)
		k.mu.Unlock()
	}()

	dir := filepath.Join(k.opts.WorkDir, string(pod.UID))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		run.Phase, run.Reason, run.ExitCode, run.Output = corev1.PodFailed, "StartError", 128, err.Error()
		return
	}
	out := newTail(k.opts.MaxOutputBytes)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = env, dir, out, out
	// Own process group, killed with us if we die, so no process outlives the harness.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	grace := maxGrace
	if g := pod.Spec.TerminationGracePeriodSeconds; g != nil && time.Duration(*g)*time.Second < grace {
		grace = time.Duration(*g) * time.Second
	}
	cmd.WaitDelay = grace
	err := cmd.Start()
	if err == nil {
		k.mu.Lock()
		proc.started = true
		k.mu.Unlock()
		err = cmd.Wait()
	}
	if cmd.Process != nil {
		// Whatever the leader left behind in its group goes too.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	run.Output = out.String()
	run.ExitCode = exitCode(cmd, err)
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errDeadlineExceeded):
		run.Phase, run.Reason = corev1.PodFailed, "DeadlineExceeded"
	case errors.Is(cause, errPodDeleted):
		run.Phase, run.Reason = corev1.PodFailed, "Deleted"
	case cmd.ProcessState == nil:
		run.Phase, run.Reason, run.ExitCode = corev1.PodFailed, "StartError", 128
		run.Output = fmt.Sprintf("starting %s: %v", argv[0], err)
	case run.ExitCode == 0:
		run.Phase, run.Reason = corev1.PodSucceeded, "Completed"
	default:
		run.Phase, run.Reason = corev1.PodFailed, "Error"
	}
	k.logf("pod %s/%s: %s (exit %d) after %s", pod.Namespace, pod.Name, run.Reason, run.ExitCode, time.Since(started).Round(time.Millisecond))
	if run.Phase == corev1.PodFailed && run.Output != "" {
		k.logf("pod %s/%s output tail:\n%s", pod.Namespace, pod.Name, lastBytes(run.Output, 2048))
	}
}

func exitCode(cmd *exec.Cmd, err error) int {
	if cmd.ProcessState == nil {
		return 128
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	if code := cmd.ProcessState.ExitCode(); code >= 0 {
		return code
	}
	if err != nil {
		return 1
	}
	return 0
}

// terminate writes the terminal pod status for run (Succeeded or Failed).
func (k *Kubelet) terminate(ctx context.Context, pod *corev1.Pod, run PodRun) {
	c := pod.Spec.Containers[0]
	now := metav1.Now()
	startedAt := metav1.NewTime(run.Started)
	reason := run.Reason
	if reason == "Deleted" || reason == "DeadlineExceeded" {
		reason = "Error"
	}
	message := ""
	if run.Phase == corev1.PodFailed {
		message = lastBytes(run.Output, maxTerminationMessage)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err := k.updateStatus(ctx, pod, func(st *corev1.PodStatus) {
		k.admitted(ctx, st, pod)
		st.Phase = run.Phase
		setCondition(st, corev1.ContainersReady, corev1.ConditionFalse, "PodCompleted", "")
		setCondition(st, corev1.PodReady, corev1.ConditionFalse, "PodCompleted", "")
		if run.Reason == "DeadlineExceeded" {
			st.Reason, st.Message = "DeadlineExceeded", "Pod was active on the node longer than the specified deadline"
		}
		st.ContainerStatuses = []corev1.ContainerStatus{{
			Name: c.Name, Image: c.Image, ImageID: "harness://" + c.Image, ContainerID: containerID(pod),
			Started: ptr.To(false),
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: int32(run.ExitCode), Reason: reason, Message: message,
				StartedAt: startedAt, FinishedAt: now, ContainerID: containerID(pod),
			}},
		}}
	})
	if err != nil && !isNotFound(err) {
		k.logf("pod %s/%s: writing terminal status: %v", pod.Namespace, pod.Name, err)
	}
}

// pullFailure shows ErrImagePull, then ImagePullBackOff, with the kubelet's event; the pod stays
// Pending until something deletes it (the Job's deadline, or its owner).
func (k *Kubelet) pullFailure(ctx context.Context, pod *corev1.Pod, c corev1.Container) {
	msg := fmt.Sprintf("rpc error: code = NotFound desc = failed to pull and unpack image %q: not found", c.Image)
	waiting := func(reason, message string) func(*corev1.PodStatus) {
		return func(st *corev1.PodStatus) {
			k.admitted(ctx, st, pod)
			st.Phase = corev1.PodPending
			setCondition(st, corev1.ContainersReady, corev1.ConditionFalse, "ContainersNotReady", "containers with unready status: ["+c.Name+"]")
			setCondition(st, corev1.PodReady, corev1.ConditionFalse, "ContainersNotReady", "containers with unready status: ["+c.Name+"]")
			st.ContainerStatuses = []corev1.ContainerStatus{{
				Name: c.Name, Image: c.Image, Started: ptr.To(false),
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}},
			}}
		}
	}
	if err := k.updateStatus(ctx, pod, waiting("ErrImagePull", msg)); err != nil {
		return
	}
	k.event(ctx, pod, c, corev1.EventTypeWarning, "Failed", fmt.Sprintf("Failed to pull image %q: %s", c.Image, msg))
	k.logf("pod %s/%s: ErrImagePull %s", pod.Namespace, pod.Name, c.Image)
	select {
	case <-ctx.Done():
		return
	case <-time.After(k.opts.PullBackOffDelay):
	}
	backoff := fmt.Sprintf("Back-off pulling image %q: ErrImagePull: %s", c.Image, msg)
	if err := k.updateStatus(ctx, pod, waiting("ImagePullBackOff", backoff)); err != nil {
		return
	}
	k.event(ctx, pod, c, corev1.EventTypeNormal, "BackOff", backoff)
}

// configError shows CreateContainerConfigError, as a kubelet does for a missing ConfigMap or
// Secret (or, here, a ServiceAccount token it could not get).
func (k *Kubelet) configError(ctx context.Context, pod *corev1.Pod, c corev1.Container, cause error) {
	_ = k.updateStatus(ctx, pod, func(st *corev1.PodStatus) {
		k.admitted(ctx, st, pod)
		st.Phase = corev1.PodPending
		st.ContainerStatuses = []corev1.ContainerStatus{{
			Name: c.Name, Image: c.Image, Started: ptr.To(false),
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CreateContainerConfigError", Message: cause.Error()}},
		}}
	})
	k.event(ctx, pod, c, corev1.EventTypeWarning, "Failed", "Error: "+cause.Error())
	k.logf("pod %s/%s: CreateContainerConfigError: %v", pod.Namespace, pod.Name, cause)
}

func (k *Kubelet) event(ctx context.Context, pod *corev1.Pod, c corev1.Container, typ, reason, message string) {
	now := metav1.Now()
	_, _ = k.opts.Client.CoreV1().Events(pod.Namespace).Create(ctx, &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s.%s.%d", pod.Name, strings.ToLower(reason), now.UnixNano())},
		InvolvedObject: corev1.ObjectReference{
			Kind: "Pod", APIVersion: "v1", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID,
			FieldPath: "spec.containers{" + c.Name + "}",
		},
		Type: typ, Reason: reason, Message: lastBytes(message, 1024),
		Source:         corev1.EventSource{Component: "kubelet", Host: pod.Spec.NodeName},
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
	}, metav1.CreateOptions{})
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

func lastBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
