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

package controllers

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func TestSecretTrackerWakesOnlyUsersOfAnotherVersion(t *testing.T) {
	secret := types.NamespacedName{Namespace: "shop", Name: "token"}
	user := types.NamespacedName{Namespace: "shop", Name: "docs"}
	for _, tc := range []struct {
		name string
		// used is the version the reconcile read; "" means it never read the Secret.
		used string
		// polls are the versions successive polls find.
		polls []string
		// woken is how many of those polls wake the user.
		woken []bool
	}{
		{name: "first sighting equal to what the reconcile used", used: "7", polls: []string{"7", "7"}, woken: []bool{false, false}},
		{name: "rotated after the reconcile, before the first poll", used: "7", polls: []string{"9", "9"}, woken: []bool{true, false}},
		{name: "created after the reconcile found it absent", used: absentVersion, polls: []string{"3"}, woken: []bool{true}},
		{name: "deleted after the reconcile read it", used: "7", polls: []string{absentVersion, absentVersion}, woken: []bool{true, false}},
		{name: "still absent", used: absentVersion, polls: []string{absentVersion}, woken: []bool{false}},
		{name: "never read by a reconcile", polls: []string{"7", "9"}, woken: []bool{false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newSecretTracker()
			if tc.used != "" {
				tr.record(secret, user, tc.used)
			}
			for i, v := range tc.polls {
				got := tr.stale(secret, v)
				if woke := len(got) == 1 && got[0] == user; woke != tc.woken[i] || len(got) > 1 {
					t.Fatalf("poll %d finding version %q woke %v, want user woken: %v", i, v, got, tc.woken[i])
				}
			}
		})
	}
}

func TestSecretTrackerWakesEachUserByItsOwnVersion(t *testing.T) {
	secret := types.NamespacedName{Namespace: "shop", Name: "token"}
	early := types.NamespacedName{Namespace: "shop", Name: "early"}
	late := types.NamespacedName{Namespace: "shop", Name: "late"}
	tr := newSecretTracker()
	tr.record(secret, early, "7")
	tr.record(secret, late, "9")
	if got := tr.stale(secret, "9"); len(got) != 1 || got[0] != early {
		t.Fatalf("woke %v, want only %v", got, early)
	}
}

func TestSecretTrackerForgetsDroppedReferences(t *testing.T) {
	secret := types.NamespacedName{Namespace: "shop", Name: "token"}
	kept := types.NamespacedName{Namespace: "shop", Name: "kept"}
	gone := types.NamespacedName{Namespace: "shop", Name: "gone"}
	tr := newSecretTracker()
	tr.record(secret, kept, "7")
	tr.record(secret, gone, "7")
	tr.retain(map[types.NamespacedName]map[types.NamespacedName]client.Object{secret: {kept: nil}})
	if got := tr.stale(secret, "8"); len(got) != 1 || got[0] != kept {
		t.Fatalf("woke %v, want only %v", got, kept)
	}
	tr.retain(nil)
	if len(tr.used) != 0 {
		t.Fatalf("tracker still holds %v after every reference went", tr.used)
	}
}

func TestRecordingReaderRecordsTheVersionRead(t *testing.T) {
	ctx := context.Background()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "token"}}
	c := fake.NewClientBuilder().WithObjects(s).Build()
	tr := newSecretTracker()
	user := types.NamespacedName{Namespace: "shop", Name: "docs"}
	r := recordingReader{Reader: c, used: tr, user: user}

	got := &corev1.Secret{}
	if err := r.Get(ctx, client.ObjectKeyFromObject(s), got); err != nil {
		t.Fatal(err)
	}
	missing := types.NamespacedName{Namespace: "shop", Name: "missing"}
	if err := r.Get(ctx, missing, &corev1.Secret{}); err == nil {
		t.Fatal("a missing Secret was found")
	}
	if v := tr.used[client.ObjectKeyFromObject(s)][user]; v == "" || v != got.ResourceVersion {
		t.Fatalf("recorded version %q, want the one read, %q", v, got.ResourceVersion)
	}
	if v := tr.used[missing][user]; v != absentVersion {
		t.Fatalf("recorded %q for a missing Secret, want %q", v, absentVersion)
	}
	var nilTracker *secretTracker
	nilTracker.record(missing, user, "1") // reconcilers built without a manager have none
}
