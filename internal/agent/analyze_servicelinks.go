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

// The kubelet gives every container variables for the Services of its namespace that exist
// when it starts: REDIS_SERVICE_HOST, REDIS_SERVICE_PORT, REDIS_PORT_6379_TCP_ADDR... An
// application that reads them fails with "REDIS_SERVICE_HOST is not set" when the pod sets
// enableServiceLinks: false, when no Service of that name exists, or when the Service was
// created after the container started. None of that is a missing ConfigMap key.

var serviceLinkVar = regexp.MustCompile(`^([A-Z][A-Z0-9_]*?)_(?:SERVICE_HOST|SERVICE_PORT(?:_[A-Z0-9_]+)?|PORT(?:_\d{1,5}_(?:TCP|UDP|SCTP)(?:_ADDR|_PORT|_PROTO)?)?)$`)

// serviceLinkMissing reports a missing Service link variable with why the kubelet did not set it.
func (pc *podCheck) serviceLinkMissing(ctx context.Context, d *depCheck, key string) bool {
	m := serviceLinkVar.FindStringSubmatch(key)
	if m == nil {
		return false
	}
	e := pc.e
	name := strings.ToLower(strings.ReplaceAll(m[1], "_", "-"))
	wl := e.workloadOf(ctx, pc.pod)
	facts := map[string]string{"key": key, "service": name, "sourceResource": kubectlResource(wl)}
	head := fmt.Sprintf("%s: env %s is one of the environment variables the kubelet sets for Service %s", d.opening(), key, name)
	if l := pc.pod.Spec.EnableServiceLinks; l != nil && !*l {
		d.report(ctx, "config-value-missing", 0, wl, fmt.Sprintf("%s, and the pod template of %s %s sets enableServiceLinks: false, so no such variables are set. Remove that, or give the container the address explicitly (env %s: %s).",
			head, wl.Kind, wl.Name, key, name), nil, nil, facts)
		return true
	}
	svc, err := getAs[*corev1.Service](ctx, e, "Service", name)
	if tools.IsNotFound(err) {
		sref := e.ref("Service", name)
		var names []string
		if svcs, err := listOnce[*corev1.Service](ctx, e, "Service", maxServiceList); err == nil {
			for _, s := range svcs {
				names = append(names, s.Name)
			}
		}
		msg := fmt.Sprintf("%s, and no Service named %s exists in namespace %s, so the kubelet sets none.", head, name, e.s.Namespace)
		if c := closestName(name, names); c != "" {
			msg += fmt.Sprintf(" Service %s exists: rename it, or read %s_SERVICE_HOST instead.", c, strings.ToUpper(strings.ReplaceAll(c, "-", "_")))
		}
		d.report(ctx, "config-value-missing", 0, sref, msg, nil, []ObjectRef{sref, wl}, facts)
		return true
	}
	if err != nil {
		return false
	}
	if st := pc.pod.Status.StartTime; st != nil && svc.CreationTimestamp.After(st.Time) {
		sref := e.ref("Service", name)
		d.report(ctx, "config-value-missing", 0, wl, fmt.Sprintf("%s, which was created at %s, after pod %s started at %s: the kubelet sets these variables only when a container starts. Restart %s %s (kubectl rollout restart), or read the Service's DNS name %s instead.",
			head, svc.CreationTimestamp.UTC().Format("15:04:05"), pc.pod.Name, st.UTC().Format("15:04:05"), wl.Kind, wl.Name, name), nil, []ObjectRef{sref}, facts)
		return true
	}
	return false
}

// serviceLinkCollision reports a setting the application reads (REDIS_PORT, expecting 6379)
// that the kubelet filled with a Service link value ("tcp://10.96.4.4:6379") because a Service
// of that name (redis) exists and the pod keeps enableServiceLinks on.
func (pc *podCheck) serviceLinkCollision(ctx context.Context, d *depCheck) bool {
	e := pc.e
	if l := pc.pod.Spec.EnableServiceLinks; l != nil && !*l || len(d.clue.Links) == 0 {
		return false
	}
	svcs, err := listOnce[*corev1.Service](ctx, e, "Service", maxServiceList)
	if err != nil {
		return false
	}
	configured := pc.settingNames(ctx, d)
	var best *corev1.Service
	bestScore := 0
	for _, link := range d.clue.Links {
		for _, s := range svcs {
			if s.Spec.ClusterIP == "" || s.Spec.ClusterIP == corev1.ClusterIPNone || !serviceHasPort(s, int32(atoiOr(link.Port))) || len(s.Spec.Ports) == 0 {
				continue
			}
			prefix := strings.ToUpper(strings.ReplaceAll(s.Name, "-", "_"))
			score := 1
			if s.Spec.ClusterIP == link.Host {
				score += 4
			}
			// The application's own settings share the prefix (REDIS_HOST beside REDIS_PORT).
			for _, k := range configured {
				if strings.HasPrefix(k, prefix+"_") && !serviceLinkVar.MatchString(k) {
					score += 2
					break
				}
			}
			if containsStr(configured, prefix+"_PORT") {
				score = 0 // the spec sets it, and the spec wins over links
			}
			if score > bestScore {
				best, bestScore = s, score
			}
		}
	}
	if best == nil || bestScore < 3 {
		return false
	}
	wl := e.workloadOf(ctx, pc.pod)
	sref := e.ref("Service", best.Name)
	v := strings.ToUpper(strings.ReplaceAll(best.Name, "-", "_")) + "_PORT"
	facts := map[string]string{"key": v, "service": best.Name, "sourceResource": kubectlResource(wl)}
	d.report(ctx, "service-link-collision", 0, wl, fmt.Sprintf("%s: the value tcp://…:%s is what the kubelet puts in env %s for Service %s, because pods keep enableServiceLinks on; the application reads %s as its own setting (a port number). Set enableServiceLinks: false in the pod template of %s %s (or set %s explicitly), or rename Service %s.",
		d.opening(), d.clue.Links[0].Port, v, best.Name, v, wl.Kind, wl.Name, v, best.Name), nil, []ObjectRef{sref}, facts)
	return true
}

// settingNames lists the env names the container's spec and envFrom ConfigMaps set.
func (pc *podCheck) settingNames(ctx context.Context, d *depCheck) []string {
	var out []string
	c := d.spec
	for _, ev := range c.Env {
		out = append(out, ev.Name)
	}
	for i, ef := range c.EnvFrom {
		if ef.ConfigMapRef == nil || i >= maxSourceObjects {
			continue
		}
		if m, err := getAs[*corev1.ConfigMap](ctx, pc.e, "ConfigMap", ef.ConfigMapRef.Name); err == nil {
			for _, k := range sortedKeys(m.Data) {
				out = append(out, ef.Prefix+k)
			}
		}
	}
	return out
}

func atoiOr(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}
