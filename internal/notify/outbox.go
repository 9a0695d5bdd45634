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

package notify

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/redact"
)

// Backoff says how failed deliveries are retried.
type Backoff struct {
	// Base is the wait after the first failure; it doubles per attempt up to Max.
	Base, Max time.Duration
	// Attempts is how many tries a message gets before it is given up.
	Attempts int32
}

// DefaultBackoff retries for about half an hour.
var DefaultBackoff = Backoff{Base: 5 * time.Second, Max: 10 * time.Minute, Attempts: 8}

// After returns the wait before the next try after attempts failed ones.
func (b Backoff) After(attempts int32) time.Duration {
	d := b.Base
	for i := int32(1); i < attempts && d < b.Max; i++ {
		d *= 2
	}
	return min(d, b.Max)
}

// DeliveryID names the message about event of run for sink: the same inputs always give
// the same id, so a message recorded twice (a reconcile that crashed before its status
// was written) is recognised as one.
func DeliveryID(namespace, source, run, event, sink string) string {
	sum := sha256.Sum256([]byte(strings.Join([]string{namespace, source, run, event, sink}, "\x00")))
	return hex.EncodeToString(sum[:12])
}

// Enqueue appends d (Pending) unless a delivery with its id is already recorded.
func Enqueue(list *[]kubagev1alpha1.NotificationDelivery, d kubagev1alpha1.NotificationDelivery, now time.Time) bool {
	for _, x := range *list {
		if x.ID == d.ID {
			return false
		}
	}
	t := metav1.NewTime(now)
	d.State, d.CreatedTime, d.NextAttemptTime = kubagev1alpha1.DeliveryPending, &t, &t
	*list = append(*list, d)
	return true
}

// Due returns the indexes of pending deliveries whose next attempt has come, oldest first.
func Due(list []kubagev1alpha1.NotificationDelivery, now time.Time) []int {
	var out []int
	for i, d := range list {
		if d.State == kubagev1alpha1.DeliveryPending && (d.NextAttemptTime == nil || !d.NextAttemptTime.Time.After(now)) {
			out = append(out, i)
		}
	}
	return out
}

// Defer moves a pending delivery's next attempt without counting an attempt (rate limits).
func Defer(d *kubagev1alpha1.NotificationDelivery, wait time.Duration, now time.Time) {
	t := metav1.NewTime(now.Add(wait))
	d.NextAttemptTime = &t
}

// Record writes the outcome of one attempt into d.
func Record(d *kubagev1alpha1.NotificationDelivery, err error, b Backoff, now time.Time) {
	d.Attempts++
	t := metav1.NewTime(now)
	if err == nil {
		d.State, d.DeliveredTime, d.NextAttemptTime, d.LastError = kubagev1alpha1.DeliveryDelivered, &t, nil, ""
		return
	}
	msg := redact.Default().Secrets(err.Error())
	if len(msg) > 1024 {
		msg = msg[:1024]
	}
	d.LastError = msg
	if IsPermanent(err) || d.Attempts >= b.Attempts {
		d.State, d.NextAttemptTime = kubagev1alpha1.DeliveryFailed, nil
		return
	}
	next := metav1.NewTime(now.Add(b.After(d.Attempts)))
	d.NextAttemptTime = &next
}

// NextWake returns how long until the earliest pending delivery is due; false if none is pending.
func NextWake(list []kubagev1alpha1.NotificationDelivery, now time.Time) (time.Duration, bool) {
	var best time.Duration
	found := false
	for _, d := range list {
		if d.State != kubagev1alpha1.DeliveryPending {
			continue
		}
		w := time.Duration(0)
		if d.NextAttemptTime != nil {
			w = max(d.NextAttemptTime.Time.Sub(now), 0)
		}
		if !found || w < best {
			best, found = w, true
		}
	}
	return best, found
}

// Trim keeps every pending delivery and the newest finished ones, at most keep in all.
func Trim(list *[]kubagev1alpha1.NotificationDelivery, keep int) {
	if len(*list) <= keep {
		return
	}
	sorted := append([]kubagev1alpha1.NotificationDelivery(nil), *list...)
	created := func(d kubagev1alpha1.NotificationDelivery) time.Time {
		if d.CreatedTime == nil {
			return time.Time{}
		}
		return d.CreatedTime.Time
	}
	// Pending first, then newest first; drop from the end.
	sort.SliceStable(sorted, func(i, j int) bool {
		pi, pj := sorted[i].State == kubagev1alpha1.DeliveryPending, sorted[j].State == kubagev1alpha1.DeliveryPending
		if pi != pj {
			return pi
		}
		return created(sorted[i]).After(created(sorted[j]))
	})
	sorted = sorted[:keep]
	sort.SliceStable(sorted, func(i, j int) bool { return created(sorted[i]).Before(created(sorted[j])) })
	*list = sorted
}

// Summary is the Notified condition of an outbox: status, reason and message.
func Summary(list []kubagev1alpha1.NotificationDelivery) (bool, string, string) {
	var failed, pending *kubagev1alpha1.NotificationDelivery
	delivered := 0
	for i := range list {
		d := &list[i]
		switch d.State {
		case kubagev1alpha1.DeliveryFailed:
			if failed == nil || created(d).After(created(failed)) {
				failed = d
			}
		case kubagev1alpha1.DeliveryPending:
			if d.Attempts > 0 && (pending == nil || created(d).After(created(pending))) {
				pending = d
			}
		default:
			delivered++
		}
	}
	switch {
	case pending != nil:
		return false, kubagev1alpha1.DeliveryRetryingReason, "Delivery to " + pending.Sink + " failed " + itoa(pending.Attempts) + " time(s), retrying: " + pending.LastError
	case failed != nil:
		return false, kubagev1alpha1.DeliveryFailedReason, "Delivery to " + failed.Sink + " was given up after " + itoa(failed.Attempts) + " attempt(s): " + failed.LastError
	}
	return true, kubagev1alpha1.DeliveredReason, itoa(int32(delivered)) + " notification(s) delivered"
}

func created(d *kubagev1alpha1.NotificationDelivery) time.Time {
	if d.CreatedTime == nil {
		return time.Time{}
	}
	return d.CreatedTime.Time
}

func itoa(n int32) string {
	return strconv.Itoa(int(n))
}
