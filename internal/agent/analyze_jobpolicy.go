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
	"fmt"
	"regexp"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// A Job's podFailurePolicy decides, before the backoffLimit, what a failed pod means: FailJob
// ends the Job at the first match, FailIndex ends one index, Ignore does not count the
// failure, Count counts it as usual. A Job that failed "too early" is explained by the rule
// that matched, which the Job's condition message names by its index.

// policyMatch is the podFailurePolicy rule that decided a pod's failure.
type policyMatch struct {
	index  int
	rule   batchv1.PodFailurePolicyRule
	pod    string
	reason string // what in the pod matched: "container export exited 1", "condition DisruptionTarget=True"
}

// policyRuleIndex reads "... matching FailJob rule at index 0" from a Job condition message.
var policyRuleIndex = regexp.MustCompile(`rule at index (\d+)`)

// matchPodFailurePolicy finds the rule that decided the Job's failure: the one the condition
// message names, else the first rule matching one of the failed pods (newest first).
func matchPodFailurePolicy(j *batchv1.Job, cond *batchv1.JobCondition, failed []*corev1.Pod) (policyMatch, bool) {
	pfp := j.Spec.PodFailurePolicy
	if pfp == nil || len(pfp.Rules) == 0 {
		return policyMatch{}, false
	}
	named := -1
	if m := policyRuleIndex.FindStringSubmatch(cond.Message); m != nil {
		if i, err := strconv.Atoi(m[1]); err == nil && i < len(pfp.Rules) {
			named = i
		}
	}
	for _, p := range failed {
		// Rules are evaluated in order: the first one matching a pod decides for it.
		for i, r := range pfp.Rules {
			why, ok := policyRuleMatches(r, p)
			if !ok {
				continue
			}
			ending := r.Action == batchv1.PodFailurePolicyActionFailJob || r.Action == batchv1.PodFailurePolicyActionFailIndex
			if i == named || named < 0 && ending {
				return policyMatch{index: i, rule: r, pod: p.Name, reason: why}, true
			}
			break
		}
	}
	if named >= 0 {
		return policyMatch{index: named, rule: pfp.Rules[named], reason: "the Job's condition names it"}, true
	}
	return policyMatch{}, false
}

// policyRuleMatches applies one rule to a failed pod as the Job controller does.
func policyRuleMatches(r batchv1.PodFailurePolicyRule, p *corev1.Pod) (string, bool) {
	if oe := r.OnExitCodes; oe != nil {
		statuses := append(append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...)
		for _, cs := range statuses {
			t := cs.State.Terminated
			if t == nil || t.ExitCode == 0 || oe.ContainerName != nil && *oe.ContainerName != cs.Name {
				continue
			}
			in := false
			for _, v := range oe.Values {
				in = in || v == t.ExitCode
			}
			if in == (oe.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn) {
				return fmt.Sprintf("container %s of pod %s exited with code %d", cs.Name, p.Name, t.ExitCode), true
			}
		}
		return "", false
	}
	for _, pat := range r.OnPodConditions {
		for _, c := range p.Status.Conditions {
			if string(c.Type) == string(pat.Type) && c.Status == pat.Status {
				return fmt.Sprintf("pod %s has condition %s=%s", p.Name, c.Type, c.Status), true
			}
		}
	}
	return "", false
}

// policyRuleText renders a rule as a user wrote it: "FailJob on exit codes In [1] of container export".
func policyRuleText(r batchv1.PodFailurePolicyRule) string {
	if oe := r.OnExitCodes; oe != nil {
		codes := make([]string, 0, len(oe.Values))
		for _, v := range oe.Values {
			codes = append(codes, strconv.Itoa(int(v)))
		}
		s := fmt.Sprintf("%s on exit codes %s [%s]", r.Action, oe.Operator, strings.Join(codes, ","))
		if oe.ContainerName != nil {
			s += " of container " + *oe.ContainerName
		}
		return s
	}
	var conds []string
	for _, c := range r.OnPodConditions {
		conds = append(conds, string(c.Type)+"="+string(c.Status))
	}
	return fmt.Sprintf("%s on pod condition %s", r.Action, strings.Join(conds, ","))
}

// podFailurePolicySummary explains a Job ended by its podFailurePolicy: which rule matched
// what, and what that cost against the backoffLimit it never reached.
func podFailurePolicySummary(j *batchv1.Job, cond *batchv1.JobCondition, m policyMatch, detail string) string {
	s := fmt.Sprintf("Job %s failed (%s): its podFailurePolicy rule %d (%s) matched", j.Name, cond.Reason, m.index, policyRuleText(m.rule))
	if m.pod != "" {
		s += ": " + m.reason
		// The matching pod's exit is said already; keep what it reported.
		if i := strings.Index(detail, "; its error:"); i >= 0 {
			detail = detail[i:]
		}
	}
	switch m.rule.Action {
	case batchv1.PodFailurePolicyActionFailJob:
		s += fmt.Sprintf(", and FailJob ends the Job at once, without the retries its backoffLimit of %d allows (%d pod(s) failed)", replicasOr(j.Spec.BackoffLimit, 6), j.Status.Failed)
	case batchv1.PodFailurePolicyActionFailIndex:
		s += ", and FailIndex ends that index without retries"
	}
	return s + detail + ". An exit code that can be transient belongs in a Count (or Ignore) rule, not FailJob."
}
