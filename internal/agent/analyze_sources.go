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
	"math"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// A container that fails on an error of its own, when nothing the checks before found broken
// in the cluster explains it, was most often given a wrong or missing setting: which one, the
// error did not say plainly enough for them to name it. What a reader does next is open the
// configuration the container reads. settingSources lists those objects — the ConfigMaps and
// Secrets it loads by env, envFrom or volume, then those of the server behind a Service its
// error names — with their keys, and the setting whose words come closest to the error's, so
// the answer says where to look and what to look at first. They are listed after the
// workload, never instead of it: this is where to look, not a proven cause.

// settingSource is a ConfigMap or Secret a container reads its settings from.
type settingSource struct {
	ref    ObjectRef
	keys   []string // key names; a Secret's values are never read
	server string   // the Service in front of the server it configures; "" for the container's own
}

// Bounds of what settingSources reads and says.
const (
	maxSettingSources = 5
	maxSourceKeysSaid = 6
	// minClosest is the least word score for a setting to be called closest to an error.
	minClosest = 1.5
)

// sourcesOf lists the ConfigMaps and Secrets container c of pod p reads, in the order it
// names them: env references, envFrom, then mounted volumes. Objects that do not exist are
// left out (a dangling reference is a finding of its own).
func (e *env) sourcesOf(ctx context.Context, p *corev1.Pod, c corev1.Container) []settingSource {
	var out []settingSource
	idx := map[string]int{}
	cm := e.configMapsUpTo(ctx, maxSourceObjects)
	add := func(kind, name string, keys ...string) {
		if name == "" || kind == "ConfigMap" && name == "kube-root-ca.crt" {
			return
		}
		var all []string
		switch kind {
		case "ConfigMap":
			m := cm(name)
			if m == nil {
				return
			}
			all = append(sortedKeys(m.Data), sortedKeys(m.BinaryData)...)
		case "Secret":
			// Key names only; e.get keeps each object for the task, so a Secret named twice is read once.
			sec, err := getAs[*corev1.Secret](ctx, e, "Secret", name)
			if err != nil || sec.Type == corev1.SecretTypeServiceAccountToken {
				return
			}
			all = sortedKeys(sec.Data)
		}
		if len(keys) == 0 {
			keys = all
		}
		k := kind + "/" + name
		if i, ok := idx[k]; ok {
			for _, key := range keys {
				if !containsStr(out[i].keys, key) {
					out[i].keys = append(out[i].keys, key)
				}
			}
			return
		}
		if len(out) >= maxSettingSources {
			return
		}
		idx[k] = len(out)
		out = append(out, settingSource{ref: e.ref(kind, name), keys: append([]string(nil), keys...)})
	}
	for _, ev := range c.Env {
		if r := ev.ValueFrom; r != nil && r.ConfigMapKeyRef != nil {
			add("ConfigMap", r.ConfigMapKeyRef.Name, r.ConfigMapKeyRef.Key)
		} else if r != nil && r.SecretKeyRef != nil {
			add("Secret", r.SecretKeyRef.Name, r.SecretKeyRef.Key)
		}
	}
	for _, ef := range c.EnvFrom {
		if ef.ConfigMapRef != nil {
			add("ConfigMap", ef.ConfigMapRef.Name)
		} else if ef.SecretRef != nil {
			add("Secret", ef.SecretRef.Name)
		}
	}
	vols := map[string]corev1.Volume{}
	for _, v := range p.Spec.Volumes {
		vols[v.Name] = v
	}
	for _, m := range c.VolumeMounts {
		v, ok := vols[m.Name]
		switch {
		case !ok:
		case v.ConfigMap != nil:
			add("ConfigMap", v.ConfigMap.Name)
		case v.Secret != nil:
			add("Secret", v.Secret.SecretName)
		case v.Projected != nil:
			for _, s := range v.Projected.Sources {
				if s.ConfigMap != nil {
					add("ConfigMap", s.ConfigMap.Name)
				} else if s.Secret != nil {
					add("Secret", s.Secret.Name)
				}
			}
		}
	}
	return out
}

