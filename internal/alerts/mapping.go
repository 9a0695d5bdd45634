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

package alerts

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/text"
)

// Labels and annotations the receiver puts on the sessions it creates.
const (
	LabelSource           = "kubage.io/source"
	LabelAlertFingerprint = "kubage.io/alert-fingerprint"
	LabelAlertStatus      = "kubage.io/alert-status"
	LabelAlertName        = "kubage.io/alertname"
	AnnotationResolvedAt  = "kubage.io/alert-resolved-at"
	SourceAlertmanager    = "alertmanager"
)

// Bounds of the Troubleshoot fields the mapping fills.
const (
	maxProblemBytes = 4096
	maxHints        = 16
	maxHintBytes    = 2048
	maxNameStem     = 46 // "alert-" + stem + "-" + 10 hash digits ≤ 63
	maxTimeBack     = 720 * time.Hour
)

// Rejection is why one alert cannot become a session.
type Rejection struct {
	Reason  string
	Message string
}

func reject(reason, format string, args ...any) *Rejection {
	return &Rejection{Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// SessionName is the Troubleshoot name for one occurrence of an alert: the same
// fingerprint and startsAt always give the same name, so a retried or repeated
// notification finds the session that exists instead of creating another.
func SessionName(alertName, fingerprint string, startsAt time.Time) string {
	sum := sha256.Sum256([]byte(strings.ToLower(fingerprint) + "\x00" + startsAt.UTC().Format(time.RFC3339Nano)))
	return "alert-" + nameStem(alertName) + "-" + hex.EncodeToString(sum[:])[:10]
}

// nameStem turns an alert name into lowercase words joined by hyphens, e.g.
// KubePodCrashLooping → kube-pod-crash-looping, keeping only [a-z0-9-].
func nameStem(s string) string {
	var b strings.Builder
	prevLowerOrDigit, prevHyphen := false, true
	for _, r := range s {
		if b.Len() >= 2*maxNameStem {
			break
		}
		switch {
		case r < unicode.MaxASCII && unicode.IsUpper(r):
			if prevLowerOrDigit {
				b.WriteByte('-')
			}
			b.WriteRune(unicode.ToLower(r))
			prevLowerOrDigit, prevHyphen = false, false
		case 'a' <= r && r <= 'z' || '0' <= r && r <= '9':
			b.WriteRune(r)
			prevLowerOrDigit, prevHyphen = true, false
		default:
			if !prevHyphen {
				b.WriteByte('-')
			}
			prevLowerOrDigit, prevHyphen = false, true
		}
	}
	stem := strings.Trim(text.Clip(b.String(), maxNameStem), "-")
	if stem == "" {
		return "unnamed"
	}
	return stem
}

// BuildSession maps one firing alert onto a Troubleshoot, or says why it cannot. It reads
// nothing from the cluster: whether the namespace exists is the Processor's question.
func BuildSession(a *Alert, receiver string, pol *CompiledPolicy, now time.Time) (*kubagev1alpha1.Troubleshoot, *Rejection) {
	if reason, msg := checkAlertContent(a); reason != "" {
		return nil, reject(reason, "%s", msg)
	}
	ns, rej := sessionNamespace(a, pol)
	if rej != nil {
		return nil, rej
	}
	target, rej := sessionTarget(a, pol)
	if rej != nil {
		return nil, rej
	}

	ts := &kubagev1alpha1.Troubleshoot{
		ObjectMeta: metav1.ObjectMeta{
			Name:      SessionName(a.Name(), a.Fingerprint, a.StartsAt),
			Namespace: ns,
			Labels: map[string]string{
				LabelSource:           SourceAlertmanager,
				LabelAlertFingerprint: a.Fingerprint,
				LabelAlertStatus:      StatusFiring,
			},
		},
		Spec: kubagev1alpha1.TroubleshootSpec{
			Problem:    problemText(a, target, ns),
			Target:     target,
			Severity:   pol.severities[strings.ToLower(strings.TrimSpace(a.Labels[pol.SeverityLabel]))],
			TimeRange:  timeRange(a.StartsAt, now, pol.margin),
			Mode:       pol.Mode,
			TaskRunner: pol.TaskRunner,
			Hints:      hints(a),
			Alert: &kubagev1alpha1.AlertSource{
				Fingerprint: a.Fingerprint,
				AlertName:   text.Clip(a.Name(), 256),
				StartsAt:    metav1.NewTime(a.StartsAt.UTC()),
				Receiver:    text.Clip(cleanText(receiver), 256),
			},
		},
	}
	if len(validation.IsValidLabelValue(a.Name())) == 0 {
		ts.Labels[LabelAlertName] = a.Name()
	}
	if shard := pol.Shard(a.Labels); shard != "" {
		ts.Labels[kubagev1alpha1.ShardingKeyLabel] = shard
	}
	if pol.Model != "" {
		ts.Spec.Model = &kubagev1alpha1.LocalSecretReference{Name: pol.Model}
	}
	if pol.Budget != nil {
		ts.Spec.Budget = *pol.Budget.DeepCopy()
	}
	return ts, nil
}

// sessionNamespace reads the first namespace label the policy names, else its default.
func sessionNamespace(a *Alert, pol *CompiledPolicy) (string, *Rejection) {
	ns := ""
	for _, l := range pol.NamespaceLabels {
		if v := a.Labels[l]; v != "" {
			ns = v
			break
		}
	}
	if ns == "" {
		ns = pol.DefaultNamespace
	}
	if ns == "" {
		return "", reject(ReasonNoNamespace, "no label %s and no default namespace", strings.Join(pol.NamespaceLabels, ", "))
	}
	if len(validation.IsDNS1123Label(ns)) > 0 {
		return "", reject(ReasonInvalidNamespace, "%q is not a valid namespace name", text.Clip(ns, 64))
	}
	return ns, nil
}

// sessionTarget reads the first target label the policy names.
func sessionTarget(a *Alert, pol *CompiledPolicy) (*kubagev1alpha1.TroubleshootTarget, *Rejection) {
	for _, t := range pol.targets {
		v := a.Labels[t.Label]
		if v == "" {
			continue
		}
		if len(validation.IsDNS1123Subdomain(v)) > 0 {
			return nil, reject(ReasonInvalidTargetName, "label %s=%q is not a valid %s name", t.Label, text.Clip(v, 64), t.Kind)
		}
		return &kubagev1alpha1.TroubleshootTarget{APIGroup: t.APIGroup, Kind: t.Kind, Name: v}, nil
	}
	return nil, nil
}

// problemText says what fires and where, then the alert's own summary and description.
func problemText(a *Alert, target *kubagev1alpha1.TroubleshootTarget, ns string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Alert %s is firing", a.Name())
	if target != nil {
		fmt.Fprintf(&b, " for %s %s", target.Kind, target.Name)
	}
	fmt.Fprintf(&b, " in namespace %s.", ns)
	for _, key := range []string{"summary", "description", "message"} {
		if v := strings.TrimSpace(cleanText(a.Annotations[key])); v != "" {
			fmt.Fprintf(&b, "\n%s: %s", key, v)
		}
	}
	return text.Clip(b.String(), maxProblemBytes)
}

// hints keeps the runbook first, then the labels, the alert's origin and the other
// annotations, each bounded; the brains read them as data.
func hints(a *Alert) []string {
	var out []string
	add := func(key, value string) {
		value = strings.TrimSpace(cleanText(value))
		if value != "" && len(out) < maxHints {
			out = append(out, text.Clip(key+": "+value, maxHintBytes))
		}
	}
	add("runbook_url", a.Annotations["runbook_url"])
	if c := a.Labels["container"]; c != "" {
		add("container", c)
	}
	add("labels", labelString(a.Labels))
	add("generatorURL", a.GeneratorURL)
	keys := make([]string, 0, len(a.Annotations))
	for k := range a.Annotations {
		switch k {
		case "runbook_url", "summary", "description", "message":
		default:
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		add(cleanText(k), a.Annotations[k])
	}
	return out
}

// labelString renders labels sorted as k="v" pairs.
func labelString(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%q", k, labels[k]))
	}
	return strings.Join(parts, ", ")
}

// timeRange starts a margin before the alert started (or before now, if the sender's
// clock runs ahead), and never further back than the API's 30 days.
func timeRange(startsAt, now time.Time, margin time.Duration) *kubagev1alpha1.TimeRange {
	from := startsAt
	if from.After(now) {
		from = now
	}
	from = from.Add(-margin)
	if oldest := now.Add(-maxTimeBack); from.Before(oldest) {
		from = oldest
	}
	t := metav1.NewTime(from.UTC().Truncate(time.Second))
	return &kubagev1alpha1.TimeRange{From: &t}
}
