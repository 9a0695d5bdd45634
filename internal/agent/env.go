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

package agent

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubage/kubage/internal/tools"
)

// errTaskBudget stops an analyzer that reached its per-task tool-call cap.
var errTaskBudget = errors.New("per-task tool-call budget reached")

// env is what an analyzer works with during one task: the scoped client, a per-task
// cache, the evidence and findings being built, and the tool-call budget.
type env struct {
	c        *tools.Client
	s        Session
	task     Task
	hop      int
	now      time.Time
	since    time.Time
	until    time.Time
	res      *TaskResult
	cache    map[string]runtime.Object
	owners   map[string]ObjectRef
	calls    int
	maxCalls int
	nEv      int
	// lists memoizes whole-namespace lists within the task (Services, NetworkPolicies).
	lists map[string]any
	// inProvider is set while a provider's own logged error is followed (analyze_providerlog.go):
	// that walk does not read a further provider's log, so chains of clients stay bounded.
	inProvider bool
	// inWriter is set while the error of a container that writes a shared volume is followed
	// for the one that waits on it (analyze_volwriter.go), so the walk does not recurse.
	inWriter bool
	// nodes are the Nodes the task read, by name (a finding that names one may blame it).
	nodes map[string]*corev1.Node
	// reasons are the reasons Kubernetes reported behind each evidence id (reasons.go).
	reasons map[string][]string
	// known are the objects the task read, "kind/name" (summaryrefs.go).
	known map[string]bool
	// askedMemo is the object the session asks about, once askedDone (analyze_skips.go).
	askedMemo *askedObject
	askedDone bool
}

func (e *env) record(tool, args string, err error) error {
	e.calls++
	tc := ToolCall{Tool: tool, Args: clipString(args, 200)}
	if err != nil && !tools.IsNotFound(err) {
		tc.Error = clipString(err.Error(), 200)
	}
	if len(e.res.ToolCalls) < 100 {
		e.res.ToolCalls = append(e.res.ToolCalls, tc)
	}
	return err
}

func (e *env) budget() error {
	if e.calls >= e.maxCalls {
		return errTaskBudget
	}
	return nil
}

// get fetches an object once per task.
func (e *env) get(ctx context.Context, kind, name string) (runtime.Object, error) {
	key := strings.ToLower(kind) + "/" + name
	if o, ok := e.cache[key]; ok {
		if o == nil {
			k, _ := tools.ResolveKind(kind)
			ns := e.s.Namespace
			if k != nil && !k.Namespaced {
				ns = ""
			}
			kn := kind
			if k != nil {
				kn = k.Kind
			}
			return nil, &tools.NotFoundError{Kind: kn, Namespace: ns, Name: name}
		}
		return o, nil
	}
	if err := e.budget(); err != nil {
		return nil, err
	}
	o, _, err := e.c.Get(ctx, kind, name)
	_ = e.record("k8s_get", kind+"/"+name, err)
	if err != nil {
		if tools.IsNotFound(err) {
			e.cache[key] = nil
		}
		return nil, err
	}
	e.cache[key] = o
	e.noteKnown(kind, o)
	if n, ok := o.(*corev1.Node); ok {
		e.noteNodes(n)
	}
	return o, nil
}

func getAs[T runtime.Object](ctx context.Context, e *env, kind, name string) (T, error) {
	var zero T
	o, err := e.get(ctx, kind, name)
	if err != nil {
		return zero, err
	}
	t, ok := o.(T)
	if !ok {
		return zero, fmt.Errorf("unexpected %T for %s", o, kind)
	}
	return t, nil
}

func listAs[T runtime.Object](ctx context.Context, e *env, kind string, opts tools.ListOptions) ([]T, bool, error) {
	if err := e.budget(); err != nil {
		return nil, false, err
	}
	out, more, err := tools.ListAs[T](ctx, e.c, kind, opts)
	if ns, ok := any(out).([]*corev1.Node); ok {
		e.noteNodes(ns...)
	}
	noteKnownList(e, kind, out)
	args := kind
	if opts.LabelSelector != "" {
		args += " -l " + opts.LabelSelector
	}
	return out, more, e.record("k8s_list", args, err)
}

// listOnce lists a kind once per task: the namespace scan and the dependency walks read the
// same Services and NetworkPolicies, and each list is one API call.
func listOnce[T runtime.Object](ctx context.Context, e *env, kind string, max int) ([]T, error) {
	if l, ok := e.lists[kind].([]T); ok {
		return l, nil
	}
	l, _, err := listAs[T](ctx, e, kind, tools.ListOptions{Max: max})
	if err != nil {
		return nil, err
	}
	if e.lists == nil {
		e.lists = map[string]any{}
	}
	e.lists[kind] = l
	return l, nil
}

