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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// PolicyKey is the ConfigMap key holding the policy document.
const PolicyKey = "policy.yaml"

// Bounds on a policy document.
const (
	maxPolicyBytes   = 64 << 10
	maxMatchers      = 32
	maxListEntries   = 16
	maxCooldown      = 7 * 24 * time.Hour
	maxTimeMargin    = 24 * time.Hour
	defaultCooldown  = 30 * time.Minute
	defaultMargin    = 15 * time.Minute
	defaultSeverityL = "severity"
)

// Policy says which alerts become sessions and with what defaults. The operator's flags
// give the base policy; the policy ConfigMap, when there is one, overrides the fields it sets.
type Policy struct {
	// Matchers must all match an alert's labels for it to be investigated, e.g.
	// `severity=~"critical|warning"` or `alertname!="Watchdog"`.
	Matchers []string `json:"matchers,omitempty"`
	// NamespaceLabels are tried in order; the first present names the session's namespace.
	NamespaceLabels []string `json:"namespaceLabels,omitempty"`
	// DefaultNamespace receives alerts without a namespace label; empty rejects them.
	DefaultNamespace string `json:"defaultNamespace,omitempty"`
	// Mode of the sessions: Diagnose or Remediate.
	Mode kubagev1alpha1.Mode `json:"mode,omitempty"`
	// TaskRunner of the sessions; empty leaves the operator default.
	TaskRunner kubagev1alpha1.TaskRunner `json:"taskRunner,omitempty"`
	// Model names a Secret in the session's namespace; empty leaves the operator default.
	Model string `json:"model,omitempty"`
	// Budget of the sessions; unset fields take the API defaults.
	Budget *kubagev1alpha1.Budget `json:"budget,omitempty"`
	// Cooldown is how long after a session for a fingerprint a new occurrence of the same
	// alert (same labels, new startsAt) is skipped instead of investigated again.
	Cooldown *metav1.Duration `json:"cooldown,omitempty"`
	// TimeMargin is how far before startsAt the session's time range begins.
	TimeMargin *metav1.Duration `json:"timeMargin,omitempty"`
	// SeverityLabel is the label read for the severity.
	SeverityLabel string `json:"severityLabel,omitempty"`
	// Severities maps lowercase severity label values onto the API's severities, over the
	// built-in mapping (critical→Critical, error→High, warning→Medium, info→Low, ...).
	Severities map[string]kubagev1alpha1.Severity `json:"severities,omitempty"`
	// TargetLabels are tried in order; the first present names the session's target.
	TargetLabels []TargetLabel `json:"targetLabels,omitempty"`
	// Shards assign sessions to operator shards: the first rule whose matchers all match
	// the alert's labels sets the session's label sharding.kubage.io/key to its key; an
	// alert no rule matches gets no label (the main operator's share).
	Shards []ShardRule `json:"shards,omitempty"`
}

// ShardRule is one shard assignment of the alert policy.
type ShardRule struct {
	// Key is the shard, the value of the label sharding.kubage.io/key.
	Key string `json:"key"`
	// Matchers must all match the alert's labels, e.g. `namespace=~"team-a-.*"`; none
	// matches every alert.
	Matchers []string `json:"matchers,omitempty"`
}

// TargetLabel maps a label onto the kind of the object its value names.
type TargetLabel struct {
	Label string `json:"label"`
	Kind  string `json:"kind"`
	// APIGroup of the kind; empty lets the operator infer it from the kind.
	APIGroup string `json:"apiGroup,omitempty"`
}

// DefaultTargetLabels is the built-in target mapping, most specific first. Prometheus's
// `job` label names the scrape job, not a batch Job, so kube-state-metrics' `job_name` is
// used; `service` comes last because exporters often label every series with their own.
var DefaultTargetLabels = []TargetLabel{
	{Label: "pod", Kind: "Pod"},
	{Label: "job_name", Kind: "Job", APIGroup: "batch"},
	{Label: "cronjob", Kind: "CronJob", APIGroup: "batch"},
	{Label: "deployment", Kind: "Deployment", APIGroup: "apps"},
	{Label: "statefulset", Kind: "StatefulSet", APIGroup: "apps"},
	{Label: "daemonset", Kind: "DaemonSet", APIGroup: "apps"},
	{Label: "replicaset", Kind: "ReplicaSet", APIGroup: "apps"},
	{Label: "persistentvolumeclaim", Kind: "PersistentVolumeClaim"},
	{Label: "horizontalpodautoscaler", Kind: "HorizontalPodAutoscaler", APIGroup: "autoscaling"},
	{Label: "node", Kind: "Node"},
	{Label: "service", Kind: "Service"},
}

