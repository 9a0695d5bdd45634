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
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// How a class that blames by setting (blameSetting) finds the object a user edits: the
// provider's setting, the consumer's, a Secret key the consumer's value must come from, and
// last a default the software falls back to when nobody sets it.

// firstMatch is the first setting answering one of specs (a setting with a value first).
func firstMatch(specs []settingSpec, settings []configSetting) (*settingSpec, *configSetting) {
	for i := range specs {
		if specs[i].absent != "" && specs[i].value == "" {
			continue // only its absence says something
		}
		for j := range settings {
			if specs[i].matches(settings[j]) {
				return &specs[i], &settings[j]
			}
		}
	}
	return nil, nil
}

// secretMatch is the first Secret key answering, by name, a spec whose value is asked for
// with a want: the value cannot be read, so the key is where to look.
func secretMatch(specs []settingSpec, settings []configSetting) (*settingSpec, *configSetting) {
	for i := range specs {
		if specs[i].want == "" || specs[i].value == "" {
			continue
		}
		for j := range settings {
			if settings[j].secret && specKey[specs[i].key].MatchString(settingName(settings[j].name)) {
				return &specs[i], &settings[j]
			}
		}
	}
	return nil, nil
}

// unmet is the first spec with a default that no setting answers.
func unmet(specs []settingSpec, settings []configSetting) *settingSpec {
	for i := range specs {
		if specs[i].absent == "" {
			continue
		}
		found := false
		for _, c := range settings {
			if specs[i].matches(c) {
				found = true
				break
			}
		}
		if !found {
			return &specs[i]
		}
	}
	return nil
}

// specName is a spec's setting as a reader would write it: its name when the entry gives
// one, else its long flag ("--concurrency") when it has one, else its first alternative.
func specName(s *settingSpec) string {
	if s.name != "" {
		return s.name
	}
	k := optionalGroup.ReplaceAllString(strings.ReplaceAll(s.key, "(^|_)", ""), "")
	k = strings.NewReplacer("^", "", "$", "", "(", "", ")", "", `\d`, "", `\s`, "").Replace(k)
	alts := strings.Split(k, "|")
	for _, a := range alts {
		if strings.HasPrefix(a, "--") {
			return a
		}
	}
	return alts[0]
}

// optionalGroup is an optional part of a key pattern ("(jdbc_)?").
var optionalGroup = regexp.MustCompile(`\([^()]*\)\?`)

// settingsSaid states, for each spec, the setting that answers it or the default its absence means.
func settingsSaid(specs []settingSpec, settings []configSetting) []string {
	var out []string
	for i := range specs {
		s, found := &specs[i], false
		for _, c := range settings {
			if s.matches(c) {
				out, found = append(out, "it sets "+c.say()), true
				break
			}
		}
		if !found && s.absent != "" {
			out = append(out, fmt.Sprintf("no %s is set, so it is %s", specName(s), s.absent))
		}
	}
	return out
}

// alsoSet states the other settings answering specs besides the one already said (a few),
// and the defaults that the absence of the others means; skip is a spec already said.
func alsoSet(specs []settingSpec, settings []configSetting, said *configSetting, skip *settingSpec) []string {
	var out []string
	for i := range specs {
		s := &specs[i]
		found := false
		for j := range settings {
			c := &settings[j]
			if !s.matches(*c) {
				continue
			}
			found = true
			line := "it also sets " + c.say()
			if c.where == said.where {
				line = "and " + c.name + " = " + c.value
			}
			if (c.name != said.name || c.ref != said.ref || c.value != said.value) && len(out) < 4 && !containsStr(out, line) {
				out = append(out, line)
			}
		}
		if !found && s.absent != "" && s.value == "" && s != skip && (skip == nil || s.key != skip.key) {
			out = append(out, fmt.Sprintf("no %s is set, so it runs with %s", specName(s), s.absent))
		}
	}
	return out
}