// events returns the object's deduplicated events within the session's time range.
func (e *env) events(ctx context.Context, kind, name string) []tools.EventGroup {
	if e.budget() != nil {
		return nil
	}
	g, _, err := e.c.Events(ctx, tools.EventQuery{Kind: kind, Name: name, Since: e.since, Until: e.until, Max: 30})
	_ = e.record("k8s_events", kind+"/"+name, err)
	return g
}

// nsWarnings returns the namespace's Warning events.
func (e *env) nsWarnings(ctx context.Context, max int) []tools.EventGroup {
	if e.budget() != nil {
		return nil
	}
	g, _, err := e.c.Events(ctx, tools.EventQuery{WarningsOnly: true, Since: e.since, Until: e.until, Max: max})
	_ = e.record("k8s_events", "namespace warnings", err)
	return g
}

func (e *env) logs(ctx context.Context, pod, container string, previous bool) tools.LogsResult {
	if e.budget() != nil {
		return tools.LogsResult{Note: "not fetched: task budget reached"}
	}
	// As many lines as the clue extractor weighs: the error line is often followed by a
	// stack trace, a banner or junk that would push it out of a shorter tail.
	lr, err := e.c.Logs(ctx, tools.LogsRequest{Pod: pod, Container: container, Previous: previous, TailLines: maxClueLines, MaxBytes: tools.MaxLogBytes, LineBytes: maxClueLineLen})
	_ = e.record("k8s_logs", fmt.Sprintf("%s/%s previous=%t", pod, container, previous), err)
	if err != nil {
		lr.Note = "logs unavailable: " + err.Error()
	}
	return lr
}

// evidence records one piece of evidence and returns its id.
func (e *env) evidence(summary string, src Source, data string) string {
	e.nEv++
	id := fmt.Sprintf("%s-e%d", strings.ToLower(e.task.ID), e.nEv)
	if src.Object != nil && src.Object.Namespace == "" && isNamespaced(src.Object.Kind) {
		o := *src.Object
		o.Namespace = e.s.Namespace
		src.Object = &o
	}
	if src.Object != nil {
		o := cleanRef(*src.Object)
		src.Object = &o
	}
	src.Query = tools.Sanitize(src.Query, 300, true)
	e.res.Evidence = append(e.res.Evidence, Evidence{
		ID: id, Summary: tools.Sanitize(summary, MaxEvidenceSummary, true), Source: src,
		Data: tools.Sanitize(data, MaxEvidenceData, false), TaskID: e.task.ID,
	})
	return id
}

func (e *env) objEvidence(ref ObjectRef, summary string) string {
	r := e.ref(ref.Kind, ref.Name)
	return e.evidence(summary, Source{Kind: SourceObject, Object: &r, Tool: "k8s_get"}, "")
}

func (e *env) eventEvidence(ref ObjectRef, g tools.EventGroup) string {
	r := e.ref(ref.Kind, ref.Name)
	id := e.evidence(fmt.Sprintf("%s event %s on %s (x%d): %s", g.Type, g.Reason, g.Object, g.Count, g.Message),
		Source{Kind: SourceEvent, Object: &r, Tool: "k8s_events"}, tools.EventLine(e.now, g))
	if g.Type != "Normal" {
		e.noteReason(id, g.Reason)
	}
	return id
}

// cleanRef bounds a reference built from untrusted text (names are at most 253 bytes
// in Kubernetes, kinds 63).
func cleanRef(r ObjectRef) ObjectRef {
	r.Kind = tools.Sanitize(r.Kind, 63, true)
	r.Namespace = tools.Sanitize(r.Namespace, 63, true)
	r.Name = tools.Sanitize(r.Name, 253, true)
	return r
}

func cleanRefs(rs []ObjectRef) []ObjectRef {
	for i := range rs {
		rs[i] = cleanRef(rs[i])
	}
	return rs
}

// ref builds a reference in the session namespace (cluster-scoped kinds get none).
func (e *env) ref(kind, name string) ObjectRef {
	r := cleanRef(ObjectRef{Kind: kind, Name: name})
	if isNamespaced(kind) {
		r.Namespace = e.s.Namespace
	}
	return r
}

func isNamespaced(kind string) bool {
	k, err := tools.ResolveKind(kind)
	if err != nil {
		return !clusterKinds[kind]
	}
	return k.Namespaced
}

// clusterKinds are cluster-scoped kinds the tools' kind table does not list.
var clusterKinds = map[string]bool{
	"PriorityClass": true, "ClusterRole": true, "ClusterRoleBinding": true, "IngressClass": true, "RuntimeClass": true,
	"CSIDriver": true, "StorageClass": true, "PersistentVolume": true, "Node": true, "Namespace": true,
}

