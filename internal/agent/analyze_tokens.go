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

	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/tools"
)

// The tokens an error quotes (cluetokens.go) are looked up in the configuration the
// workload is given, in every pod state: the keys of the ConfigMaps it mounts (directly or
// projected), the ConfigMaps it loads as env, its literal env values and its arguments.
// The ConfigMap key (or the workload's spec) that holds the token is where the fix goes.
// Secret values are never read: a Secret is matched by its key names only.

// tokenHit is where a token of the error comes from.
type tokenHit struct {
	ref   ObjectRef
	kind  string // "ConfigMap", or the workload's kind for env and arguments
	key   string
	where string // "key prometheus.yml of ConfigMap prometheus-server, mounted at /etc/config"
	byKey bool   // the token is the key's own name (a file the ConfigMap provides)
	line  string // the line of a multi-line value that holds the token ("mount_path = \"auth/k8s\"")
}

// lineWith is the first line of a multi-line value holding tok, trimmed; "" for a one-line value.
func lineWith(value, tok string) string {
	if !strings.Contains(value, "\n") {
		return ""
	}
	lines := strings.Split(clipBytes(value, maxSettingFileKB<<10), "\n")
	for i, l := range lines {
		if hasToken(l, tok) {
			return tools.Sanitize(strings.TrimSpace(l)+sectionBody(lines, i), 160, true)
		}
	}
	return ""
}

// sectionBody is what a YAML section header line ("  memory_limiter:") holds: its indented
// child lines, joined ("check_interval: 1s, limit_mib: 64"), so a section the error names is
// quoted with its settings; "" for any other line.
func sectionBody(lines []string, i int) string {
	head := lines[i]
	if !strings.HasSuffix(strings.TrimRight(head, " \t\r"), ":") {
		return ""
	}
	indent := len(head) - len(strings.TrimLeft(head, " "))
	var kids []string
	for _, l := range lines[i+1:] {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if len(l)-len(strings.TrimLeft(l, " ")) <= indent || len(kids) == 6 {
			break
		}
		kids = append(kids, t)
	}
	if len(kids) == 0 {
		return ""
	}
	return " " + strings.Join(kids, ", ")
}

// configMapReader reads ConfigMaps by name once each, at most maxSourceObjects of them.
func (pc *podCheck) configMapReader(ctx context.Context) func(string) *corev1.ConfigMap {
	get := pc.e.configMapsUpTo(ctx, maxSourceObjects)
	seen := map[string]*corev1.ConfigMap{}
	return func(name string) *corev1.ConfigMap {
		if c, ok := seen[name]; ok {
			return c
		}
		c := get(name)
		seen[name] = c
		return c
	}
}

// mountedConfigMapsOf lists the ConfigMaps the pod's containers mount (failing container
// first), with where each is mounted.
func (d *depCheck) mountedConfigMapsOf() (names, paths []string) {
	for _, c := range d.containersFirst() {
		n, p := mountedConfigMaps(c, d.pc.pod)
		for i := range n {
			if !containsStr(names, n[i]) {
				names, paths = append(names, n[i]), append(paths, p[i])
			}
		}
	}
	return names, paths
}

// tokenSource finds where the workload gets tok. Mounted ConfigMaps come first (a key
// named tok, then a value holding it), then the ConfigMaps loaded as env; literal env
// values and arguments only when values is set (a file name in the arguments is how the
// application is told where its configuration is, not the value it rejects).
func (pc *podCheck) tokenSource(ctx context.Context, d *depCheck, cm func(string) *corev1.ConfigMap, tok string, values bool) *tokenHit {
	return pc.tokenSourceIn(ctx, d, cm, tok, values, true)
}

// tokenSourceIn is tokenSource, looking in mounted files only when mounted is set.
func (pc *podCheck) tokenSourceIn(ctx context.Context, d *depCheck, cm func(string) *corev1.ConfigMap, tok string, values, mounted bool) *tokenHit {
	if tok == "" {
		return nil
	}
	names, paths := d.mountedConfigMapsOf()
	if !mounted {
		names = nil
	}
	// The file itself first: another file that refers to it is not where it comes from.
	for i, n := range names {
		if c := cm(n); c != nil {
			if _, ok := c.Data[tok]; ok {
				return &tokenHit{ref: pc.e.ref("ConfigMap", c.Name), kind: "ConfigMap", key: tok, byKey: true, where: fmt.Sprintf("key %s of ConfigMap %s, mounted at %s", tok, c.Name, paths[i])}
			}
		}
	}
	for i, n := range names {
		c := cm(n)
		if c == nil {
			continue
		}
		ref := pc.e.ref("ConfigMap", c.Name)
		for _, k := range sortedKeys(c.Data) {
			if hasToken(c.Data[k], tok) {
				return &tokenHit{ref: ref, kind: "ConfigMap", key: k, line: lineWith(c.Data[k], tok), where: fmt.Sprintf("key %s of ConfigMap %s, mounted at %s", k, c.Name, paths[i])}
			}
		}
	}
	wl := pc.e.workloadOf(ctx, pc.pod)
	for _, c := range d.containersFirst() {
		for _, ev := range c.Env {
			if ev.ValueFrom == nil && values && hasToken(ev.Value, tok) {
				return &tokenHit{ref: wl, kind: wl.Kind, key: ev.Name, where: fmt.Sprintf("env %s of container %s in %s %s", ev.Name, c.Name, wl.Kind, wl.Name)}
			}
			if r := ev.ValueFrom; r != nil && r.ConfigMapKeyRef != nil {
				if m := cm(r.ConfigMapKeyRef.Name); m != nil && hasToken(m.Data[r.ConfigMapKeyRef.Key], tok) {
					return &tokenHit{ref: pc.e.ref("ConfigMap", m.Name), kind: "ConfigMap", key: r.ConfigMapKeyRef.Key,
						where: fmt.Sprintf("key %s of ConfigMap %s (env %s)", r.ConfigMapKeyRef.Key, m.Name, ev.Name)}
				}
			}
		}
		for _, ef := range c.EnvFrom {
			if ef.ConfigMapRef == nil {
				continue
			}
			if m := cm(ef.ConfigMapRef.Name); m != nil {
				for _, k := range sortedKeys(m.Data) {
					if hasToken(m.Data[k], tok) {
						return &tokenHit{ref: pc.e.ref("ConfigMap", m.Name), kind: "ConfigMap", key: k, where: fmt.Sprintf("key %s of ConfigMap %s (loaded as env)", k, m.Name)}
					}
				}
			}
		}
		if !values {
			continue
		}
		for _, a := range commandLine(c) {
			if hasToken(a, tok) {
				return &tokenHit{ref: wl, kind: wl.Kind, key: "args", where: fmt.Sprintf("the arguments of container %s in %s %s", c.Name, wl.Kind, wl.Name)}
			}
		}
	}
	return nil
}