// runsSoftware reports whether pod p runs the entry's software (any, when the entry does not say).
func runsSoftware(k *knownError, p *corev1.Pod) bool {
	re := knownRuns[k]
	if re == nil {
		return true
	}
	for _, c := range p.Spec.Containers {
		if re.MatchString(strings.ToLower(c.Image + " " + strings.Join(commandWords(c), " "))) {
			return true
		}
	}
	return false
}

// blameBySetting blames the object holding the decisive setting: the provider's first, then
// the consumer's, then the Secret key the consumer's value must come from; a default that is
// the fault (no such setting) blames the consumer's workload, else the provider's.
func (pc *podCheck) blameBySetting(ctx context.Context, k *knownError, wl ObjectRef, own []configSetting, provs []knownProvider) *knownFinding {
	server := wl // whose replicas a replication factor is held against
	if len(provs) > 0 {
		server = provs[0].wl
	}
	for _, p := range provs {
		if s, c := pc.firstFault(ctx, k.provider, p.settings, p.wl); c != nil && s.value != "" {
			f := &knownFinding{culprit: c.ref, key: c.name, extra: []ObjectRef{pc.e.ref("Service", p.svc.Name), p.wl},
				says: []string{fmt.Sprintf("Service %s, which the client calls, is served by %s with %s", p.svc.Name, pc.workloadSaid(ctx, p.wl), c.say())}}
			f.says = append(f.says, alsoSet(k.provider, p.settings, c, s)...)
			return f
		}
	}
	if s, c := pc.firstFault(ctx, k.consumer, own, server); c != nil && s.value != "" && s.absent == "" {
		f := &knownFinding{culprit: c.ref, key: c.name, says: []string{"it runs with " + c.say()}}
		if s.want != "" {
			f.says[0] += ": it " + s.want
		}
		f.says = append(f.says, alsoSet(k.consumer, own, c, s)...)
		return f
	}
	if s, c := secretMatch(k.consumer, own); c != nil {
		return &knownFinding{culprit: c.ref, key: c.name, conf: 74,
			says: []string{fmt.Sprintf("it reads %s: that value %s", c.say(), s.want)}}
	}
	if runsSoftware(k, pc.pod) {
		if s := unmet(k.consumer, own); s != nil && pc.overReplicas(ctx, s, s.absent, server) {
			who := wl.Kind + " " + wl.Name
			if s.overReplicas {
				who = pc.workloadSaid(ctx, wl)
			}
			f := &knownFinding{culprit: wl, key: specName(s), extra: configFiles(own), says: []string{fmt.Sprintf("no %s is set in %s (env, arguments, ConfigMaps), so it runs with %s", specName(s), who, s.absent)}}
			if len(k.reasons) > 0 {
				f.says = append(f.says, pc.resourceNumbers(ctx, f.key)...)
			}
			return f
		}
	}
	for _, p := range provs {
		if !runsSoftware(k, p.pod) {
			continue
		}
		if s := unmet(k.provider, p.settings); s != nil && pc.overReplicas(ctx, s, s.absent, p.wl) {
			f := &knownFinding{culprit: p.wl, key: specName(s), extra: append([]ObjectRef{pc.e.ref("Service", p.svc.Name)}, configFiles(p.settings)...),
				says: []string{fmt.Sprintf("Service %s, which the client calls, is served by %s, which sets no %s (env, arguments, ConfigMaps), so it runs with %s", p.svc.Name, pc.workloadSaid(ctx, p.wl), specName(s), s.absent)}}
			f.says = append(f.says, alsoSet(k.provider, p.settings, &configSetting{}, s)...)
			return f
		}
	}
	return nil
}

// memoryNumbers states the memory limit and request of the container.
func memoryNumbers(c corev1.Container) string {
	lim := "its container has no memory limit"
	if q, ok := c.Resources.Limits[corev1.ResourceMemory]; ok {
		lim = "its container's memory limit is " + q.String()
	}
	if q, ok := c.Resources.Requests[corev1.ResourceMemory]; ok {
		lim += " (request " + q.String() + ")"
	}
	return lim
}