// find records a rule match. Unknown rule ids are a programming error and panic in tests
// via the catalogue test; at run time they fall back to confidence 50.
func (e *env) find(f Finding) {
	r, ok := Catalogue[f.Rule]
	if f.Confidence == 0 {
		f.Confidence = 50
		if ok {
			f.Confidence = r.Confidence
		}
	}
	if f.Object.Namespace == "" && isNamespaced(f.Object.Kind) {
		f.Object.Namespace = e.s.Namespace
	}
	if f.Culprit.IsZero() {
		f.Culprit = f.Object
	}
	if f.Culprit.Namespace == "" && isNamespaced(f.Culprit.Kind) {
		f.Culprit.Namespace = e.s.Namespace
	}
	f.Affected = append(f.Affected, e.blamedNodes(f)...)
	f = e.withSummaryRefs(f)
	if rs := e.reasonsOf(f.Evidence); len(rs) > 0 {
		if f.Facts == nil {
			f.Facts = map[string]string{}
		}
		f.Facts["reasons"] = strings.Join(rs, ",")
	}
	f.Object, f.Culprit = cleanRef(f.Object), cleanRef(f.Culprit)
	f.Affected, f.Follow = cleanRefs(f.Affected), cleanRefs(f.Follow)
	f.Summary = tools.Sanitize(f.Summary, MaxRootSummary, true)
	f.Hop = e.hop
	for k, v := range f.Facts {
		f.Facts[k] = tools.Sanitize(v, 300, true)
	}
	e.res.Findings = append(e.res.Findings, f)
}

func (e *env) examine(ref ObjectRef) {
	ref = cleanRef(ref)
	if ref.Namespace == "" && isNamespaced(ref.Kind) {
		ref.Namespace = e.s.Namespace
	}
	for _, x := range e.res.Examined {
		if x.Key() == ref.Key() {
			return
		}
	}
	e.res.Examined = append(e.res.Examined, ref)
}

func (e *env) followUp(ref ObjectRef) {
	ref = cleanRef(ref)
	if ref.Namespace == "" && isNamespaced(ref.Kind) {
		ref.Namespace = e.s.Namespace
	}
	for _, x := range e.res.FollowUps {
		if x.Key() == ref.Key() {
			return
		}
	}
	if len(e.res.FollowUps) < 20 {
		e.res.FollowUps = append(e.res.FollowUps, ref)
	}
}

// workloadOf returns the top controller of a pod (Deployment, StatefulSet, DaemonSet,
// Job or CronJob), or the pod itself when it has none.
func (e *env) workloadOf(ctx context.Context, p *corev1.Pod) ObjectRef {
	if r, ok := e.owners[string(p.UID)+p.Name]; ok {
		return r
	}
	ref := e.ref("Pod", p.Name)
	var cur metav1.Object = p
	for depth := 0; depth < 4; depth++ {
		or := controllerOf(cur)
		if or == nil && ref.Kind == "Job" {
			// A run made from a CronJob by hand (kubectl create job --from, or a tool that
			// copies its template) may own-reference it without being controlled by it:
			// its spec is still the CronJob's, where a fix goes.
			or = ownerOfKind(cur, "CronJob")
		}
		if or == nil {
			break
		}
		if or.Kind != "ReplicaSet" && or.Kind != "Job" {
			ref = e.ref(or.Kind, or.Name)
			break
		}
		o, err := e.get(ctx, or.Kind, or.Name)
		if err != nil {
			// A missing ReplicaSet/Job still names the owner, which is better than the pod.
			ref = e.ref(or.Kind, or.Name)
			break
		}
		ref = e.ref(or.Kind, or.Name)
		m, ok := o.(metav1.Object)
		if !ok {
			break
		}
		cur = m
	}
	e.owners[string(p.UID)+p.Name] = ref
	return ref
}

// ownerOfKind returns m's first owner reference of the given kind, controller or not.
func ownerOfKind(m metav1.Object, kind string) *metav1.OwnerReference {
	refs := m.GetOwnerReferences()
	for i := range refs {
		if refs[i].Kind == kind {
			return &refs[i]
		}
	}
	return nil
}

func controllerOf(m metav1.Object) *metav1.OwnerReference {
	refs := m.GetOwnerReferences()
	for i := range refs {
		if refs[i].Controller != nil && *refs[i].Controller {
			return &refs[i]
		}
	}
	return nil
}

// baseFacts are the placeholders every remediation template may use.
func (e *env) baseFacts(culprit ObjectRef, extra map[string]string) map[string]string {
	f := map[string]string{
		"ns": e.s.Namespace, "name": culprit.Name, "kind": culprit.Kind,
		"resource": kubectlResource(culprit),
	}
	if k, err := tools.ResolveKind(culprit.Kind); err == nil {
		f["plural"] = k.Plural
	}
	for k, v := range extra {
		f[k] = v
	}
	return f
}

// sortedKeys returns the keys of m in order (a ConfigMap's data, a Secret's, a JSON record's).
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
