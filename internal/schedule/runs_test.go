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

package schedule

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func finished(name string, at time.Time, category, culprit string) *kubagev1alpha1.Troubleshoot {
	ts := &kubagev1alpha1.Troubleshoot{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{AnnotationScheduledAt: at.Format(time.RFC3339)}}}
	ts.Status.Phase = kubagev1alpha1.PhaseCompleted
	if category != "" {
		ts.Status.RootCause = &kubagev1alpha1.RootCause{Summary: "Deployment " + culprit + " crashes, 7 restarts", Category: category,
			AffectedObjects: []kubagev1alpha1.ObjectReference{{Kind: "Deployment", Namespace: "shop", Name: culprit}}}
		meta.SetStatusCondition(&ts.Status.Conditions, metav1.Condition{Type: kubagev1alpha1.RootCauseFoundCondition, Status: metav1.ConditionTrue, Reason: category})
	}
	return ts
}

func runOf(t *testing.T, ts *kubagev1alpha1.Troubleshoot) Run {
	t.Helper()
	r, ok := RunOf(ts)
	if !ok {
		t.Fatalf("%s is not a run", ts.Name)
	}
	return r
}

func TestJudgeNotifiesOncePerProblem(t *testing.T) {
	var st kubagev1alpha1.TroubleshootScheduleStatus
	step := func(i int, category, culprit string) []Verdict {
		ts := finished(RunName("s", t0.Add(time.Duration(i)*time.Minute)), t0.Add(time.Duration(i)*time.Minute), category, culprit)
		return Judge(&st, []Run{runOf(t, ts)})
	}
	for i, c := range []struct {
		category, culprit     string
		wantNew, wantResolved bool
	}{
		{"CrashLoopBackOff", "web", true, false},
		{"CrashLoopBackOff", "web", false, false}, // same fault, new wording of counts
		{"CrashLoopBackOff", "web", false, false},
		{"ImagePullBackOff", "web", true, false}, // the fault changed
		{"", "", false, true},                    // healthy
		{"ImagePullBackOff", "web", true, false}, // back again: worth telling
	} {
		v := step(i, c.category, c.culprit)
		if len(v) != 1 || v[0].New != c.wantNew || v[0].Resolved != c.wantResolved {
			t.Fatalf("run %d: verdicts %+v, want new=%t resolved=%t", i, v, c.wantNew, c.wantResolved)
		}
	}
	if st.LastProblem == nil || st.LastProblem.Category != "ImagePullBackOff" || st.LastProblem.Runs != 1 {
		t.Errorf("lastProblem = %+v", st.LastProblem)
	}
	// A run judged before is never judged again, so a reconcile that repeats judges nothing.
	again := Judge(&st, []Run{runOf(t, finished("old", t0.Add(5*time.Minute), "CrashLoopBackOff", "db"))})
	if len(again) != 0 {
		t.Errorf("re-judged an old run: %+v", again)
	}
}

func TestJudgeSkipsUnfinishedAndKeepsProblemOverFailures(t *testing.T) {
	st := kubagev1alpha1.TroubleshootScheduleStatus{}
	Judge(&st, []Run{runOf(t, finished("a", t0, "OOMKilled", "api"))})
	failed := finished("b", t0.Add(time.Minute), "", "")
	failed.Status.Phase = kubagev1alpha1.PhaseFailed
	running := finished("c", t0.Add(2*time.Minute), "", "")
	running.Status.Phase = kubagev1alpha1.PhaseInvestigating
	v := Judge(&st, []Run{runOf(t, running), runOf(t, failed)})
	if len(v) != 1 || !v[0].Run.Failed || v[0].New || v[0].Resolved {
		t.Fatalf("verdicts %+v", v)
	}
	if st.LastProblem == nil || st.LastProblem.Category != "OOMKilled" {
		t.Errorf("a failed run cleared the problem: %+v", st.LastProblem)
	}
}

func TestFingerprintIgnoresWording(t *testing.T) {
	a := &kubagev1alpha1.RootCause{Category: "CrashLoopBackOff", Summary: "3 restarts", AffectedObjects: []kubagev1alpha1.ObjectReference{{Kind: "Deployment", Name: "web"}}}
	b := &kubagev1alpha1.RootCause{Category: "CrashLoopBackOff", Summary: "9 restarts in 4m", AffectedObjects: []kubagev1alpha1.ObjectReference{{Kind: "Deployment", Name: "web"}}}
	c := &kubagev1alpha1.RootCause{Category: "CrashLoopBackOff", Summary: "3 restarts", AffectedObjects: []kubagev1alpha1.ObjectReference{{Kind: "Deployment", Name: "api"}}}
	if Fingerprint(a) != Fingerprint(b) {
		t.Error("wording changed the fingerprint")
	}
	if Fingerprint(a) == Fingerprint(c) {
		t.Error("another culprit kept the fingerprint")
	}
	n1 := &kubagev1alpha1.RootCause{Category: "Network", Summary: "DNS failed 3 times"}
	n2 := &kubagev1alpha1.RootCause{Category: "Network", Summary: "DNS failed 12 times"}
	if Fingerprint(n1) != Fingerprint(n2) || len(Fingerprint(n1)) != 16 {
		t.Error("counts in an object-less summary changed the fingerprint")
	}
}

