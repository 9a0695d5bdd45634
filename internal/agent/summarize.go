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
	"sort"
	"strings"

	"github.com/kubage/kubage/internal/tools"
)

// candidate is a merged finding with the chain that leads to it.
type candidate struct {
	Finding
	chain   []string
	path    string // "Pod/a → Service/b → Secret/c" when the cause is hops away
	symptom string // the summary of the finding at the start of the path
	victim  bool   // explains a failing pod or workload
	// objects are the Objects of every finding merged into this one (the same rule and
	// culprit seen from several pods): a follow-up naming any of them points here.
	objects []ObjectRef
}

// Summarize implements Summarizer: merge findings, drop those explained by a deeper
// finding on an object they pointed at, rank the rest by rule confidence (deeper first on
// ties), and write the top one up with its rule's remediation.
func (r *RuleEngine) Summarize(_ context.Context, s Session, p Progress) (Conclusion, error) {
	evidence := map[string]Evidence{}
	var cands []*candidate
	byKey := map[string]*candidate{}
	var errs []string
	examined := 0
	for _, res := range p.Results {
		for _, ev := range res.Evidence {
			evidence[ev.ID] = ev
		}
		if res.Error != "" && len(errs) < 3 {
			errs = append(errs, res.Error)
		}
		examined += len(res.Examined)
		for _, f := range res.Findings {
			key := f.Rule + "|" + f.Culprit.Key()
			if c, ok := byKey[key]; ok {
				c.objects = mergeRefs(c.objects, []ObjectRef{f.Object})
				c.Affected = mergeRefs(c.Affected, append([]ObjectRef{f.Object}, f.Affected...))
				c.Evidence = mergeStrings(c.Evidence, f.Evidence)
				c.Follow = mergeRefs(c.Follow, f.Follow)
				c.Sources = mergeRefs(c.Sources, f.Sources)
				if f.Hop > c.Hop {
					c.Hop = f.Hop
				}
				if f.Confidence > c.Confidence {
					c.Confidence = f.Confidence
				}
				// The same cause seen on a pod says what the kubelet reports (its waiting
				// reason, its events); a workload's template check only says the name dangles.
				if f.Object.Kind == "Pod" && c.Object.Kind != "Pod" && f.Culprit.Kind != "Pod" && f.Summary != "" {
					c.Summary = f.Summary
				}
				continue
			}
			c := &candidate{Finding: f, objects: []ObjectRef{f.Object}}
			c.Facts = copyFacts(f.Facts)
			byKey[key] = c
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return noFinding(s, p, examined, errs), nil
	}
	g := buildExplainGraph(cands)
	ranked := g.roots()
	for _, c := range ranked {
		// A root carries what it explains: their objects, evidence and the path to it.
		for _, x := range g.explained(c) {
			c.Affected = mergeRefs(c.Affected, append([]ObjectRef{x.Object, x.Culprit}, x.Affected...))
			c.Evidence = mergeStrings(c.Evidence, x.Evidence)
		}
		chain := g.chain(c)
		c.chain = nil
		for _, x := range chain {
			c.chain = append(c.chain, chainStep(x.Finding))
		}
		if len(chain) > 1 {
			c.path = pathString(chain)
			// The symptom a user sees, in its own words (a client's error line), next to the cause.
			first := chain[0]
			for _, x := range chain {
				if x.Object.Kind == "Pod" {
					first = x // a pod's own finding says more than its workload's count
					break
				}
			}
			// A symptom on the culprit itself (a quota "fully used" under "exceeded quota") adds nothing.
			if first != c && first.Object.Key() != c.Culprit.Key() && !strings.Contains(c.Summary, first.Summary) {
				c.symptom = first.Summary
			}
		}
		c.victim = g.hasVictim(c)
	}
	// The problem text nudges ranking between unrelated findings (e.g. "pods won't
	// schedule" prefers a scheduling cause over an HPA warning); it never changes the
	// reported confidence. A cause that explains a failing pod or workload outranks one
	// nothing suffers from.
	forms := mentionForms(s.Problem, s.Hints)
	// When some finding is about an object the problem names as a whole, a finding that
	// touches nothing the problem names answers another question: it yields unless it is
	// far surer.
	named := false
	for _, c := range ranked {
		named = named || nameAffinity(forms, c) >= exactNameAffinity
	}
	asked, layer := askedWords(s.Problem), 0
	for _, c := range ranked {
		layer = max(layer, layerOf(c.Rule))
	}
	score := func(c *candidate) int {
		a := nameAffinity(forms, c)
		if named && a == 0 && !touchesMention(forms, c) {
			a = -unnamedPenalty
		}
		v := c.Confidence + problemAffinity(s.Problem, c.Rule) + a + askedErrorAffinity(asked, c, layer)
		if c.victim {
			v += 10
		}
		return v
	}
	sort.SliceStable(ranked, func(i, j int) bool {
		a, b := ranked[i], ranked[j]
		if score(a) != score(b) {
			return score(a) > score(b)
		}
		if len(a.chain) != len(b.chain) {
			return len(a.chain) > len(b.chain)
		}
		if len(a.Affected) != len(b.Affected) {
			return len(a.Affected) > len(b.Affected)
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Culprit.Key() < b.Culprit.Key()
	})
	top := ranked[0]
	c := Conclusion{RootCause: rootCauseOf(top), Remediation: remediationOf(s, top)}
	if p.StopReason != "" {
		c.RootCause.Summary = clipString(c.RootCause.Summary+" (investigation stopped early: "+p.StopReason+")", MaxRootSummary)
	}
	for i := 1; i < len(ranked) && len(c.Alternatives) < 3; i++ {
		c.Alternatives = append(c.Alternatives, rootCauseOf(ranked[i]))
	}
	cited := map[string]bool{}
	for _, rc := range append([]RootCause{c.RootCause}, c.Alternatives...) {
		for _, id := range rc.EvidenceIDs {
			if ev, ok := evidence[id]; ok && !cited[id] {
				cited[id] = true
				c.Evidence = append(c.Evidence, ev)
			}
		}
	}
	return c, nil
}

func chainStep(f Finding) string {
	title := f.Rule
	if r, ok := Catalogue[f.Rule]; ok {
		title = r.Title
	}
	step := f.Object.Kind + "/" + f.Object.Name + ": " + title
	// A finding whose cause lies on another object (a consumer's finding on the Service it
	// calls, a ReplicaSet refused by a quota) names that object, so the chain shows each hop.
	if !f.Culprit.IsZero() && f.Culprit.Key() != f.Object.Key() {
		step += " → " + f.Culprit.Kind + "/" + f.Culprit.Name
	}
	return step
}

func rootCauseOf(c *candidate) RootCause {
	r := Catalogue[c.Rule]
	cat := r.Category
	if cat == "" {
		cat = "Unknown"
	}
	// The culprit leads: it is the likeliest object to change; the symptom and the objects
	// that reference the culprit follow.
	affected := mergeRefs([]ObjectRef{c.Culprit, c.Object}, c.Affected)
	if referencingRules[c.Rule] {
		affected = holdersFirst(affected, c.Culprit)
	}
	affected = mergeRefs(affected, c.Sources)
	if len(affected) > MaxAffected {
		affected = affected[:MaxAffected]
	}
	ev := c.Evidence
	if len(ev) > MaxEvidenceIDs {
		ev = ev[:MaxEvidenceIDs]
	}
	summary := leadWithCulprit(c.Summary, c.Culprit)
	// The reasons Kubernetes reported for the evidence this rests on, verbatim, however the
	// rule worded its sentence.
	tail := reasonNote(summary, c.Facts["reasons"])
	if c.path != "" {
		path := " Path: " + c.path + "."
		if c.symptom != "" {
			path = " Seen as: " + clipString(c.symptom, 300) + path
		}
		tail += path
	}
	if tail != "" {
		summary = clipString(summary, MaxRootSummary-len(tail)-4) + tail
	}
	return RootCause{
		Summary: clipString(summary, MaxRootSummary), Category: cat, Rule: c.Rule,
		Confidence: clampPercent(c.Confidence), Culprit: c.Culprit, AffectedObjects: affected,
		EvidenceIDs: ev, Chain: c.chain,
	}
}

// leadWithCulprit makes the summary name its culprit as a reader would look it up, "Kind
// name": a finding written about a pod ("Container app of pod web-7d9-x ...") whose culprit is
// the Deployment, or about a claim whose culprit is its StorageClass, says which object to
// change first.
func leadWithCulprit(summary string, culprit ObjectRef) string {
	if culprit.IsZero() || namesObject(summary, culprit) {
		return summary
	}
	return culprit.Kind + " " + culprit.Name + ": " + summary
}

// namesObject reports whether text names r as "Kind name", "Kind/name" or "Kind \"name\""
// (the kind case-insensitively).
func namesObject(text string, r ObjectRef) bool {
	low, kind := strings.ToLower(text), strings.ToLower(r.Kind)
	for _, sep := range []string{" ", "/", " \"", " '"} {
		for i := 0; ; {
			j := strings.Index(low[i:], kind+sep+strings.ToLower(r.Name))
			if j < 0 {
				break
			}
			end := i + j + len(kind) + len(sep) + len(r.Name)
			if end == len(low) || !isNameByte(low[end]) {
				return true
			}
			i += j + 1
		}
	}
	return false
}

// holdersFirst orders a reference's objects by where a user fixes it: the missing object (the
// culprit, which the API reports first) and then the objects that name it (Deployment,
// StatefulSet, DaemonSet, CronJob, Job, Ingress, claim, binding), before the pods and
// ReplicaSets in between.
func holdersFirst(refs []ObjectRef, culprit ObjectRef) []ObjectRef {
	var holders, rest []ObjectRef
	for _, r := range refs {
		switch {
		case r.Key() == culprit.Key():
		case editedKinds[r.Kind]:
			holders = append(holders, r)
		default:
			rest = append(rest, r)
		}
	}
	return mergeRefs(append([]ObjectRef{culprit}, holders...), rest)
}

// editedKinds are the kinds a user edits to change a reference (pods and ReplicaSets are
// re-created from them).
var editedKinds = map[string]bool{"Deployment": true, "StatefulSet": true, "DaemonSet": true, "CronJob": true, "Job": true, "Ingress": true, "PersistentVolumeClaim": true, "RoleBinding": true}

func remediationOf(s Session, c *candidate) Remediation {
	r, ok := Catalogue[c.Rule]
	if !ok {
		return Remediation{}
	}
	facts := map[string]string{"ns": s.Namespace, "name": c.Culprit.Name, "kind": c.Culprit.Kind, "resource": kubectlResource(c.Culprit)}
	if k, err := tools.ResolveKind(c.Culprit.Kind); err == nil {
		facts["plural"] = k.Plural
	}
	for k, v := range c.Facts {
		facts[k] = v
	}
	var rem Remediation
	for i, a := range r.Actions {
		if i >= MaxActions {
			break
		}
		rem.Actions = append(rem.Actions, Action{
			ID: fmt.Sprintf("a%d", i+1), Description: clipString(fill(a.Description, facts), 1024),
			Command: clipString(fill(a.Command, facts), 2048), Risk: a.Risk,
		})
	}
	for _, a := range referenceActions(c, facts) {
		if len(rem.Actions) >= MaxActions {
			break
		}
		a.ID = fmt.Sprintf("a%d", len(rem.Actions)+1)
		rem.Actions = append(rem.Actions, a)
	}
	for i, v := range r.Validation {
		if i >= MaxValidationSteps {
			break
		}
		rem.ValidationSteps = append(rem.ValidationSteps, clipString(fill(v, facts), 512))
	}
	return rem
}

// referencingRules are the rules whose culprit is an object something else refers to: the
// referencing workload is the other place to fix.
var referencingRules = map[string]bool{
	"configmap-missing": true, "secret-missing": true, "configmap-key-missing": true, "secret-key-missing": true,
	"pvc-missing": true, "pvc-storageclass-missing": true, "pvc-no-default-storageclass": true, "pvc-no-provisioner": true,
	"pvc-access-mode-unsupported": true, "pvc-no-matching-pv": true, "serviceaccount-missing": true, "image-pull-auth": true,
	"dependency-host-unknown": true, "config-value-missing": true, "config-file-missing": true, "service-selector-mismatch": true,
	"pull-secret-missing": true, "statefulset-service-missing": true, "priorityclass-missing": true, "runtimeclass-missing": true,
	"ingress-tls-secret-missing": true, "ingress-class-missing": true,
}

// referenceActions adds, for a culprit something refers to, the fix on the referencing
// workload, with the fields Kubernetes does not let one edit in place.
func referenceActions(c *candidate, facts map[string]string) []Action {
	if !referencingRules[c.Rule] {
		return nil
	}
	var out []Action
	for _, r := range mergeRefs([]ObjectRef{c.Object}, c.Affected) {
		if r.Key() == c.Culprit.Key() || len(out) >= 2 {
			continue
		}
		res := kubectlResource(r)
		ns := facts["ns"]
		switch r.Kind {
		case "StatefulSet":
			if strings.HasPrefix(c.Rule, "pvc-") {
				out = append(out, Action{Risk: RiskHigh, Description: fmt.Sprintf("Or fix the claim template of StatefulSet %s: volumeClaimTemplates are immutable, so delete it with --cascade=orphan (its pods keep running), re-create it with the fixed template, and delete the Pending claims so they are re-created", r.Name),
					Command: fmt.Sprintf("kubectl -n %s delete %s --cascade=orphan && kubectl -n %s apply -f %s.yaml", ns, res, ns, r.Name)})
				continue
			}
			if strings.HasPrefix(c.Rule, "statefulset-service-") {
				out = append(out, Action{Risk: RiskHigh, Description: fmt.Sprintf("Or point StatefulSet %s at an existing headless Service: serviceName is immutable, so delete it with --cascade=orphan (its pods keep running) and re-create it with the fixed serviceName", r.Name),
					Command: fmt.Sprintf("kubectl -n %s get %s -o yaml > %s.yaml && kubectl -n %s delete %s --cascade=orphan", ns, res, r.Name, ns, res)})
				continue
			}
			out = append(out, Action{Risk: RiskMedium, Description: "Or change the reference in StatefulSet " + r.Name, Command: fmt.Sprintf("kubectl -n %s edit %s", ns, res)})
		case "Deployment", "DaemonSet", "CronJob":
			out = append(out, Action{Risk: RiskMedium, Description: fmt.Sprintf("Or change the reference in %s %s (a new rollout picks it up)", r.Kind, r.Name), Command: fmt.Sprintf("kubectl -n %s edit %s", ns, res)})
		case "Job":
			out = append(out, Action{Risk: RiskMedium, Description: fmt.Sprintf("Or fix Job %s: its pod template is immutable, so delete and re-create it with the fixed reference (or fix the CronJob's jobTemplate)", r.Name),
				Command: fmt.Sprintf("kubectl -n %s get %s -o yaml > %s.yaml && kubectl -n %s delete %s", ns, res, r.Name, ns, res)})
		case "Ingress":
			out = append(out, Action{Risk: RiskMedium, Description: fmt.Sprintf("Or change the name Ingress %s uses (spec.tls or the backend)", r.Name), Command: fmt.Sprintf("kubectl -n %s edit %s", ns, res)})
		case "ServiceAccount":
			out = append(out, Action{Risk: RiskMedium, Description: fmt.Sprintf("Or fix the imagePullSecrets of ServiceAccount %s, which its pods inherit (pods created afterwards pick it up)", r.Name), Command: fmt.Sprintf("kubectl -n %s edit %s", ns, res)})
		case "PersistentVolumeClaim":
			if c.Culprit.Kind == "StorageClass" {
				out = append(out, Action{Risk: RiskHigh, Description: fmt.Sprintf("Or re-create claim %s with an existing StorageClass (storageClassName is immutable)", r.Name),
					Command: fmt.Sprintf("kubectl -n %s get %s -o yaml > %s.yaml && kubectl -n %s delete %s", ns, res, r.Name, ns, res)})
			}
		}
	}
	return out
}

func noFinding(s Session, p Progress, examined int, errs []string) Conclusion {
	subject := "namespace " + s.Namespace
	culprit := ObjectRef{}
	if t := cleanRef(s.TargetRef()); !t.IsZero() {
		subject = t.Kind + " " + t.Name + " in " + s.Namespace
		culprit = t
		if !isNamespaced(t.Kind) {
			culprit.Namespace = ""
		}
	}
	rc := RootCause{
		Category: "NoProblemFound", Rule: "no-problem-found", Confidence: 20, Culprit: culprit,
		Summary: fmt.Sprintf("No known failure signal found for %s after examining %d object(s); the problem may be outside Kubernetes objects (application, network, external dependency) or already resolved.", subject, examined),
	}
	if len(errs) > 0 {
		rc.Category, rc.Rule, rc.Confidence = "Inconclusive", "inconclusive", 10
		rc.Summary = clipString(fmt.Sprintf("The investigation of %s could not complete: %s", subject, strings.Join(errs, "; ")), MaxRootSummary)
	}
	if p.StopReason != "" {
		rc.Summary = clipString(rc.Summary+" (stopped early: "+p.StopReason+")", MaxRootSummary)
	}
	c := Conclusion{RootCause: rc, Remediation: remediationOf(s, &candidate{Finding: Finding{Rule: rc.Rule, Culprit: culprit}})}
	// Cite what was seen on the target itself (its status, a deletion in progress), so "nothing
	// found" still says what the engine looked at.
	if !culprit.IsZero() {
		for _, res := range p.Results {
			for _, ev := range res.Evidence {
				o := ev.Source.Object
				if o == nil || o.Kind != culprit.Kind || o.Name != culprit.Name || len(c.Evidence) >= 5 {
					continue
				}
				c.Evidence = append(c.Evidence, ev)
				c.RootCause.EvidenceIDs = append(c.RootCause.EvidenceIDs, ev.ID)
			}
		}
	}
	return c
}

func clampPercent(n int) int {
	if n < 0 {
		return 0
	}
	if n > 100 {
		return 100
	}
	return n
}

func mergeRefs(a, b []ObjectRef) []ObjectRef {
	seen := map[string]bool{}
	out := make([]ObjectRef, 0, len(a)+len(b))
	for _, l := range [][]ObjectRef{a, b} {
		for _, r := range l {
			if r.IsZero() || seen[r.Key()] {
				continue
			}
			seen[r.Key()] = true
			out = append(out, r)
		}
	}
	return out
}

func mergeStrings(a, b []string) []string {
	seen := map[string]bool{}
	out := make([]string, 0, len(a)+len(b))
	for _, l := range [][]string{a, b} {
		for _, s := range l {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

func copyFacts(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
