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
	"sort"
	"strconv"
	"strings"
)

// This file turns kubelet, scheduler and controller messages into structured signals.
// All inputs are untrusted text: every function is total and bounded.

// ExitMeaning explains common container exit codes.
func ExitMeaning(code int32) string {
	switch {
	case code == 0:
		return "completed successfully"
	case code == 1:
		return "application error"
	case code == 2:
		return "misuse of a shell builtin or bad arguments"
	case code == 126:
		return "command cannot be executed (permissions or not executable)"
	case code == 127:
		return "command not found (bad entrypoint or missing binary)"
	case code == 128:
		return "invalid exit argument"
	case code == 134:
		return "aborted (SIGABRT)"
	case code == 137:
		return "killed (SIGKILL), often by the OOM killer or a failed liveness probe"
	case code == 139:
		return "segmentation fault (SIGSEGV)"
	case code == 143:
		return "terminated (SIGTERM)"
	case code > 128 && code < 160:
		return fmt.Sprintf("killed by signal %d", code-128)
	}
	return "application-defined error"
}

// PullFailure classifies an image pull error message.
type PullFailure int

const (
	PullUnknown PullFailure = iota
	PullNotFound
	PullAuth
	PullAmbiguous // "pull access denied ... may require authorization": missing image or missing credentials
	PullNetwork
)

// ClassifyPull reads ErrImagePull / Failed event text.
func ClassifyPull(msg string) PullFailure {
	m := strings.ToLower(clipString(msg, 2000))
	switch {
	// Explicit credential failures first: they settle the "denied" messages below.
	case strings.Contains(m, "unauthorized") || strings.Contains(m, "authentication required") || strings.Contains(m, "no basic auth credentials") ||
		strings.Contains(m, "403 forbidden") || strings.Contains(m, "invalid username/password") || strings.Contains(m, "401"):
		return PullAuth
	case strings.Contains(m, "pull access denied") || (strings.Contains(m, "does not exist") && strings.Contains(m, "may require")):
		return PullAmbiguous
	case strings.Contains(m, "denied: ") || strings.Contains(m, "access denied"):
		return PullAuth
	case strings.Contains(m, "manifest unknown") || strings.Contains(m, "not found") || strings.Contains(m, "notfound") ||
		strings.Contains(m, "does not exist") || strings.Contains(m, "name unknown") || strings.Contains(m, "no such manifest"):
		return PullNotFound
	case strings.Contains(m, "i/o timeout") || strings.Contains(m, "no such host") || strings.Contains(m, "connection refused") ||
		strings.Contains(m, "tls handshake") || strings.Contains(m, "dial tcp"):
		return PullNetwork
	}
	return PullUnknown
}

// SchedReason is one class of scheduler refusal.
type SchedReason string

const (
	SchedInsufficient SchedReason = "insufficient-resources"
	SchedTaint        SchedReason = "taint"
	SchedAffinity     SchedReason = "node-affinity"
	SchedCordoned     SchedReason = "cordoned"
	SchedUnboundPVC   SchedReason = "unbound-pvc"
	SchedMissingPVC   SchedReason = "missing-pvc"
	SchedOther        SchedReason = "other"
)

// SchedulingVerdict is what a FailedScheduling message says.
type SchedulingVerdict struct {
	Reason SchedReason
	// Counts per reason over the nodes ("3 Insufficient cpu" → insufficient 3).
	Counts map[SchedReason]int
	// Resources lists the exhausted resources ("cpu", "memory", "pods").
	Resources []string
	// Taints lists untolerated taints as printed by the scheduler.
	Taints []string
	// Claim is the PVC named in "persistentvolumeclaim \"x\" not found".
	Claim string
}

var (
	schedItem     = regexp.MustCompile(`(\d+) ([^,.]+)`)
	taintBraces   = regexp.MustCompile(`\{([^{}]{0,200})\}`)
	missingClaim  = regexp.MustCompile(`persistentvolumeclaim "([^"]{1,253})" not found`)
	insufficientR = regexp.MustCompile(`Insufficient ([a-zA-Z0-9./_-]{1,80})`)
)