func TestPruneKeepsHistoryLimits(t *testing.T) {
	var runs []Run
	for i := 0; i < 5; i++ {
		runs = append(runs, runOf(t, finished(RunName("s", t0.Add(time.Duration(i)*time.Minute)), t0.Add(time.Duration(i)*time.Minute), "CrashLoopBackOff", "web")))
	}
	for i := 5; i < 8; i++ {
		ts := finished(RunName("s", t0.Add(time.Duration(i)*time.Minute)), t0.Add(time.Duration(i)*time.Minute), "", "")
		if i == 6 {
			ts.Status.Phase = kubagev1alpha1.PhaseFailed
		}
		runs = append(runs, runOf(t, ts))
	}
	active := finished("active", t0.Add(9*time.Minute), "", "")
	active.Status.Phase = kubagev1alpha1.PhasePlanning
	runs = append(runs, runOf(t, active))
	got := Prune(runs, 2, 0)
	want := []string{
		RunName("s", t0.Add(6*time.Minute)), // failed, limit 0
		RunName("s", t0.Add(5*time.Minute)), // clean, not the newest finished
		RunName("s", t0.Add(2*time.Minute)), RunName("s", t0.Add(time.Minute)), RunName("s", t0),
	}
	if len(got) != len(want) {
		t.Fatalf("Prune = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Prune = %v, want %v", got, want)
		}
	}
}

func TestDue(t *testing.T) {
	c, _ := Parse("*/5 * * * *", "")
	created := t0.Add(-time.Hour)
	now := t0.Add(7 * time.Minute)
	at, due, missed := Due(c, nil, created, now, nil)
	if !due || missed || !at.Equal(t0.Add(5*time.Minute)) {
		t.Errorf("Due = %s %t %t", at, due, missed)
	}
	last := metav1.NewTime(t0.Add(5 * time.Minute))
	if _, due, _ := Due(c, &last, created, now, nil); due {
		t.Error("a time already run is due again")
	}
	if _, due, _ := Due(c, nil, t0.Add(6*time.Minute), now, nil); due {
		t.Error("a time before the schedule existed is due")
	}
	if _, due, missed := Due(c, nil, created, now, ptr.To[int64](60)); due || !missed {
		t.Error("a run two minutes late with a 60s deadline was not missed")
	}
}

func TestNewRunIsDeterministic(t *testing.T) {
	s := &kubagev1alpha1.TroubleshootSchedule{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "hourly"}}
	s.Spec.TroubleshootTemplate.Metadata.Labels = map[string]string{"team": "a"}
	s.Spec.TroubleshootTemplate.Spec.Problem = "check"
	a, b := NewRun(s, t0), NewRun(s, t0)
	if a.Name != b.Name || a.Name != "hourly-1772366400" {
		t.Errorf("names %s %s", a.Name, b.Name)
	}
	if a.Labels[LabelSchedule] != "hourly" || a.Labels["team"] != "a" || a.Annotations[AnnotationScheduledAt] != "2026-03-01T12:00:00Z" {
		t.Errorf("metadata %+v", a.ObjectMeta)
	}
	if r, ok := RunOf(a); !ok || !r.ScheduledTime.Equal(t0) || r.Finished {
		t.Errorf("RunOf = %+v %t", r, ok)
	}
}

// A scheduled run reads its Secrets with the rights the template names: the account, the
// model and the kubeconfig travel into every run together.
func TestNewRunCarriesTheTemplatesServiceAccount(t *testing.T) {
	s := &kubagev1alpha1.TroubleshootSchedule{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "hourly"}}
	s.Spec.TroubleshootTemplate.Spec = kubagev1alpha1.TroubleshootSpec{Problem: "check", ServiceAccountName: "model-reader",
		Model: &kubagev1alpha1.LocalSecretReference{Name: "team-model"},
		Cluster: &kubagev1alpha1.ClusterReference{KubeConfig: kubagev1alpha1.KubeConfigReference{
			SecretRef: kubagev1alpha1.KubeConfigSecretReference{Name: "cluster-b"}}}}
	run := NewRun(s, t0)
	if run.Spec.ServiceAccountName != "model-reader" || run.Spec.Model == nil || run.Spec.Model.Name != "team-model" ||
		run.Spec.Cluster == nil || run.Spec.Cluster.KubeConfig.SecretRef.Name != "cluster-b" {
		t.Errorf("the run's spec %+v", run.Spec)
	}
}
