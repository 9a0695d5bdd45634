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

	"github.com/kubage/kubage/internal/tools"
)

// A server that binds its listener to the loopback interface is Ready (its probes may use
// another port, or the kubelet's exec) and answers nobody outside its own pod: every client
// going through the Service is refused. Servers say where they listen when they start
// ("Starting GRPC server endpoint=localhost:4317", "Listening on 127.0.0.1:8080"), and many
// changed their default to localhost (OpenTelemetry Collector 0.104, others in dev mode).

// loopbackListen is a listener announcement on a loopback address, with its port.
var loopbackListen = regexp.MustCompile(`(?i)\b(?:listen|listening|serving|server|started|starting|bound|bind|endpoint)\b[^\n]{0,160}?(?:localhost|127\.0\.0\.1|\[::1\]|::1)["']?:(\d{2,5})\b`)

// listenWord marks a configuration line or key that sets where a server listens.
var listenWord = regexp.MustCompile(`(?i)(listen|bind|serve|server[_.-]?(addr|host)|http[_.-]?(addr|host)|host[_.-]?addr)`)

// loopbackListener reports a Ready provider whose log, or whose configuration, says it listens
// on loopback at the port the Service sends the refused client to.
func (pc *podCheck) loopbackListener(ctx context.Context, d *depCheck, svc *corev1.Service, ready []*corev1.Pod, sref ObjectRef, head string, facts map[string]string) bool {
	if d.clue.Class != ErrRefused || len(ready) == 0 {
		return false
	}
	e := pc.e
	p := ready[0]
	port := ""
	for _, h := range d.clue.Hosts {
		if h.Port != "" {
			port = h.Port
			break
		}
	}
	tp := targetPortOf(svc, p, port)
	if tp.Number == 0 {
		return false
	}
	cs := e.logOrder(p)
	if len(cs) == 0 {
		return false
	}
	lr := e.logs(ctx, p.Name, cs[0].Name, false)
	line := ""
	for _, l := range lr.Lines {
		if m := loopbackListen.FindStringSubmatch(l); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && int32(n) == tp.Number {
				line = strings.TrimSpace(l)
				break
			}
		}
	}
	wl := e.workloadOf(ctx, p)
	culprit, where := wl, fmt.Sprintf("%s %s", wl.Kind, wl.Name)
	pcp := &podCheck{e: e, pod: p, ref: e.ref("Pod", p.Name)}
	var spec corev1.Container
	for _, c := range p.Spec.Containers {
		if c.Name == cs[0].Name {
			spec = c
		}
	}
	dp := &depCheck{pc: pcp, cs: cs[0], spec: spec}
	cm := pcp.configMapReader(ctx)
	var set *tokenHit
	for _, tok := range []string{"localhost:" + fmt.Sprint(tp.Number), "127.0.0.1:" + fmt.Sprint(tp.Number), "[::1]:" + fmt.Sprint(tp.Number)} {
		if h := pcp.tokenSource(ctx, dp, cm, tok, true); h != nil {
			culprit, where, set = h.ref, h.where, h
			break
		}
	}
	// A server that does not announce its address (php-fpm's "ready to handle connections")
	// still reads it from its configuration: a listen setting on loopback at that port.
	said := ""
	switch {
	case line != "":
		said = fmt.Sprintf("it logs “%s”", tools.Sanitize(line, 200, true))
		d.evIDs = append(d.evIDs, e.objEvidence(e.ref("Pod", p.Name), fmt.Sprintf("pod %s logs: %s", p.Name, tools.Sanitize(line, 200, true))))
	case set != nil && listenWord.MatchString(set.key+" "+set.line):
		said = fmt.Sprintf("its configuration says “%s” (%s)", tools.Sanitize(orDefault(set.line, set.key), 160, true), set.where)
		d.evIDs = append(d.evIDs, e.objEvidence(set.ref, set.where+": "+tools.Sanitize(orDefault(set.line, set.key), 160, true)))
	default:
		return false
	}
	if culprit == wl {
		if names, paths := mountedConfigMaps(spec, p); len(names) > 0 {
			culprit, where = e.ref("ConfigMap", names[0]), fmt.Sprintf("its configuration in ConfigMap %s (mounted at %s), which sets no listen address for it, so the default applies", names[0], paths[0])
		}
	}
	facts["providerPod"], facts["sourceResource"] = p.Name, kubectlResource(culprit)
	d.report(ctx, "provider-listens-loopback", 0, culprit, fmt.Sprintf("%s, whose pod %s is Ready but listens on the loopback interface only: %s, so connections from other pods to port %d are refused. Make it listen on 0.0.0.0:%d: set the listen address (endpoint) in %s.",
		head, p.Name, said, tp.Number, tp.Number, where), nil, []ObjectRef{sref, wl, culprit}, facts)
	return true
}
