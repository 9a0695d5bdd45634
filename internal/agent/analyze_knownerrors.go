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
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// The one mechanism behind the catalogue of well-known errors (knownerrors.go): a container
// whose text carries an entry's signature (or that ended for an entry's reason) has the
// entry's settings looked up on itself and on the providers it is configured to call, the
// class's blame picks the object a user edits, and the summary says the mechanism with the
// values and numbers the cluster gives.

// knownText explains a container whose text carries a well-known error's signature.
func (pc *podCheck) knownText(ctx context.Context, d *depCheck) bool {
	if d.clue.known <= 0 || d.clue.known > len(knownErrors) {
		return false
	}
	// Several entries may share a signature ("Authentication failed"): the first whose
	// settings the cluster shows explains the line.
	low := strings.ToLower(d.clue.KnownLine)
	for i := d.clue.known - 1; i < len(knownErrors); i++ {
		k := &knownErrors[i]
		if i > d.clue.known-1 && !signMatches(k, low) {
			continue
		}
		if programMatches(k, d.spec) && pc.explainKnown(ctx, d, k, d.clue.KnownLine) {
			return true
		}
	}
	return false
}

func signMatches(k *knownError, low string) bool {
	for _, re := range knownSigns[k] {
		if re.MatchString(low) {
			return true
		}
	}
	return false
}

// knownState explains a container that ended for a reason an entry knows (OOMKilled).
func (pc *podCheck) knownState(ctx context.Context, cs corev1.ContainerStatus, spec corev1.Container, reason, symptom string) bool {
	for i := range knownErrors {
		k := &knownErrors[i]
		if containsStr(k.reasons, reason) && programMatches(k, spec) &&
			pc.explainKnown(ctx, &depCheck{pc: pc, cs: cs, spec: spec, symptom: symptom}, k, "") {
			return true
		}
	}
	return false
}

func programMatches(k *knownError, c corev1.Container) bool {
	re := knownProgram[k]
	return re == nil || re.MatchString(strings.ToLower(strings.Join(commandWords(c), " ")))
}

// knownProvider is a Service the consumer is configured to call, one backend and its settings.
type knownProvider struct {
	svc      *corev1.Service
	pod      *corev1.Pod
	wl       ObjectRef
	settings []configSetting
}

func (pc *podCheck) knownProviders(ctx context.Context, d *depCheck) []knownProvider {
	var out []knownProvider
	for _, s := range pc.configuredServices(ctx, d) {
		p := pc.backendOf(ctx, s)
		if p == nil || len(p.Spec.Containers) == 0 || len(out) >= 3 {
			continue
		}
		wl := pc.e.workloadOf(ctx, p)
		out = append(out, knownProvider{svc: s, pod: p, wl: wl, settings: pc.e.knownSettings(ctx, p, p.Spec.Containers[0], wl)})
	}
	// The servers the error itself names, when the settings naming them cannot be read (a
	// connection URL in a Secret): never the client's own Service.
	for _, s := range pc.namedServices(ctx, d) {
		if p := pc.backendOf(ctx, s); p != nil && len(p.Spec.Containers) > 0 && len(out) < 3 && !containsProvider(out, s) {
			wl := pc.e.workloadOf(ctx, p)
			out = append(out, knownProvider{svc: s, pod: p, wl: wl, settings: pc.e.knownSettings(ctx, p, p.Spec.Containers[0], wl)})
		}
	}
	return out
}

// namedServices are the Services of the namespace the clue names as hosts (not loosely),
// other than those selecting the client itself.
func (pc *podCheck) namedServices(ctx context.Context, d *depCheck) []*corev1.Service {
	svcs, err := listOnce[*corev1.Service](ctx, pc.e, "Service", maxServiceList)
	if err != nil {
		return nil
	}
	var out []*corev1.Service
	for _, h := range d.clue.Hosts {
		name, _, scope := classifyHost(h.Host, pc.e.s.Namespace)
		if h.Weak || scope != hostInNamespace {
			continue
		}
		for _, s := range svcs {
			if s.Name == name && len(s.Spec.Selector) > 0 && !pc.selectsSelf(s) {
				out = append(out, s)
			}
		}
	}
	return out
}

