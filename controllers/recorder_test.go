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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"
)

func TestEventNotesAreRedacted(t *testing.T) {
	fake := events.NewFakeRecorder(1)
	rec := redactingRecorder{fake}
	rec.Eventf(&corev1.Pod{}, nil, "Warning", "FetchFailed", "Reconcile", "GET %s: 401", "https://deploy:Zq8mN3vR7tY1uI5o@git.shop.io/app.git")
	got := <-fake.Events
	if strings.Contains(got, "Zq8mN3vR7tY1uI5o") || !strings.Contains(got, "[REDACTED:password]") {
		t.Fatalf("event %q", got)
	}
}