// defaultSeverities maps common severity label values onto the API enum.
var defaultSeverities = map[string]kubagev1alpha1.Severity{
	"critical": kubagev1alpha1.SeverityCritical, "crit": kubagev1alpha1.SeverityCritical,
	"page": kubagev1alpha1.SeverityCritical, "emergency": kubagev1alpha1.SeverityCritical,
	"fatal": kubagev1alpha1.SeverityCritical, "p1": kubagev1alpha1.SeverityCritical,
	"high": kubagev1alpha1.SeverityHigh, "error": kubagev1alpha1.SeverityHigh,
	"major": kubagev1alpha1.SeverityHigh, "p2": kubagev1alpha1.SeverityHigh,
	"warning": kubagev1alpha1.SeverityMedium, "warn": kubagev1alpha1.SeverityMedium,
	"medium": kubagev1alpha1.SeverityMedium, "p3": kubagev1alpha1.SeverityMedium,
	"info": kubagev1alpha1.SeverityLow, "low": kubagev1alpha1.SeverityLow,
	"minor": kubagev1alpha1.SeverityLow, "none": kubagev1alpha1.SeverityLow,
	"p4": kubagev1alpha1.SeverityLow, "p5": kubagev1alpha1.SeverityLow,
}

// DefaultPolicy investigates every alert except the always-firing heartbeat ones.
func DefaultPolicy() Policy {
	return Policy{
		Matchers:        []string{`alertname!~"Watchdog|InfoInhibitor|DeadMansSwitch"`},
		NamespaceLabels: []string{"namespace"},
		Mode:            kubagev1alpha1.ModeDiagnose,
		Cooldown:        &metav1.Duration{Duration: defaultCooldown},
		TimeMargin:      &metav1.Duration{Duration: defaultMargin},
		SeverityLabel:   defaultSeverityL,
	}
}

// CompiledPolicy is a checked policy ready to apply.
type CompiledPolicy struct {
	Policy
	matchers   []Matcher
	severities map[string]kubagev1alpha1.Severity
	targets    []TargetLabel
	shards     []compiledShard
	cooldown   time.Duration
	margin     time.Duration
}

var kindPattern = regexp.MustCompile(`^[A-Z][A-Za-z0-9]{0,62}$`)

// Compile checks the policy and fills in defaults for what it leaves unset.
func (p Policy) Compile() (*CompiledPolicy, error) {
	c := &CompiledPolicy{Policy: p, severities: map[string]kubagev1alpha1.Severity{}}
	var errs []error
	if len(p.Matchers) > maxMatchers {
		errs = append(errs, fmt.Errorf("matchers: at most %d", maxMatchers))
	}
	for i, s := range p.Matchers {
		if i >= maxMatchers {
			break
		}
		m, err := ParseMatcher(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("matchers[%d]: %w", i, err))
			continue
		}
		c.matchers = append(c.matchers, m)
	}
	if len(c.NamespaceLabels) == 0 {
		c.NamespaceLabels = []string{"namespace"}
	}
	if len(c.NamespaceLabels) > maxListEntries {
		errs = append(errs, fmt.Errorf("namespaceLabels: at most %d", maxListEntries))
	}
	for i, l := range c.NamespaceLabels {
		if !validLabelName(l) {
			errs = append(errs, fmt.Errorf("namespaceLabels[%d]: %q is not a label name", i, l))
		}
	}
	if ns := c.DefaultNamespace; ns != "" && len(validation.IsDNS1123Label(ns)) > 0 {
		errs = append(errs, fmt.Errorf("defaultNamespace: %q is not a namespace name", ns))
	}
	switch c.Mode {
	case "":
		c.Mode = kubagev1alpha1.ModeDiagnose
	case kubagev1alpha1.ModeDiagnose, kubagev1alpha1.ModeRemediate:
	default:
		errs = append(errs, fmt.Errorf("mode: %q is not Diagnose or Remediate", c.Mode))
	}
	switch c.TaskRunner {
	case "", kubagev1alpha1.TaskRunnerJob, kubagev1alpha1.TaskRunnerInProcess:
	default:
		errs = append(errs, fmt.Errorf("taskRunner: %q is not Job or InProcess", c.TaskRunner))
	}
	if c.Model != "" && len(validation.IsDNS1123Subdomain(c.Model)) > 0 {
		errs = append(errs, fmt.Errorf("model: %q is not a Secret name", c.Model))
	}
	if b := c.Budget; b != nil {
		errs = append(errs, checkBudget(b)...)
	}
	c.cooldown = defaultCooldown
	if c.Cooldown != nil {
		c.cooldown = c.Cooldown.Duration
	}
	if c.cooldown < 0 || c.cooldown > maxCooldown {
		errs = append(errs, fmt.Errorf("cooldown: must be between 0 and %s", maxCooldown))
	}
	c.margin = defaultMargin
	if c.TimeMargin != nil {
		c.margin = c.TimeMargin.Duration
	}
	if c.margin < 0 || c.margin > maxTimeMargin {
		errs = append(errs, fmt.Errorf("timeMargin: must be between 0 and %s", maxTimeMargin))
	}
	if c.SeverityLabel == "" {
		c.SeverityLabel = defaultSeverityL
	}
	if !validLabelName(c.SeverityLabel) {
		errs = append(errs, fmt.Errorf("severityLabel: %q is not a label name", c.SeverityLabel))
	}
	for k, v := range defaultSeverities {
		c.severities[k] = v
	}
	if len(c.Severities) > 4*maxListEntries {
		errs = append(errs, fmt.Errorf("severities: at most %d entries", 4*maxListEntries))
	}
	for k, v := range c.Severities {
		switch v {
		case kubagev1alpha1.SeverityCritical, kubagev1alpha1.SeverityHigh, kubagev1alpha1.SeverityMedium, kubagev1alpha1.SeverityLow:
			c.severities[strings.ToLower(k)] = v
		default:
			errs = append(errs, fmt.Errorf("severities[%q]: %q is not Critical, High, Medium or Low", k, v))
		}
	}
	c.targets = c.TargetLabels
	if len(c.targets) == 0 {
		c.targets = DefaultTargetLabels
	}
	if len(c.targets) > maxListEntries {
		errs = append(errs, fmt.Errorf("targetLabels: at most %d", maxListEntries))
	}
	for i, t := range c.targets {
		if !validLabelName(t.Label) || !kindPattern.MatchString(t.Kind) || len(t.APIGroup) > 253 {
			errs = append(errs, fmt.Errorf("targetLabels[%d]: want a label name, an UpperCamelCase kind and an optional apiGroup", i))
		}
	}
	errs = append(errs, c.compileShards()...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return c, nil
}

