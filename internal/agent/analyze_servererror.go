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
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// A provider can be Ready and still be the fault: it answers, with an error of its own
// ("etcdserver: mvcc: database space exceeded", "elasticsearch: cluster_block_exception").
// A client quoting such an error names the server by its software in the error's words;
// when those words name the provider it is configured to call (its workload or its image),
// the provider is blamed, with its own log's error when that can be read.

// serverWord finds, in an error line, a word naming the provider (a token starting with the
// workload's name or the image's base name, 4 characters or more), or "".
func serverWord(line string, names ...string) string {
	low := strings.ToLower(clipBytes(line, maxClueLineLen))
	words := strings.FieldsFunc(low, func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < '0' || r > '9')
	})
	for _, n := range names {
		n = strings.ToLower(n)
		if len(n) < 4 {
			continue
		}
		for _, w := range words {
			if strings.HasPrefix(w, n) {
				return w
			}
		}
	}
	return ""
}

// imageBase is an image reference's last path element without tag or digest
// ("quay.io/coreos/etcd:v3.5.15" → "etcd").
func imageBase(image string) string {
	image, _, _ = strings.Cut(image, "@")
	base := path.Base(image)
	base, _, _ = strings.Cut(base, ":")
	return base
}

// providerWord is the word of the client's error that names a Ready provider's software
// (its workload or image), or "" when the error does not name it or never reached it.
func (pc *podCheck) providerWord(ctx context.Context, d *depCheck, ready []*corev1.Pod) string {
	// A failed lookup or a refused connection never reached the server's software.
	if !d.clue.IsError() || len(ready) == 0 || d.clue.Class == ErrDNS || d.clue.Class == ErrRefused {
		return ""
	}
	wl := pc.e.workloadOf(ctx, ready[0])
	names := []string{wl.Name}
	for _, c := range ready[0].Spec.Containers {
		names = append(names, imageBase(c.Image))
	}
	// The address the client called names the provider too; only the error's own words count.
	line := strings.ToLower(clipBytes(d.clue.Line, maxClueLineLen))
	for _, h := range d.clue.Hosts {
		line = strings.ReplaceAll(line, strings.ToLower(h.Host), " ")
	}
	return serverWord(line, names...)
}

// serverErrorFrom blames a Ready provider whose own software the client's error names; pl
// is the provider's log when it was already read.
func (pc *podCheck) serverErrorFrom(ctx context.Context, d *depCheck, head string, ready []*corev1.Pod, pl providerLog, facts map[string]string) bool {
	word := pc.providerWord(ctx, d, ready)
	if word == "" {
		return false
	}
	e := pc.e
	// The server's reply names one of its own settings ("maximum payload exceeded" and
	// max_payload in its config): that setting, not the server as a whole.
	if pc.settingEchoed(ctx, d, false) {
		return true
	}
	wl := e.workloadOf(ctx, ready[0])
	said, conf := "", 60
	if pl.pod != nil {
		said, conf = fmt.Sprintf(" Its pod %s logs %s.", pl.pod.Name, quoteLine(pl.clue.Line)), 75
	}
	for i, p := range representatives(ready, 2) {
		if pl.pod != nil || i >= maxLogContainers || len(p.Spec.Containers) == 0 {
			break
		}
		lr := e.logs(ctx, p.Name, p.Spec.Containers[0].Name, false)
		if c := ExtractClues(textLines(lr)); c.IsError() {
			said, conf = fmt.Sprintf(" Its pod %s logs %s.", p.Name, quoteLine(c.Line)), 75
			pref := e.ref("Pod", p.Name)
			d.evIDs = append(d.evIDs, e.evidence(fmt.Sprintf("Log of %s: %s", p.Name, c.Line), Source{Kind: SourceLog, Object: &pref, Tool: "k8s_logs"}, c.Line))
			break
		} else if lr.Note != "" && len(lr.Lines) == 0 && said == "" {
			said = fmt.Sprintf(" Its log cannot be read (%s).", clipString(strings.TrimPrefix(lr.Note, "logs unavailable: "), 100))
		}
	}
	facts["serverWord"] = word
	d.report(ctx, "dependency-unreachable", conf, wl, fmt.Sprintf("%s, whose %d pod(s) are Ready: the error (%q) is one the server returns, so the fault is in %s %s, not in the client.%s",
		head, len(ready), word, wl.Kind, wl.Name, said), nil, []ObjectRef{wl}, facts)
	return true
}
