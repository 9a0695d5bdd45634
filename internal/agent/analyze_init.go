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
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/tools"
)

// An init container that never finishes holds the pod in Init:N/M without an error anywhere:
// it is usually a wait loop ("until nslookup mydb; do sleep 2; done", "nc -z db 5432") for a
// dependency that is not there. What its command waits for is matched against the cluster
// like any other configured address; its log, when readable, is read first.

// initPatience is how long an init container may run before it counts as stuck for sure;
// before that it is reported at lower confidence (it may still finish).
const initPatience = 2 * time.Minute

// isSidecar reports an init container that runs for the pod's lifetime (restartPolicy Always).
func isSidecar(c corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

func isInitContainer(p *corev1.Pod, name string) bool {
	for _, c := range p.Spec.InitContainers {
		if c.Name == name {
			return true
		}
	}
	return false
}

// initBlocked reports an init container that is still running while the pod waits for it.
func (pc *podCheck) initBlocked(ctx context.Context, cs corev1.ContainerStatus, spec corev1.Container) {
	ran := pc.e.now.Sub(cs.State.Running.StartedAt.Time).Round(time.Second)
	lr := pc.e.logs(ctx, pc.pod.Name, cs.Name, false)
	clue, logClue, evIDs := pc.textClues(ctx, cs.Name, "", lr)
	done := 0
	for _, st := range pc.pod.Status.InitContainerStatuses {
		if t := st.State.Terminated; t != nil && t.ExitCode == 0 {
			done++
		}
	}
	symptom := fmt.Sprintf("is still running after %s as an init container, so the pod's other containers have not started (Init:%d/%d)", ran, done, len(pc.pod.Spec.InitContainers))
	symptom += unreadableLog(lr)
	conf := 0
	if ran < initPatience {
		conf = 50
	}
	d := &depCheck{pc: pc, cs: cs, spec: spec, clue: clue, symptom: symptom, evIDs: evIDs, conf: conf}
	if pc.followClue(ctx, d) {
		return
	}
	if logClue.IsError() {
		dl := *d
		dl.clue = logClue
		if pc.followClue(ctx, &dl) {
			return
		}
	}
	cmd := commandLine(spec)
	script := tools.Sanitize(strings.Join(cmd, " "), 200, true)
	waits := ""
	if hs := commandHosts(cmd); len(hs) > 0 {
		waits = fmt.Sprintf(" It waits for %s.", strings.Join(hs, ", "))
	}
	said := ""
	if clue.IsError() {
		said = " Its log says " + quoteClue(clue) + "."
	}
	wl := pc.e.workloadOf(ctx, pc.pod)
	f := Finding{Rule: "init-container-blocked", Confidence: conf, Object: pc.ref, Culprit: wl, Evidence: append([]string{pc.statusEv}, evIDs...),
		Summary: fmt.Sprintf("Container %s of pod %s %s; its command is: %s.%s%s", cs.Name, pc.pod.Name, symptom, orDefault(script, "the image's entrypoint"), waits, said),
		Facts:   pc.facts(ctx, cs.Name, map[string]string{"running": ran.String(), "errorLine": clue.Line})}
	if wl.Key() != pc.ref.Key() {
		f.Affected = []ObjectRef{pc.ref}
	}
	pc.e.find(f)
}

// waitTools are network clients whose first operand is the host they reach; init containers
// run them in loops until a dependency answers.
var waitTools = map[string]bool{"nslookup": true, "dig": true, "host": true, "ping": true, "nc": true, "ncat": true, "netcat": true, "telnet": true, "wget": true, "curl": true}

// waitToolHost reads the host operand after a wait tool at words[i], skipping its options
// (and the value of options that take one), with the port when the next operand is one
// ("nc -z db 5432"). "" when there is none.
func waitToolHost(words []string, i int) string {
	for j := i + 1; j < len(words) && j <= i+6; j++ {
		w := strings.Trim(words[j], shellPunct)
		switch {
		case w == "":
			continue
		case strings.HasPrefix(w, "-"):
			if w == "-w" || w == "-W" || w == "-t" || w == "-T" || w == "-c" || w == "-O" || w == "-o" || w == "-p" {
				j++ // an option with a value
			}
			continue
		case strings.HasPrefix(w, "@"): // dig @server
			continue
		}
		// "myservice.$(cat …namespace).svc.cluster.local" keeps the part before the expansion.
		if k := strings.IndexAny(w, "$`"); k >= 0 {
			w = w[:k]
		}
		w = strings.Trim(w, ".")
		if j+1 < len(words) && !strings.Contains(w, ":") {
			if port := strings.Trim(words[j+1], shellPunct); len(port) >= 2 && len(port) <= 5 && strings.Trim(port, "0123456789") == "" {
				return w + ":" + port
			}
		}
		return w
	}
	return ""
}
