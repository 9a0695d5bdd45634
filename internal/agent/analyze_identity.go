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
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Services outside Kubernetes' own RBAC log a pod in by its ServiceAccount: Vault's
// Kubernetes auth ("service account name not authorized"), AWS IRSA ("not authorized to
// perform sts:AssumeRoleWithWebIdentity"), GKE and Azure workload identity. When such a
// service rejects the pod, no password is wrong: the pod runs as a ServiceAccount the role
// on the other side does not admit, usually after the workload's serviceAccountName changed.
// The workload is named with the ServiceAccount it runs as, and the namespace's
// ServiceAccount named for the workload when it is not the one in use.

var (
	identityWords = regexp.MustCompile(`(?i)service ?account|serviceaccount|assumerolewithwebidentity|web ?identity|workload identity|iam\.gke\.io`)
	identityDeny  = regexp.MustCompile(`(?i)not authorized|unauthorized|\b403\b|access ?denied|permission denied|forbidden|not allowed|invalid role`)
)

// identityRejected reports an error line in which an outside service rejects the pod's
// ServiceAccount identity.
func (pc *podCheck) identityRejected(ctx context.Context, d *depCheck) bool {
	// The reason often follows the error on the entry's next lines ("caused by: AccessDenied").
	line := d.clue.Line + " " + d.clue.Also + " " + strings.Join(pc.linesAfter(d.cs.Name, d.clue.Line, 3), " ")
	if d.clue.Forbidden != nil || !identityWords.MatchString(line) || !identityDeny.MatchString(line) {
		return false
	}
	e := pc.e
	wl := e.workloadOf(ctx, pc.pod)
	sa := pc.pod.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	saRef := e.ref("ServiceAccount", sa)
	extra := []ObjectRef{saRef}
	hint := ""
	if sas, err := listOnce[*corev1.ServiceAccount](ctx, e, "ServiceAccount", scanMaxObjects); err == nil {
		for _, s := range sas {
			if s.Name != sa && strings.EqualFold(s.Name, wl.Name) {
				hint = fmt.Sprintf(" ServiceAccount %s, named for the workload, exists but the pods do not run as it: if the role is bound to it, set serviceAccountName back to %s.", s.Name, s.Name)
				extra = append(extra, e.ref("ServiceAccount", s.Name))
			}
		}
	}
	fix := fmt.Sprintf(" Run the pods as the ServiceAccount the role admits, or bind the role to ServiceAccount %s in namespace %s.", sa, e.s.Namespace)
	if hint != "" {
		fix = hint + fmt.Sprintf(" Or bind the role to ServiceAccount %s in namespace %s.", sa, e.s.Namespace)
	}
	d.evIDs = append(d.evIDs, e.objEvidence(wl, fmt.Sprintf("%s %s runs its pods as ServiceAccount %s", wl.Kind, wl.Name, sa)))
	d.report(ctx, "dependency-auth-failed", 75, wl, fmt.Sprintf("%s: the service it logs in to rejects the pod's identity (no password is involved). The pods of %s %s run as ServiceAccount %s, which the role on the other side (a Vault Kubernetes auth role, a cloud IAM role's trust policy) does not admit.%s",
		d.opening(), wl.Kind, wl.Name, sa, fix), nil, extra,
		map[string]string{"key": "spec.template.spec.serviceAccountName", "sourceResource": kubectlResource(wl), "serviceAccount": sa})
	return true
}

// linesAfter returns up to n log lines of container that follow the first line holding the
// start of line (a clue line is sanitized and may be cut, so its first 40 bytes are matched).
func (pc *podCheck) linesAfter(container, line string, n int) []string {
	head := strings.TrimSpace(clipBytes(line, 40))
	if head == "" {
		return nil
	}
	lines := pc.lines[container]
	for i, l := range lines {
		if strings.Contains(l, head) {
			end := min(len(lines), i+1+n)
			out := make([]string, 0, end-i-1)
			for _, x := range lines[i+1 : end] {
				out = append(out, clipBytes(x, maxClueLineLen))
			}
			return out
		}
	}
	return nil
}