type compiledShard struct {
	key      string
	matchers []Matcher
}

func (c *CompiledPolicy) compileShards() []error {
	var errs []error
	if len(c.Shards) > maxListEntries {
		return []error{fmt.Errorf("shards: at most %d", maxListEntries)}
	}
	for i, r := range c.Shards {
		if r.Key == "" || len(validation.IsValidLabelValue(r.Key)) > 0 {
			errs = append(errs, fmt.Errorf("shards[%d]: key %q is not a label value", i, r.Key))
		}
		if len(r.Matchers) > maxMatchers {
			errs = append(errs, fmt.Errorf("shards[%d]: at most %d matchers", i, maxMatchers))
			continue
		}
		cs := compiledShard{key: r.Key}
		for j, s := range r.Matchers {
			m, err := ParseMatcher(s)
			if err != nil {
				errs = append(errs, fmt.Errorf("shards[%d].matchers[%d]: %w", i, j, err))
				continue
			}
			cs.matchers = append(cs.matchers, m)
		}
		c.shards = append(c.shards, cs)
	}
	return errs
}

// Shard is the shard key of the first rule matching the alert's labels, or "" for none.
func (c *CompiledPolicy) Shard(labels map[string]string) string {
next:
	for _, r := range c.shards {
		for i := range r.matchers {
			if !r.matchers[i].Matches(labels) {
				continue next
			}
		}
		return r.key
	}
	return ""
}

func checkBudget(b *kubagev1alpha1.Budget) []error {
	var errs []error
	bound := func(name string, v, hi int64) {
		if v < 0 || v > hi {
			errs = append(errs, fmt.Errorf("budget.%s: must be between 1 and %d", name, hi))
		}
	}
	bound("maxIterations", int64(b.MaxIterations), 20)
	bound("maxToolCalls", int64(b.MaxToolCalls), 1000)
	bound("maxTokens", b.MaxTokens, 10000000)
	bound("parallelism", int64(b.Parallelism), 16)
	if b.Timeout != nil && (b.Timeout.Duration <= 0 || b.Timeout.Duration > 2*time.Hour) {
		errs = append(errs, errors.New("budget.timeout: must be a positive duration of at most 2h"))
	}
	return errs
}

// Investigate reports whether the policy's matchers all accept the alert.
func (c *CompiledPolicy) Investigate(labels map[string]string) bool {
	for i := range c.matchers {
		if !c.matchers[i].Matches(labels) {
			return false
		}
	}
	return true
}

// Cooldown is the effective cooldown per fingerprint.
func (c *CompiledPolicy) CooldownDuration() time.Duration { return c.cooldown }

