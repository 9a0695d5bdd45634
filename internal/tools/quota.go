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

package tools

import (
	"context"
	"sort"

	corev1 "k8s.io/api/core/v1"
)

// QuotaResource is one resource of a ResourceQuota.
type QuotaResource struct {
	Resource string `json:"resource"`
	Used     string `json:"used"`
	Hard     string `json:"hard"`
	Percent  int    `json:"percent"`
	Full     bool   `json:"full"`
}

// QuotaReport is one quota's usage.
type QuotaReport struct {
	Name      string          `json:"name"`
	Resources []QuotaResource `json:"resources"`
}

// LimitRangeReport is one LimitRange's constraints.
type LimitRangeReport struct {
	Name  string   `json:"name"`
	Items []string `json:"items"`
}

// QuotaUsage is the namespace's quotas and limit ranges.
type QuotaUsage struct {
	Quotas      []QuotaReport      `json:"quotas"`
	LimitRanges []LimitRangeReport `json:"limitRanges"`
}

// QuotaReportOf computes used/hard per resource.
func QuotaReportOf(q *corev1.ResourceQuota) QuotaReport {
	r := QuotaReport{Name: q.Name}
	hardList := q.Status.Hard
	if len(hardList) == 0 {
		hardList = q.Spec.Hard
	}
	for n, hard := range hardList {
		used := q.Status.Used[n]
		qr := QuotaResource{Resource: string(n), Used: used.String(), Hard: hard.String()}
		if hard.MilliValue() > 0 {
			qr.Percent = int(used.MilliValue() * 100 / hard.MilliValue())
		}
		qr.Full = used.Cmp(hard) >= 0
		r.Resources = append(r.Resources, qr)
	}
	sort.Slice(r.Resources, func(i, j int) bool { return r.Resources[i].Resource < r.Resources[j].Resource })
	return r
}

// QuotaUsage lists ResourceQuotas with usage and LimitRanges with their bounds.
func (c *Client) QuotaUsage(ctx context.Context) (QuotaUsage, error) {
	var u QuotaUsage
	qs, _, err := ListAs[*corev1.ResourceQuota](ctx, c, "ResourceQuota", ListOptions{Max: 50})
	if err != nil {
		return u, err
	}
	for _, q := range qs {
		u.Quotas = append(u.Quotas, QuotaReportOf(q))
	}
	lrs, _, err := ListAs[*corev1.LimitRange](ctx, c, "LimitRange", ListOptions{Max: 50})
	if err != nil {
		return u, err
	}
	for _, lr := range lrs {
		r := LimitRangeReport{Name: lr.Name}
		for _, it := range lr.Spec.Limits {
			r.Items = append(r.Items, LimitRangeItemLine(it))
		}
		u.LimitRanges = append(u.LimitRanges, r)
	}
	return u, nil
}
