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
	"sort"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/kubage/kubage/internal/schedule"
)

// A quota that refuses a workload's pods is full because of the pods that hold it. When
// most of them belong to a CronJob whose runs pile up (concurrencyPolicy Allow and runs that
// outlast the schedule), that CronJob is the cause: fixing the quota only buys time.

// quotaHolder is a workload and how many of a quota's pods it holds.
type quotaHolder struct {
	ref  ObjectRef
	pods int
}

// quotaHolders counts the namespace's running or pending pods by the workload that owns
// them, most first (what a "pods" quota or a requests quota is spent on).
func (e *env) quotaHolders(ctx context.Context) []quotaHolder {
	pods, err := listOnce[*corev1.Pod](ctx, e, "Pod", scanMaxObjects)
	if err != nil {
		return nil
	}
	count := map[string]*quotaHolder{}
	var out []*quotaHolder
	for _, p := range pods {
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		wl := e.workloadOf(ctx, p)
		h, ok := count[wl.Key()]
		if !ok {
			h = &quotaHolder{ref: wl}
			count[wl.Key()] = h
			out = append(out, h)
		}
		h.pods++
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].pods > out[j].pods })
	res := make([]quotaHolder, 0, len(out))
	for _, h := range out {
		res = append(res, *h)
	}
	return res
}

// holdersText renders the holders as "CronJob session-cleanup 2 pod(s), Deployment api 1".
func holdersText(hs []quotaHolder) string {
	var parts []string
	for i, h := range hs {
		if i >= 4 {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %s %d pod(s)", h.ref.Kind, h.ref.Name, h.pods))
	}
	return strings.Join(parts, ", ")
}

// cronJobPileUp reports a CronJob whose Jobs pile up and hold the quota's pods, and returns
// it (zero when the holders are no such CronJob). blocked is the workload the quota refuses.
func (e *env) cronJobPileUp(ctx context.Context, quota string, hs []quotaHolder, blocked ObjectRef) ObjectRef {
	for _, h := range hs {
		if h.ref.Kind != "CronJob" || h.pods < 2 || h.ref.Key() == blocked.Key() {
			continue
		}
		cj, err := getAs[*batchv1.CronJob](ctx, e, "CronJob", h.ref.Name)
		if err != nil || cj.Spec.ConcurrencyPolicy == batchv1.ForbidConcurrent || cj.Spec.ConcurrencyPolicy == batchv1.ReplaceConcurrent {
			continue
		}
		interval := ""
		if s, err := schedule.Parse(cj.Spec.Schedule, ptr.Deref(cj.Spec.TimeZone, "")); err == nil {
			if prev, ok := s.Prev(e.now); ok {
				if before, ok := s.Prev(prev.Add(-time.Second)); ok {
					interval = fmt.Sprintf(", one every %s", prev.Sub(before).Round(time.Second))
				}
			}
		}
		policy := string(cj.Spec.ConcurrencyPolicy)
		if policy == "" {
			policy = "Allow (the default)"
		}
		var oldest time.Duration
		for i, a := range cj.Status.Active {
			if i >= 10 {
				break
			}
			if j, err := getAs[*batchv1.Job](ctx, e, "Job", a.Name); err == nil && j.Status.StartTime != nil {
				oldest = max(oldest, e.now.Sub(j.Status.StartTime.Time).Round(time.Second))
			}
		}
		ran := ""
		if oldest > 0 {
			ran = "; the oldest has run for " + oldest.String()
		}
		what := fmt.Sprintf("CronJob %s piles up Jobs: concurrencyPolicy %s starts a new run on schedule %q%s while the earlier ones have not finished, so %d of its Jobs are active%s. Their %d pod(s) hold ResourceQuota %s",
			cj.Name, policy, cj.Spec.Schedule, interval, len(cj.Status.Active), ran, h.pods, quota)
		if !blocked.IsZero() {
			what += fmt.Sprintf(", which refuses the pods of %s %s (exceeded quota)", blocked.Kind, blocked.Name)
		}
		e.find(Finding{Rule: "cronjob-jobs-pile-up", Object: h.ref, Culprit: h.ref, Affected: []ObjectRef{e.ref("ResourceQuota", quota), blocked},
			Evidence: []string{e.objEvidence(h.ref, fmt.Sprintf("CronJob %s: %d active Job(s), concurrencyPolicy %s", cj.Name, len(cj.Status.Active), policy))},
			Facts:    map[string]string{"quota": quota, "active": fmt.Sprint(len(cj.Status.Active))},
			Summary:  what + "."})
		return h.ref
	}
	return ObjectRef{}
}