// ParsePolicy reads a policy document (YAML or JSON) over a base policy: fields the
// document sets replace the base's.
func ParsePolicy(doc []byte, base Policy) (Policy, error) {
	if len(doc) > maxPolicyBytes {
		return Policy{}, fmt.Errorf("policy is longer than %d bytes", maxPolicyBytes)
	}
	js, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return Policy{}, fmt.Errorf("policy is not YAML: %w", err)
	}
	p := base.deepCopy()
	if t := bytes.TrimSpace(js); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return p, nil
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return Policy{}, fmt.Errorf("policy: %w", err)
	}
	return p, nil
}

// deepCopy copies the policy so that decoding a document over it leaves the base intact.
func (p Policy) deepCopy() Policy {
	out := p
	out.Matchers = append([]string(nil), p.Matchers...)
	out.NamespaceLabels = append([]string(nil), p.NamespaceLabels...)
	out.TargetLabels = append([]TargetLabel(nil), p.TargetLabels...)
	out.Shards = make([]ShardRule, len(p.Shards))
	for i, r := range p.Shards {
		out.Shards[i] = ShardRule{Key: r.Key, Matchers: append([]string(nil), r.Matchers...)}
	}
	if p.Shards == nil {
		out.Shards = nil
	}
	if p.Budget != nil {
		out.Budget = p.Budget.DeepCopy()
	}
	if p.Cooldown != nil {
		d := *p.Cooldown
		out.Cooldown = &d
	}
	if p.TimeMargin != nil {
		d := *p.TimeMargin
		out.TimeMargin = &d
	}
	if p.Severities != nil {
		out.Severities = make(map[string]kubagev1alpha1.Severity, len(p.Severities))
		for k, v := range p.Severities {
			out.Severities[k] = v
		}
	}
	return out
}

// PolicySource yields the policy in force.
type PolicySource interface {
	Policy(ctx context.Context) (*CompiledPolicy, error)
}

// StaticPolicy is a PolicySource that never changes.
type StaticPolicy struct{ P *CompiledPolicy }

// Policy returns the fixed policy.
func (s StaticPolicy) Policy(context.Context) (*CompiledPolicy, error) { return s.P, nil }

// ConfigMapPolicy reads the policy from a ConfigMap's policy.yaml over a base policy, and
// re-reads it when its copy is older than TTL, so edits apply without a restart. A missing
// ConfigMap means the base policy; a broken one keeps the last good policy in force.
type ConfigMapPolicy struct {
	Reader client.Reader
	Key    types.NamespacedName
	Base   Policy
	TTL    time.Duration

	mu       sync.Mutex
	current  *CompiledPolicy
	loadedAt time.Time
	version  string
}

// Policy returns the cached policy, re-reading the ConfigMap when the cache is stale.
func (s *ConfigMapPolicy) Policy(ctx context.Context) (*CompiledPolicy, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ttl := s.TTL
	if ttl <= 0 {
		ttl = 10 * time.Second
	}
	if s.current != nil && time.Since(s.loadedAt) < ttl {
		return s.current, nil
	}
	p, err := s.load(ctx)
	s.loadedAt = time.Now()
	if err != nil {
		policyReloadErrors.Inc()
		ctrl.LoggerFrom(ctx).Error(err, "Alert policy not reloaded; keeping the policy in force", "ConfigMap", s.Key)
		if s.current != nil {
			return s.current, nil
		}
		base, berr := s.Base.Compile()
		if berr != nil {
			return nil, berr
		}
		s.current = base
		return s.current, nil
	}
	s.current = p
	return p, nil
}

func (s *ConfigMapPolicy) load(ctx context.Context) (*CompiledPolicy, error) {
	var cm corev1.ConfigMap
	err := s.Reader.Get(ctx, s.Key, &cm)
	switch {
	case apierrors.IsNotFound(err):
		if s.version != "absent" {
			ctrl.LoggerFrom(ctx).Info("Alert policy ConfigMap not found; using the flag policy", "ConfigMap", s.Key)
			s.version = "absent"
		}
		return s.Base.Compile()
	case err != nil:
		return nil, fmt.Errorf("reading alert policy ConfigMap: %w", err)
	}
	if s.current != nil && cm.ResourceVersion == s.version {
		return s.current, nil
	}
	doc, ok := cm.Data[PolicyKey]
	if !ok {
		return nil, fmt.Errorf("alert policy ConfigMap has no key %q", PolicyKey)
	}
	p, err := ParsePolicy([]byte(doc), s.Base)
	if err != nil {
		return nil, err
	}
	c, err := p.Compile()
	if err != nil {
		return nil, fmt.Errorf("alert policy: %w", err)
	}
	s.version = cm.ResourceVersion
	ctrl.LoggerFrom(ctx).Info("Loaded alert policy", "ConfigMap", s.Key, "resourceVersion", cm.ResourceVersion)
	return c, nil
}