// settingSources returns the configuration objects a failing container (and the server its
// error names) reads, and a sentence saying so with the setting closest to the error, for a
// finding whose cause the checks before could not name.
func (pc *podCheck) settingSources(ctx context.Context, d *depCheck) ([]ObjectRef, string) {
	e := pc.e
	own := e.sourcesOf(ctx, pc.pod, d.spec)
	var servers []settingSource
	var settings []configSetting
	wl := e.workloadOf(ctx, pc.pod)
	if d.clue.IsError() {
		settings = e.configSettings(ctx, pc.pod, d.spec, wl)
		// The servers its error names (by Service name or cluster IP), not every server it
		// is configured for: the error is about the one it talked to.
		for i, s := range pc.namedServices(ctx, d) {
			p := pc.backendOf(ctx, s)
			if p == nil || i >= 2 || len(p.Spec.Containers) == 0 {
				continue
			}
			c := p.Spec.Containers[0]
			for _, src := range e.sourcesOf(ctx, p, c) {
				src.server = s.Name
				servers = append(servers, src)
			}
			settings = append(settings, e.configSettings(ctx, p, c, e.workloadOf(ctx, p))...)
		}
	}
	all := append(append([]settingSource(nil), own...), servers...)
	if len(all) == 0 {
		return nil, ""
	}
	best := closestSetting(d.clue.Line, settings)
	var refs []ObjectRef
	if best != nil && best.ref.Kind != "" && best.ref.Key() != wl.Key() {
		refs = append(refs, best.ref)
	}
	for _, s := range all {
		refs = mergeRefs(refs, []ObjectRef{s.ref})
	}
	return refs, sourcesSentence(own, servers, best)
}

// sourcesSentence says which setting is closest to the error and where the settings come
// from, bounded so that the summary it ends keeps room for the rest.
func sourcesSentence(own, servers []settingSource, best *configSetting) string {
	var b strings.Builder
	if best != nil {
		b.WriteString(" The setting whose words come closest to the error's: " + clipString(best.say(), 160) + ".")
	}
	if len(own) > 0 {
		b.WriteString(" Its settings come from " + clipString(sayingSources(own), 300) + ".")
	}
	if len(servers) > 0 {
		b.WriteString(fmt.Sprintf(" The server behind Service %s, which its error names, reads %s.", servers[0].server, clipString(sayingSources(servers), 200)))
	}
	b.WriteString(" Nothing found broken in the cluster explains it: check these first.")
	return b.String()
}