// hasToken finds tok in s as it is written, not inside a longer word.
func hasToken(s, tok string) bool {
	s = clipBytes(s, maxFileBytes)
	for i := 0; i+len(tok) <= len(s); {
		j := strings.Index(s[i:], tok)
		if j < 0 {
			return false
		}
		j += i
		// A dot or dash between word characters continues a name: "orders" is not in
		// "orders.email" nor in "web-orders".
		before := j == 0 || !wordByte(tok[0]) || !wordByte(s[j-1]) && !(j >= 2 && (s[j-1] == '.' || s[j-1] == '-') && wordByte(s[j-2]))
		end := j + len(tok)
		after := end == len(s) || !wordByte(tok[len(tok)-1]) || !wordByte(s[end]) && !(end+1 < len(s) && (s[end] == '.' || s[end] == '-') && wordByte(s[end+1]))
		if before && after {
			return true
		}
		i = j + 1
	}
	return false
}

func wordByte(b byte) bool { return isLetter(b) || isDigit(b) || b == '_' }

// tokenInConfig reports an error whose quoted token is a value (or a file) the workload's
// configuration gives it: the application rejects what that key says.
func (pc *podCheck) tokenInConfig(ctx context.Context, d *depCheck) bool {
	if networkClass(d.clue.Class) {
		return false
	}
	switch d.clue.Class {
	case ErrAuth, ErrLimit, ErrPool, ErrMemory, ErrDisk, ErrFiles, ErrForbidden:
		return false
	}
	cm := pc.configMapReader(ctx)
	_, asked := AskedName(d.clue.Line)
	// Only the error line's own tokens: the lines around it (a server's log of who
	// connected) quote names that are not what failed.
	for _, tok := range ErrorTokens(d.clue.Line) {
		if strings.HasPrefix(tok, "/") || pc.isClueHost(d, tok) {
			continue // paths are the mounts' business (missingFiles, configFileNamed), hosts the providers'
		}
		// A name asked of a server is a client's connection setting (env, arguments): a server's
		// own mounted files declare such names, and its log repeats what clients asked for.
		file := fileToken.MatchString(" " + tok)
		h := pc.tokenSourceIn(ctx, d, cm, tok, !file, tok != asked)
		// A route or key path built from a configured prefix ("auth/k8s/login" from
		// mount_path auth/k8s): the parents of a relative path are tried, longest first.
		for parent := tok; h == nil && !file && strings.Count(parent, "/") > 1; {
			parent = parent[:strings.LastIndex(parent, "/")]
			if distinctive(parent) {
				h = pc.tokenSourceIn(ctx, d, cm, parent, true, true)
			}
		}
		if h == nil || h.byKey && isReady(pc.pod) || file && !h.byKey {
			// A Ready pod's error about a file it mounts is reportNamedConfigFile's; a file
			// name found only where another file refers to it does not say where it comes from.
			continue
		}
		facts := map[string]string{"token": tokenFact(tok), "key": h.key, "sourceResource": kubectlResource(h.ref)}
		var summary string
		if h.byKey {
			summary = fmt.Sprintf("%s: %s, which the error names, is %s; the application rejects what that file says, so fix the key there.", d.opening(), tokenFact(tok), h.where)
		} else {
			in := ""
			if h.line != "" && h.line != tok {
				in = fmt.Sprintf(" (“%s”)", h.line)
			}
			summary = fmt.Sprintf("%s: the value %s the error quotes comes from %s%s; the application rejects it, so fix it there.%s", d.opening(), tokenFact(tok), h.where, in,
				pc.e.othersSet(ctx, h.key, tok, pc.e.workloadOf(ctx, pc.pod)))
		}
		d.evIDs = append(d.evIDs, pc.e.objEvidence(h.ref, fmt.Sprintf("%s holds %s", h.where, tokenFact(tok))))
		d.report(ctx, "config-value-rejected", 0, h.ref, summary, nil, []ObjectRef{h.ref}, facts)
		return true
	}
	return pc.askedFromSecret(ctx, d)
}

// tokenFact quotes a token of untrusted text for a summary.
func tokenFact(tok string) string { return "\u201c" + tools.Sanitize(tok, 120, true) + "\u201d" }

// isClueHost reports a token that is (or holds) a host the clue names.
func (pc *podCheck) isClueHost(d *depCheck, tok string) bool {
	low := strings.ToLower(tok)
	for _, h := range d.clue.Hosts {
		if low == h.Host || strings.Contains(low, h.Host+":") || strings.Contains(low, "//"+h.Host) {
			return true
		}
	}
	return false
}