// ParseScheduling reads a scheduler message such as
// "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. preemption: ...".
func ParseScheduling(msg string) SchedulingVerdict {
	msg = clipString(msg, 4000)
	v := SchedulingVerdict{Counts: map[SchedReason]int{}}
	if m := missingClaim.FindStringSubmatch(msg); m != nil {
		v.Reason, v.Claim = SchedMissingPVC, m[1]
		return v
	}
	low := strings.ToLower(msg)
	if strings.Contains(low, "unbound immediate persistentvolumeclaims") || strings.Contains(low, "unbound persistentvolumeclaims") {
		v.Reason = SchedUnboundPVC
		return v
	}
	head := msg
	if i := strings.Index(head, "preemption:"); i >= 0 {
		head = head[:i]
	}
	if i := strings.Index(head, ":"); i >= 0 {
		head = head[i+1:]
	}
	controlPlaneOnly := true
	for _, m := range schedItem.FindAllStringSubmatch(head, 20) {
		n, _ := strconv.Atoi(m[1])
		text := strings.ToLower(m[2])
		var r SchedReason
		switch {
		case strings.Contains(text, "insufficient") || strings.Contains(text, "too many pods"):
			r = SchedInsufficient
		case strings.Contains(text, "taint"):
			r = SchedTaint
			if !strings.Contains(text, "control-plane") && !strings.Contains(text, "master") {
				controlPlaneOnly = false
			}
		case strings.Contains(text, "node affinity") || strings.Contains(text, "node selector") || strings.Contains(text, "affinity/selector"):
			r = SchedAffinity
		case strings.Contains(text, "were unschedulable") || strings.Contains(text, "unschedulable"):
			r = SchedCordoned
		default:
			r = SchedOther
		}
		v.Counts[r] += n
	}
	for _, m := range insufficientR.FindAllStringSubmatch(msg, 10) {
		if r := strings.TrimRight(m[1], "."); !containsStr(v.Resources, r) {
			v.Resources = append(v.Resources, r)
		}
	}
	if strings.Contains(low, "too many pods") && !containsStr(v.Resources, "pods") {
		v.Resources = append(v.Resources, "pods")
	}
	for _, m := range taintBraces.FindAllStringSubmatch(msg, 10) {
		v.Taints = append(v.Taints, strings.TrimSpace(m[1]))
	}
	// The reason covering the most nodes wins; control-plane taints only matter when
	// nothing else is in the way. Ties follow the order below (most actionable first).
	order := []SchedReason{SchedInsufficient, SchedAffinity, SchedTaint, SchedCordoned, SchedOther}
	best, bestN := SchedOther, -1
	for _, r := range order {
		n := v.Counts[r]
		if r == SchedTaint && controlPlaneOnly && len(v.Counts) > 1 {
			n = 0
		}
		if n > bestN {
			best, bestN = r, n
		}
	}
	if bestN <= 0 {
		// No counts parsed: fall back to keywords.
		switch {
		case strings.Contains(low, "insufficient") || strings.Contains(low, "too many pods"):
			best = SchedInsufficient
		case strings.Contains(low, "affinity") || strings.Contains(low, "node selector"):
			best = SchedAffinity
		case strings.Contains(low, "taint"):
			best = SchedTaint
		case strings.Contains(low, "were unschedulable"):
			best = SchedCordoned
		default:
			best = SchedOther
		}
	}
	v.Reason = best
	return v
}

// ConfigProblem is a missing ConfigMap/Secret or key named in a kubelet message.
type ConfigProblem struct {
	Kind, Name, Key string
}

var (
	cfgNotFound = regexp.MustCompile(`(configmap|secret)s? "([^"]{1,253})" not found`)
	cfgNoKey    = regexp.MustCompile(`couldn't find key ([^ ]{1,253}) in (ConfigMap|Secret) ([^/ ]{1,63})/([^ ,.]{1,253})`)
)

// ParseConfigError reads CreateContainerConfigError / FailedMount text.
func ParseConfigError(msg string) (ConfigProblem, bool) {
	msg = clipString(msg, 2000)
	if m := cfgNoKey.FindStringSubmatch(msg); m != nil {
		return ConfigProblem{Kind: m[2], Name: m[4], Key: m[1]}, true
	}
	if m := cfgNotFound.FindStringSubmatch(strings.ToLower(msg)); m != nil {
		kind := "ConfigMap"
		if m[1] == "secret" {
			kind = "Secret"
		}
		// Names are lower-case DNS names, so the lowered match is the real name.
		return ConfigProblem{Kind: kind, Name: m[2]}, true
	}
	return ConfigProblem{}, false
}

// CreateFailure is what a FailedCreate / ReplicaFailure message says.
type CreateFailure struct {
	Rule   string
	Object string // quota, service account or webhook name
	Detail string
}