func containsProvider(l []knownProvider, s *corev1.Service) bool {
	for _, p := range l {
		if p.svc == s {
			return true
		}
	}
	return false
}

// knownFinding is what explainKnown has gathered for one entry.
type knownFinding struct {
	culprit ObjectRef
	key     string
	says    []string // sentences with the cluster's values and numbers
	extra   []ObjectRef
	conf    int
}

// explainKnown records entry k's finding for the container of d, or reports false when the
// cluster does not show what the entry's class needs to blame an object.
func (pc *podCheck) explainKnown(ctx context.Context, d *depCheck, k *knownError, line string) bool {
	cls := classOf(k)
	if cls == nil {
		return false
	}
	e := pc.e
	wl := e.workloadOf(ctx, pc.pod)
	own := e.knownSettings(ctx, pc.pod, d.spec, wl)
	for i := range k.unless {
		if _, c := firstMatch(k.unless[i:i+1], own); c != nil {
			return false
		}
	}
	provs := pc.knownProviders(ctx, d)
	var f *knownFinding
	switch cls.blame {
	case blameSetting:
		f = pc.blameBySetting(ctx, k, wl, own, provs)
	case blameWriters:
		f = pc.blameByWriters(ctx, d, wl)
	case blameProviderClaim:
		f = pc.blameByClaim(ctx, k, provs)
	case blameAddress:
		f = pc.blameByAddress(ctx, d, k, provs)
	}
	if f == nil || f.culprit.IsZero() {
		return false
	}
	if k.software == "Spring Boot" {
		if n, ref := pc.profileFilesNote(ctx, d); n != "" {
			f.says, f.extra = append([]string{n}, f.says...), append(f.extra, ref)
		}
	}
	if len(k.reasons) > 0 && f.key != "" && cls.blame == blameSetting && !strings.Contains(strings.Join(f.says, " "), "memory limit") {
		f.says = append(f.says, pc.resourceNumbers(ctx, f.key)...)
	}
	for i := range k.consumer {
		if _, c := firstMatch(k.consumer[i:i+1], own); c != nil && !strings.Contains(strings.Join(f.says, " "), c.say()) {
			f.says = append(f.says, "it sets "+c.say())
		}
	}
	if cls.memory {
		f.says = append(f.says, memoryNumbers(d.spec))
	}
	dd := *d
	if line != "" {
		dd.clue.Line = line
	}
	says := f.says
	summary := ""
	for {
		summary = fmt.Sprintf("%s: this is %s's well-known error: %s. %s. Fix: %s.",
			dd.opening(), k.software, k.mechanism, upperFirst(strings.Join(says, "; ")), k.fix)
		// The fix and the decisive setting must survive the clip (the culprit's name is put
		// before the summary): the quote shrinks to its signature first, then later sentences go.
		if len(summary) <= MaxRootSummary-len(f.culprit.Kind)-len(f.culprit.Name)-12 {
			break
		}
		if short := signAround(k, dd.clue.Line, 160); len(short) < len(dd.clue.Line) {
			dd.clue.Line = short
			continue
		}
		if len(says) <= 1 {
			break
		}
		says = says[:len(says)-1]
	}
	facts := map[string]string{"key": f.key, "sourceResource": kubectlResource(f.culprit), "software": k.software, "knownError": k.class}
	d.evIDs = append(d.evIDs, e.objEvidence(f.culprit, clipString(strings.Join(f.says, "; "), 300)))
	dd.evIDs = d.evIDs
	dd.report(ctx, cls.rule, f.conf, f.culprit, summary, nil, append([]ObjectRef{f.culprit}, f.extra...), facts)
	return true
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// blameByWriters blames the workload when several processes write a single-writer store.
func (pc *podCheck) blameByWriters(ctx context.Context, d *depCheck, wl ObjectRef) *knownFinding {
	replicas := pc.workloadReplicas(ctx, wl)
	var says []string
	var extra []ObjectRef
	shared := false
	for _, m := range d.spec.VolumeMounts {
		for _, v := range pc.pod.Spec.Volumes {
			if v.Name != m.Name || v.PersistentVolumeClaim == nil {
				continue
			}
			claim, err := getAs[*corev1.PersistentVolumeClaim](ctx, pc.e, "PersistentVolumeClaim", v.PersistentVolumeClaim.ClaimName)
			if err != nil {
				continue
			}
			modes := accessModesString(claim.Spec.AccessModes)
			size := claim.Status.Capacity[corev1.ResourceStorage]
			if size.IsZero() {
				size = claim.Spec.Resources.Requests[corev1.ResourceStorage]
			}
			rw := strings.Contains(modes, "ReadWriteMany")
			users := pc.claimUsers(ctx, claim.Name)
			if rw && (replicas > 1 || users > 1) {
				shared = true
			}
			says = append(says, fmt.Sprintf("its pods mount claim %s (%s, %s) at %s, used by %d pod(s)", claim.Name, modes, size.String(), m.MountPath, users))
			extra = append(extra, pc.e.ref("PersistentVolumeClaim", claim.Name))
		}
	}
	if replicas <= 1 && !shared {
		return nil
	}
	head := fmt.Sprintf("%s %s runs %d replicas, each a writer of the same database file", wl.Kind, wl.Name, replicas)
	if replicas <= 1 {
		head = fmt.Sprintf("%s %s shares its database file with other pods", wl.Kind, wl.Name)
	}
	return &knownFinding{culprit: wl, key: "replicas", says: append([]string{head}, says...), extra: extra}
}

// workloadReplicas is spec.replicas of a Deployment or StatefulSet (1 for anything else).
func (pc *podCheck) workloadReplicas(ctx context.Context, wl ObjectRef) int32 {
	switch wl.Kind {
	case "Deployment":
		if dep, err := getAs[*appsv1.Deployment](ctx, pc.e, "Deployment", wl.Name); err == nil && dep.Spec.Replicas != nil {
			return *dep.Spec.Replicas
		}
	case "StatefulSet":
		if s, err := getAs[*appsv1.StatefulSet](ctx, pc.e, "StatefulSet", wl.Name); err == nil && s.Spec.Replicas != nil {
			return *s.Spec.Replicas
		}
	}
	return 1
}

// claimUsers counts the namespace's pods that mount the claim.
func (pc *podCheck) claimUsers(ctx context.Context, claim string) int {
	pods, err := listOnce[*corev1.Pod](ctx, pc.e, "Pod", scanMaxObjects)
	if err != nil {
		return 1
	}
	n := 0
	for _, p := range pods {
		for _, v := range p.Spec.Volumes {
			if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == claim {
				n++
				break
			}
		}
	}
	return n
}

func accessModesString(m []corev1.PersistentVolumeAccessMode) string {
	out := make([]string, len(m))
	for i, x := range m {
		out[i] = string(x)
	}
	return strings.Join(out, ",")
}

// blameByClaim blames the claim the provider stores its data on (the pod's own when it is
// the server itself).
func (pc *podCheck) blameByClaim(ctx context.Context, k *knownError, provs []knownProvider) *knownFinding {
	type holder struct {
		pod      *corev1.Pod
		settings []configSetting
		lead     string
		extra    []ObjectRef
	}
	var hs []holder
	for _, p := range provs {
		hs = append(hs, holder{p.pod, p.settings, fmt.Sprintf("Service %s, which the client writes to, is served by %s %s", p.svc.Name, p.wl.Kind, p.wl.Name),
			[]ObjectRef{pc.e.ref("Service", p.svc.Name), p.wl}})
	}
	if len(hs) == 0 {
		wl := pc.e.workloadOf(ctx, pc.pod)
		hs = append(hs, holder{pc.pod, pc.e.knownSettings(ctx, pc.pod, pc.pod.Spec.Containers[0], wl), fmt.Sprintf("%s %s is the server", wl.Kind, wl.Name), nil})
	}
	for _, h := range hs {
		for _, c := range h.pod.Spec.Containers {
			for _, m := range c.VolumeMounts {
				for _, v := range h.pod.Spec.Volumes {
					if v.Name != m.Name || v.PersistentVolumeClaim == nil {
						continue
					}
					name := v.PersistentVolumeClaim.ClaimName
					size := "its size unknown"
					if claim, err := getAs[*corev1.PersistentVolumeClaim](ctx, pc.e, "PersistentVolumeClaim", name); err == nil {
						q := claim.Status.Capacity[corev1.ResourceStorage]
						if q.IsZero() {
							q = claim.Spec.Resources.Requests[corev1.ResourceStorage]
						}
						size = q.String()
					}
					why := classOf(k).claimSays
					if l := pc.e.storageLine(ctx, h.pod, c.Name); l != "" {
						// The server's own words decide between a full and an unwritable volume.
						why = "the server's own log says " + quoteLine(clipString(l, 160))
					}
					says := []string{fmt.Sprintf("%s, which stores its data on claim %s (%s) at %s: %s", h.lead, name, size, m.MountPath, why)}
					says = append(says, settingsSaid(k.provider, h.settings)...)
					ref := pc.e.ref("PersistentVolumeClaim", name)
					return &knownFinding{culprit: ref, key: "storage", says: says, extra: h.extra}
				}
			}
		}
	}
	return nil
}

// replicaWords mark a Service, or a label value, as a read replica; primaryWords as the writer.
var (
	replicaWords = map[string]bool{"replica": true, "replicas": true, "ro": true, "read": true, "reader": true, "readonly": true, "standby": true, "secondary": true, "slave": true, "follower": true}
	primaryWords = map[string]bool{"primary": true, "master": true, "rw": true, "writer": true, "leader": true, "main": true}
)

func nameWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == '-' || r == '_' || r == '.' })
}