// resourceNumbers states the container's memory limit against the node's CPUs.
func (pc *podCheck) resourceNumbers(ctx context.Context, _ string) []string {
	var out []string
	node := ""
	if pc.pod.Spec.NodeName != "" {
		if n, err := getAs[*corev1.Node](ctx, pc.e, "Node", pc.pod.Spec.NodeName); err == nil {
			q := n.Status.Capacity[corev1.ResourceCPU]
			node = fmt.Sprintf("node %s has %s CPUs", n.Name, q.String())
		}
	}
	var c *corev1.Container
	for i := range pc.pod.Spec.Containers {
		if c == nil || pc.pod.Spec.Containers[i].Resources.Limits != nil {
			c = &pc.pod.Spec.Containers[i]
		}
	}
	if c != nil {
		lim := "no memory limit"
		if q, ok := c.Resources.Limits[corev1.ResourceMemory]; ok {
			lim = "a memory limit of " + q.String()
		}
		if q, ok := c.Resources.Requests[corev1.ResourceMemory]; ok {
			lim += " (request " + q.String() + ")"
		}
		if q, ok := c.Resources.Limits[corev1.ResourceCPU]; ok {
			lim += "; its CPU limit of " + q.String() + " does not change the CPUs it sees"
		}
		if node != "" {
			out = append(out, node+", and every one of those processes shares "+lim)
		} else {
			out = append(out, "those processes share "+lim)
		}
	}
	return out
}

// firstFault is firstMatch, keeping a replication factor only above the server's replicas.
func (pc *podCheck) firstFault(ctx context.Context, specs []settingSpec, settings []configSetting, server ObjectRef) (*settingSpec, *configSetting) {
	for i := range specs {
		s, c := firstMatch(specs[i:i+1], settings)
		if c != nil && pc.overReplicas(ctx, s, c.value, server) {
			return s, c
		}
	}
	return nil, nil
}

// overReplicas reports whether spec s, with the number in value, passes the check its
// overReplicas asks for: more copies than the server's workload runs replicas.
func (pc *podCheck) overReplicas(ctx context.Context, s *settingSpec, value string, server ObjectRef) bool {
	if !s.overReplicas {
		return true
	}
	m := firstNumber.FindString(value)
	n, err := strconv.Atoi(m)
	return err == nil && int32(n) > pc.workloadReplicas(ctx, server)
}

var firstNumber = regexp.MustCompile(`\d{1,6}`)

// workloadSaid is a workload with its replicas ("StatefulSet kafka (1 replica)").
func (pc *podCheck) workloadSaid(ctx context.Context, wl ObjectRef) string {
	if wl.Kind != "Deployment" && wl.Kind != "StatefulSet" {
		return wl.Kind + " " + wl.Name
	}
	n := pc.workloadReplicas(ctx, wl)
	if n == 1 {
		return fmt.Sprintf("%s %s (1 replica)", wl.Kind, wl.Name)
	}
	return fmt.Sprintf("%s %s (%d replicas)", wl.Kind, wl.Name, n)
}

// configFiles are the ConfigMaps whose mounted files give settings (at most two): where a
// setting nobody wrote would go, so a reader fixing the default finds them named too.
func configFiles(settings []configSetting) []ObjectRef {
	var out []ObjectRef
	for _, c := range settings {
		if c.ref.Kind == "ConfigMap" && strings.Contains(c.where, "(mounted at ") && !containsRef(out, c.ref) && len(out) < 2 {
			out = append(out, c.ref)
		}
	}
	return out
}

func containsRef(refs []ObjectRef, r ObjectRef) bool {
	for _, x := range refs {
		if x == r {
			return true
		}
	}
	return false
}