// sayingSources is "ConfigMap a (keys x, y), Secret b (keys z; values not read)".
func sayingSources(l []settingSource) string {
	parts := make([]string, 0, len(l))
	for _, s := range l {
		keys := s.keys
		more := ""
		if len(keys) > maxSourceKeysSaid {
			keys, more = keys[:maxSourceKeysSaid], fmt.Sprintf(" and %d more", len(s.keys)-maxSourceKeysSaid)
		}
		part := s.ref.Kind + " " + s.ref.Name
		if len(keys) > 0 {
			part += " (keys " + clipString(strings.Join(keys, ", "), 100) + more
			if s.ref.Kind == "Secret" {
				part += "; values not read"
			}
			part += ")"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, ", ")
}

// closestSetting is the setting whose name (and value) shares the most distinctive words
// with the error line, or nil when none shares enough. Words many settings share weigh less.
func closestSetting(line string, settings []configSetting) *configSetting {
	if strings.TrimSpace(line) == "" || len(settings) == 0 {
		return nil
	}
	words := stemSet(nameWordsOf(line))
	flat := flatWords(line)
	// The compound identifiers the error quotes ('connectionString', plugin.path), which a
	// setting's name may hold whole (ConnectionStrings__Default, CONNECT_PLUGIN_PATH).
	var idents []string
	for _, t := range compoundToken.FindAllString(line, 20) {
		if f := flatWords(t); len(f) >= 8 && !containsStr(idents, f) {
			idents = append(idents, f)
		}
	}
	df := map[string]int{}
	stems := make([]map[string]bool, len(settings))
	for i, s := range settings {
		stems[i] = stemSet(nameWordsOf(s.name))
	}
	for i := range settings {
		// A setting that extends another's name (auth_basic_user_file of auth_basic) is
		// that setting's parameter: the words they share count once, as one family's.
		inherited := map[string]bool{}
		for j := range settings {
			if j != i && extendsName(settings[i].name, settings[j].name) {
				for w := range stems[j] {
					inherited[w] = true
				}
			}
		}
		for w := range stems[i] {
			if !inherited[w] {
				df[w]++
			}
		}
	}
	var best *configSetting
	bestScore := 0.0
	for i, s := range settings {
		score := 0.0
		for w := range stems[i] {
			wt := 0.0
			switch {
			case words[w] && len(w) >= 5:
				wt = 1
			case words[w]:
				wt = 0.5
			case len(w) >= 4 && abbreviates(w, words):
				wt = 0.5 // auth_basic and "basic authentication", conn_max and "connections"
			}
			score += wt / (1 + math.Log(float64(df[w])))
		}
		n := flatWords(s.name)
		if len(n) >= 6 && len(nameWordsOf(s.name)) >= 2 && strings.Contains(flat, n) {
			score += 3 // the setting's whole name, however the error spells its separators
		} else {
			for _, id := range idents {
				if strings.Contains(n, id) {
					score += 2 // an identifier the error quotes is part of the setting's name
					break
				}
			}
		}
		if v := strings.ToLower(s.value); !s.secret && distinctiveValue(v) && containsWord(strings.ToLower(line), v) {
			score += 2 // the error quotes the value it was given
		}
		if score >= minClosest && score > bestScore {
			best, bestScore = &settings[i], score
		}
	}
	return best
}

// extendsName reports whether name continues base's name by more words (auth_basic_user_file
// of auth_basic, QUEUE_PREFETCH_COUNT of QUEUE_PREFETCH).
func extendsName(name, base string) bool {
	nw, bw := nameWordsOf(name), nameWordsOf(base)
	if len(bw) == 0 || len(nw) <= len(bw) {
		return false
	}
	for i := range bw {
		if nw[i] != bw[i] {
			return false
		}
	}
	return true
}

// stemSet is the set of words (three letters or more, no stop words), each without a plural s.
func stemSet(ws []string) map[string]bool {
	out := map[string]bool{}
	for _, w := range ws {
		if len(w) < 3 || echoStopWords[w] || strings.Trim(w, "0123456789") == "" {
			continue
		}
		if len(w) > 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		out[w] = true
	}
	return out
}

// flatWords is s lower-cased with everything but letters and digits removed:
// ConnectionStrings:Default, CONNECTIONSTRINGS__DEFAULT and connection-strings.default agree.
func flatWords(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			b.WriteByte(c)
		}
	}
	return b.String()
}

// distinctiveValue reports a value specific enough that finding it in an error ties the two:
// four characters or more, not a boolean, a bare small number or a common word.
func distinctiveValue(v string) bool {
	if len(v) < 4 || len(v) > maxSettingValue {
		return false
	}
	switch v {
	case "true", "false", "none", "null", "info", "debug", "warn", "error", "default", "enabled", "disabled", "http", "https":
		return false
	}
	return strings.Trim(v, "0123456789.") != "" || strings.Count(v, ".") == 3
}

// abbreviates reports a setting's word that is the start of a longer word of the error
// (auth of authentication, conn of connection): settings are often named with abbreviations.
func abbreviates(w string, words map[string]bool) bool {
	for x := range words {
		if len(x) >= len(w)+2 && strings.HasPrefix(x, w) {
			return true
		}
	}
	return false
}
