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
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/kubage/kubage/internal/text"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
)

// EventGroup is a set of identical events (same object, type, reason and message shape).
type EventGroup struct {
	Type      string    `json:"type"`
	Reason    string    `json:"reason"`
	Object    string    `json:"object"`
	Message   string    `json:"message"`
	Count     int32     `json:"count"`
	FirstSeen time.Time `json:"firstSeen"`
	LastSeen  time.Time `json:"lastSeen"`
	Source    string    `json:"source,omitempty"`
}

// EventQuery selects events; an empty Kind/Name means the whole namespace.
type EventQuery struct {
	Kind, Name   string
	Since        time.Time
	Until        time.Time
	WarningsOnly bool
	// Max caps the groups returned (20 when <= 0, at most 200).
	Max int
}

const maxRawEvents = 2000

// generatedSuffix matches the random suffixes of generated names (pods of a ReplicaSet, Jobs),
// so "pods \"web-7d9c-x2b4q\" is forbidden" repeated for many pods is one group.
var generatedSuffix = regexp.MustCompile(`-[a-z0-9]{5}\b|-[a-f0-9]{8,10}\b`)

// Events returns deduplicated events, most recent first, with occurrence counts.
func (c *Client) Events(ctx context.Context, q EventQuery) ([]EventGroup, bool, error) {
	max := q.Max
	if max <= 0 {
		max = 20
	}
	if max > 200 {
		max = 200
	}
	ns := c.scope.Namespace
	if err := c.CheckNamespace(""); err != nil {
		return nil, false, err
	}
	kind := ""
	if q.Kind != "" {
		k, err := ResolveKind(q.Kind)
		if err != nil {
			return nil, false, err
		}
		kind = k.Kind
		if !k.Namespaced {
			// Events about cluster-scoped objects (Nodes) are recorded in "default".
			ns = "default"
		}
	}
	var sel []fields.Selector
	if kind != "" {
		sel = append(sel, fields.OneTermEqualSelector("involvedObject.kind", kind))
	}
	if q.Name != "" {
		sel = append(sel, fields.OneTermEqualSelector("involvedObject.name", q.Name))
	}
	if q.WarningsOnly {
		sel = append(sel, fields.OneTermEqualSelector("type", corev1.EventTypeWarning))
	}
	ek, _ := ResolveKind("Event")
	res, err := c.list(ctx, ek, ns, ListOptions{FieldSelector: fields.AndSelectors(sel...).String(), Max: maxRawEvents})
	if err != nil {
		return nil, false, err
	}
	groups := map[string]*EventGroup{}
	for _, o := range res.Items {
		e, ok := o.(*corev1.Event)
		if !ok {
			continue
		}
		// Re-check in case the server (or a fake) ignored the field selector.
		if (kind != "" && e.InvolvedObject.Kind != kind) || (q.Name != "" && e.InvolvedObject.Name != q.Name) ||
			(q.WarningsOnly && e.Type != corev1.EventTypeWarning) {
			continue
		}
		first, last := eventTimes(e)
		if (!q.Since.IsZero() && last.Before(q.Since)) || (!q.Until.IsZero() && first.After(q.Until)) {
			continue
		}
		obj := e.InvolvedObject.Kind + "/" + e.InvolvedObject.Name
		key := e.Type + "|" + e.Reason + "|" + obj + "|" + generatedSuffix.ReplaceAllString(text.ClipMarked(e.Message, 300), "-*")
		count := e.Count
		if e.Series != nil && e.Series.Count > count {
			count = e.Series.Count
		}
		if count < 1 {
			count = 1
		}
		g, ok := groups[key]
		if !ok {
			g = &EventGroup{Type: Sanitize(e.Type, 20, true), Reason: Sanitize(e.Reason, 80, true), Object: Sanitize(obj, 200, true),
				Message: Sanitize(e.Message, 500, true), FirstSeen: first, LastSeen: last,
				Source: Sanitize(e.Source.Component+e.ReportingController, 80, true)}
			groups[key] = g
		} else {
			if first.Before(g.FirstSeen) {
				g.FirstSeen = first
			}
			if last.After(g.LastSeen) {
				g.LastSeen = last
				g.Message = Sanitize(e.Message, 500, true)
			}
		}
		g.Count += count
	}
	out := make([]EventGroup, 0, len(groups))
	for _, g := range groups {
		out = append(out, *g)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].LastSeen.Equal(out[j].LastSeen) {
			return out[i].LastSeen.After(out[j].LastSeen)
		}
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Reason+out[i].Object+out[i].Message < out[j].Reason+out[j].Object+out[j].Message
	})
	truncated := res.More
	if len(out) > max {
		out, truncated = out[:max], true
	}
	return out, truncated, nil
}

func eventTimes(e *corev1.Event) (first, last time.Time) {
	first = e.FirstTimestamp.Time
	if first.IsZero() {
		first = e.EventTime.Time
	}
	if first.IsZero() {
		first = e.CreationTimestamp.Time
	}
	last = e.LastTimestamp.Time
	if e.Series != nil && e.Series.LastObservedTime.After(last) {
		last = e.Series.LastObservedTime.Time
	}
	if last.IsZero() {
		last = first
	}
	return first, last
}

// EventLine renders one group in a stable, compact form.
func EventLine(now time.Time, g EventGroup) string {
	age := "?"
	if !g.LastSeen.IsZero() {
		age = shortDur(now.Sub(g.LastSeen))
	}
	return fmt.Sprintf("%s ago  %s  %s  x%d  %s: %s", age, g.Type, g.Reason, g.Count, g.Object, g.Message)
}

func shortDur(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < 2*time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < 2*time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// EventsMention reports whether any group's reason matches and message contains all needles (case-insensitive).
func EventsMention(groups []EventGroup, reason string, needles ...string) *EventGroup {
	for i := range groups {
		g := &groups[i]
		if reason != "" && g.Reason != reason {
			continue
		}
		msg := strings.ToLower(g.Message)
		ok := true
		for _, n := range needles {
			if !strings.Contains(msg, strings.ToLower(n)) {
				ok = false
				break
			}
		}
		if ok {
			return g
		}
	}
	return nil
}
