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

package metrics

import (
	"context"
	"errors"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestSessionsGaugeIsComputedAtScrapeTime(t *testing.T) {
	g := NewWithT(t)
	reg := prometheus.NewRegistry()
	counts := map[string]int{"Investigating": 2, "Completed": 5}
	g.Expect(Register(reg, func(context.Context) (map[string]int, error) { return counts, nil })).To(Succeed())
	g.Expect(Register(reg, func(context.Context) (map[string]int, error) { return counts, nil })).To(Succeed(), "registering twice is harmless")

	want := `
# HELP kubage_troubleshoot_sessions Troubleshoot sessions by phase, counted at scrape time.
# TYPE kubage_troubleshoot_sessions gauge
kubage_troubleshoot_sessions{phase="Completed"} 5
kubage_troubleshoot_sessions{phase="Investigating"} 2
`
	g.Expect(testutil.GatherAndCompare(reg, strings.NewReader(want), "kubage_troubleshoot_sessions")).To(Succeed())
	counts["Investigating"] = 0
	counts["Completed"] = 7
	want = strings.Replace(strings.Replace(want, "} 5", "} 7", 1), "} 2", "} 0", 1)
	g.Expect(testutil.GatherAndCompare(reg, strings.NewReader(want), "kubage_troubleshoot_sessions")).To(Succeed())

	g.Expect(Register(reg, func(context.Context) (map[string]int, error) { return nil, errors.New("cache not synced") })).To(Succeed())
	_, err := reg.Gather()
	g.Expect(err).To(HaveOccurred(), "a failing lister is reported, not hidden")
}

func TestCountersHaveTheKubagePrefix(t *testing.T) {
	g := NewWithT(t)
	reg := prometheus.NewRegistry()
	g.Expect(Register(reg, nil)).To(Succeed())
	TasksTotal.WithLabelValues("InProcess", "Succeeded").Inc()
	ToolCallsTotal.WithLabelValues("k8s_get").Add(3)
	TimeToRootCause.Observe(4)
	SessionsFinishedTotal.WithLabelValues("Completed", "Succeeded").Inc()
	SessionsDegradedTotal.WithLabelValues("ModelUnreachable").Inc()
	LLMTokensTotal.WithLabelValues("prompt").Add(10)
	mfs, err := reg.Gather()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(mfs).To(HaveLen(6))
	for _, mf := range mfs {
		g.Expect(mf.GetName()).To(HavePrefix("kubage_"))
	}
}