func hasWord(s string, set map[string]bool) bool {
	for _, w := range nameWords(s) {
		if set[w] {
			return true
		}
	}
	return false
}

// replicaSign says why a Service looks like a read replica ("" when it does not).
func (pc *podCheck) replicaSign(ctx context.Context, k *knownError, s *corev1.Service) string {
	if hasWord(s.Name, replicaWords) {
		return "its name says so"
	}
	for _, key := range sortedKeys(s.Spec.Selector) {
		if hasWord(s.Spec.Selector[key], replicaWords) {
			return fmt.Sprintf("it selects pods labelled %s=%s", key, s.Spec.Selector[key])
		}
	}
	if p := pc.backendOf(ctx, s); p != nil && len(p.Spec.Containers) > 0 {
		for _, key := range sortedKeys(p.Labels) {
			if hasWord(p.Labels[key], replicaWords) {
				return fmt.Sprintf("its pods are labelled %s=%s", key, p.Labels[key])
			}
		}
		wl := pc.e.workloadOf(ctx, p)
		if _, c := firstMatch(k.provider, pc.e.knownSettings(ctx, p, p.Spec.Containers[0], wl)); c != nil {
			return "it runs with " + c.say()
		}
	}
	return ""
}

// signAround is the part of line around entry k's signature, at most width bytes.
func signAround(k *knownError, line string, width int) string {
	if len(line) <= width {
		return line
	}
	from := 0
	for _, re := range knownSigns[k] {
		if loc := re.FindStringIndex(strings.ToLower(line)); loc != nil {
			from = loc[0]
			break
		}
	}
	start := max(0, from-width/4)
	return strings.ToValidUTF8(strings.TrimSpace(line[start:min(len(line), start+width)]), "")
}
