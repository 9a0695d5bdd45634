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

package knowledge

import (
	"context"
	"strings"
	"testing"

	"github.com/kubage/kubage/internal/kbbuild"
)

func TestSummarizeKeepsTheSentencesThatAnswerWithinTheBound(t *testing.T) {
	passage := "This page describes pods. " + strings.Repeat("Pods are scheduled onto nodes by the scheduler in many ways. ", 12) +
		"A container in CrashLoopBackOff keeps exiting; read its previous logs with kubectl logs --previous.\n" +
		"- Check the liveness probe.\n"
	got := Summarize(passage, "why is my container in CrashLoopBackOff", MaxSummaryTokens)
	if n := kbbuild.EstimateTokens(got); n > MaxSummaryTokens {
		t.Fatalf("summary of %d tokens, bound %d: %q", n, MaxSummaryTokens, got)
	}
	if !strings.Contains(got, "kubectl logs --previous") {
		t.Fatalf("summary lost the sentence that answers: %q", got)
	}
	if !strings.HasPrefix(got, "This page describes pods.") {
		t.Errorf("summary does not keep the passage's order: %q", got)
	}
	for _, s := range sentences(got) {
		if !strings.Contains(strings.Join(strings.Fields(passage), " "), strings.TrimSuffix(s, " …")) {
			t.Errorf("summary sentence %q is not from the passage", s)
		}
	}
	long := strings.Repeat("word ", 400)
	if n := kbbuild.EstimateTokens(Summarize(long, "word", MaxSummaryTokens)); n > MaxSummaryTokens || n == 0 {
		t.Errorf("a single long sentence summarised to %d tokens", n)
	}
}

func TestNonQuotableSourceShowsTitleLinkAndOneSentence(t *testing.T) {
	ctx := context.Background()
	s := NewService(Options{})
	page := "# Vendor crash guide\n\n## Crash loops\n\nFirst check the vendor console for the crash loop. Then open a ticket with the full dump. Never delete the pod.\n\n## See also\n\n- [Undo](undo.md)\n"
	mustIndex(t, s, SourceConfig{Namespace: "ns", Name: "vendor", TrustLevel: 3, Copyright: "© Vendor Inc.", NotQuotable: true,
		Source: docs("crash.md", page, "undo.md", "# Undo\n\nRoll back the release. Then watch it.\n")})
	mustIndex(t, s, SourceConfig{Namespace: "ns", Name: "ours", TrustLevel: 3, Source: docs("crash.md", page)})
	ans, err := s.Search(ctx, Query{Namespace: "ns", Text: "crash loop vendor console ticket", K: 4, Expand: 1, FollowLinks: 2})
	if err != nil {
		t.Fatal(err)
	}
	var vendor, ours int
	for _, sn := range ans.Snippets {
		switch sn.Citation.Source {
		case "vendor":
			vendor++
			if sn.Quotable || sn.Copyright != "© Vendor Inc." {
				t.Errorf("vendor snippet policy = quotable %v, copyright %q", sn.Quotable, sn.Copyright)
			}
			if len(sentences(sn.Text)) > 1 || len(sn.Context) > 0 || strings.Contains(sn.Text, "ticket") {
				t.Errorf("a non-quotable passage showed more than one sentence: %q, context %v", sn.Text, sn.Context)
			}
			if sn.Title == "" || sn.Citation.Path == "" {
				t.Errorf("a non-quotable passage lost its title or link: %+v", sn)
			}
		case "ours":
			ours++
			if !sn.Quotable || !strings.Contains(sn.Text, "ticket") {
				t.Errorf("a quotable passage was cut: %+v", sn)
			}
		}
	}
	if vendor == 0 || ours == 0 {
		t.Fatalf("snippets from vendor %d, ours %d: %+v", vendor, ours, ans.Snippets)
	}
	for _, rp := range ans.Related {
		if rp.Citation.Source == "vendor" && (rp.Quotable || len(sentences(rp.Text)) > 1) {
			t.Errorf("related page of a non-quotable source: %+v", rp)
		}
	}
}
