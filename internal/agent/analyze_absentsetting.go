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
	"path"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/tools"
)

// "no external labels configured on Prometheus server": a component (often a sidecar) needs
// a setting of the server it runs beside, and says so in words. The server's configuration
// file is the one a container of the pod is started with (--config.file=/etc/config/
// prometheus.yml) from a mounted ConfigMap; when that file has no key spelt like the words
// (external_labels, externalLabels), that ConfigMap key is where the setting goes.

var absentInWords = regexp.MustCompile(`(?i)\bno ([a-z]{3,20}(?: [a-z]{2,20}){0,2}) (?:configured|set|defined|specified)\b(?: (?:on|in|for) (?:the )?([a-z][a-z0-9-]{1,40}))?`)

// configFileArg finds a path argument ("--config.file=/etc/config/prometheus.yml", "-c
// /etc/app.conf") of container c that a mounted ConfigMap key provides.
func (pc *podCheck) configFileArg(ctx context.Context, c corev1.Container) (*corev1.ConfigMap, string, string) {
	cm := pc.configMapReader(ctx)
	for _, a := range commandLine(c) {
		p := a
		if i := strings.IndexByte(a, '='); i >= 0 {
			p = a[i+1:]
		}
		if !strings.HasPrefix(p, "/") || !fileToken.MatchString(" "+path.Base(p)) {
			continue
		}
		m, vol := mountFor(c, pc.pod, p)
		if m == nil || vol == nil || vol.ConfigMap == nil {
			continue
		}
		key := path.Base(p)
		if m.SubPath != "" {
			key = m.SubPath
		}
		if x := cm(vol.ConfigMap.Name); x != nil {
			if _, ok := x.Data[key]; ok {
				return x, key, p
			}
		}
	}
	return nil, "", ""
}

// absentSetting reports a setting an error says in words is not configured, which the
// server's configuration file in the pod does not hold.
func (pc *podCheck) absentSetting(ctx context.Context, d *depCheck) bool {
	m := absentInWords.FindStringSubmatch(d.clue.Line)
	if m == nil {
		// The words may sit in a warning the error line does not quote ("changing probe
		// status ... reason=no external labels configured"): the last such line is used.
		line := pc.lastLogMatch(d.cs.Name, absentInWords)
		if m = absentInWords.FindStringSubmatch(line); m == nil {
			return false
		}
		dd := *d
		dd.clue.Line, dd.clue.Also = tools.Sanitize(quoteWindow(line, ErrConfig), maxClueLine, true), ""
		d = &dd
	}
	words := strings.Fields(strings.ToLower(m[1]))
	server := strings.ToLower(m[2])
	camel := words[0]
	for _, w := range words[1:] {
		camel += strings.ToUpper(w[:1]) + w[1:]
	}
	spellings := []string{strings.Join(words, "_"), strings.Join(words, "-"), camel}
	for _, c := range d.containersFirst() {
		if server != "" && !strings.Contains(strings.ToLower(c.Image), server) {
			continue
		}
		x, key, p := pc.configFileArg(ctx, c)
		if x == nil {
			continue
		}
		body := clipBytes(x.Data[key], maxFileBytes)
		for _, s := range spellings {
			if strings.Contains(body, s) {
				return false // the file has it: the server did not load it, or another value is wrong
			}
		}
		ref := pc.e.ref("ConfigMap", x.Name)
		d.evIDs = append(d.evIDs, pc.e.objEvidence(ref, fmt.Sprintf("ConfigMap %s key %s has no %s", x.Name, key, spellings[0])))
		d.report(ctx, "config-value-missing", 0, ref, fmt.Sprintf("%s: container %s is started with %s, key %s of ConfigMap %s, which sets no %s (nor %s): add it there (no env setting replaces it), then restart the pods.",
			d.opening(), c.Name, p, key, x.Name, spellings[0], spellings[2]), nil, []ObjectRef{ref},
			map[string]string{"key": spellings[0], "path": p, "sourceResource": kubectlResource(ref)})
		return true
	}
	return false
}

// lastLogMatch is the last line of the container's log tail that re matches, or "".
func (pc *podCheck) lastLogMatch(container string, re *regexp.Regexp) string {
	lines := pc.logTail(container)
	for i := len(lines) - 1; i >= 0; i-- {
		if l := clipBytes(lines[i], maxClueLineLen); re.MatchString(l) {
			return l
		}
	}
	return ""
}