var (
	quotaExceeded       = regexp.MustCompile(`exceeded quota: ([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?)`)
	quotaMust           = regexp.MustCompile(`failed quota: ([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?): must specify ([^;]{1,200})`)
	saNotFound          = regexp.MustCompile(`serviceaccount "([^"]{1,253})" not found`)
	webhookDenied       = regexp.MustCompile(`admission webhook "([^"]{1,253})" denied the request`)
	webhookFailing      = regexp.MustCompile(`failed calling webhook "([^"]{1,253})"`)
	limitRangeMsg       = regexp.MustCompile(`(maximum|minimum) [a-z-]+ usage per (Container|Pod|PersistentVolumeClaim) is [^,\]]+(?:, but (?:request|limit) is [^,\]]+)?|limit to request ratio[^,\]]*`)
	runtimeClassMissing = regexp.MustCompile(`RuntimeClass "([^"]{1,253})" not found`)
	priorityMiss        = regexp.MustCompile(`no PriorityClass with name ([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?) was found`)
	// requestAboveLimit is the API server's validation of a container whose request exceeds
	// its limit, which may be one a LimitRange filled in by default.
	requestAboveLimit = regexp.MustCompile(`must be less than or equal to ([a-z-]+) limit(?: of ([0-9A-Za-z.]+))?`)
)

// ParseCreateFailure classifies a controller's pod-creation error.
func ParseCreateFailure(msg string) CreateFailure {
	msg = clipString(msg, 2000)
	if m := quotaMust.FindStringSubmatch(msg); m != nil {
		return CreateFailure{Rule: "quota-missing-requests", Object: m[1], Detail: "must specify " + strings.TrimSpace(m[3])}
	}
	if m := quotaExceeded.FindStringSubmatch(msg); m != nil {
		detail := msg
		if i := strings.Index(msg, "exceeded quota:"); i >= 0 {
			detail = msg[i:]
		}
		return CreateFailure{Rule: "quota-exceeded", Object: m[1], Detail: clipString(detail, 300)}
	}
	if m := limitRangeMsg.FindAllString(msg, 5); len(m) > 0 {
		return CreateFailure{Rule: "limitrange-violation", Detail: strings.Join(m, "; ")}
	}
	if m := runtimeClassMissing.FindStringSubmatch(msg); m != nil {
		return CreateFailure{Rule: "runtimeclass-missing", Object: m[1], Detail: m[0]}
	}
	if m := priorityMiss.FindStringSubmatch(msg); m != nil {
		return CreateFailure{Rule: "priorityclass-missing", Object: m[1], Detail: m[0]}
	}
	if m := saNotFound.FindStringSubmatch(msg); m != nil {
		return CreateFailure{Rule: "serviceaccount-missing", Object: m[1], Detail: m[0]}
	}
	if m := webhookDenied.FindStringSubmatch(msg); m != nil {
		return CreateFailure{Rule: "admission-denied", Object: m[1], Detail: clipString(msg, 300)}
	}
	if m := webhookFailing.FindStringSubmatch(msg); m != nil {
		return CreateFailure{Rule: "admission-webhook-failing", Object: m[1], Detail: clipString(msg, 300)}
	}
	if m := requestAboveLimit.FindStringSubmatch(msg); m != nil {
		// Object is "cpu=500m": the limit the request exceeds (createFailure looks for the
		// LimitRange default that gave it).
		return CreateFailure{Rule: "workload-create-failed", Object: m[1] + "=" + m[2], Detail: clipString(msg, 300)}
	}
	if strings.Contains(msg, "violates PodSecurity") {
		return CreateFailure{Rule: "admission-denied", Object: "PodSecurity", Detail: clipString(msg, 300)}
	}
	return CreateFailure{Rule: "workload-create-failed", Detail: clipString(invalidReason(msg), 300)}
}

// invalidReason is a validation error kept to what the API server found invalid and why: a
// long message starts at "is invalid:", and long quoted values are shortened.
func invalidReason(msg string) string {
	if i := strings.Index(msg, " is invalid: "); i > 0 && len(msg) > 300 {
		msg = "pod" + msg[i:]
	}
	return longInvalidValue.ReplaceAllString(msg, `Invalid value: "$1…"`)
}

// longInvalidValue is a long quoted value in an API server's validation error: shortened, so
// that the reason after it ("must be no more than 63 characters") stays within the detail.
var longInvalidValue = regexp.MustCompile(`Invalid value: "([^"]{40})[^"]{8,}"`)

func containsStr(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func labelsJSON(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, strconv.Quote(k)+":"+strconv.Quote(m[k]))
	}
	return "{" + strings.Join(parts, ",") + "}"
}
