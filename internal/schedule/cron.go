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

// Package schedule holds what KubAge knows about time-driven work: cron schedules read with
// the CronJob controller's semantics (robfig/cron), and the decisions of TroubleshootSchedules.
package schedule

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// maxSpecLen bounds what is parsed: a schedule is a handful of fields, never a document.
const maxSpecLen = 200

// lookBack is how far Prev searches for the last scheduled time.
const lookBack = 366 * 24 * time.Hour

// Cron is a parsed schedule in its time zone.
type Cron struct {
	spec  string
	sched cron.Schedule
}

// Parser reads cron schedules. The zero value reads what a CronJob accepts: five fields
// (minute hour day-of-month month day-of-week), names, ranges, steps, lists, @-descriptors and @every.
type Parser struct {
	// Seconds lets an optional leading seconds field through; tests use it to run a schedule
	// every few seconds, which a CronJob never allows.
	Seconds bool
}

// Parse reads a CronJob-style schedule in UTC; see Parser.Parse.
func Parse(spec, timeZone string) (*Cron, error) {
	return Parser{}.Parse(spec, timeZone)
}

// Parse reads spec in timeZone (an IANA name; empty means UTC). The error says what is wrong in plain words.
func (p Parser) Parse(spec, timeZone string) (*Cron, error) {
	s := strings.TrimSpace(spec)
	if s == "" {
		return nil, fmt.Errorf("schedule is empty")
	}
	if len(s) > maxSpecLen {
		return nil, fmt.Errorf("schedule is too long")
	}
	// As for CronJobs, the zone belongs in its own field, so it is validated and shown once.
	if strings.HasPrefix(s, "TZ=") || strings.HasPrefix(s, "CRON_TZ=") {
		return nil, fmt.Errorf("time zones in the schedule are not supported; use spec.timeZone")
	}
	loc := time.UTC
	if timeZone != "" {
		l, err := time.LoadLocation(timeZone)
		if err != nil || strings.EqualFold(timeZone, "local") {
			return nil, fmt.Errorf("unknown time zone %q", timeZone)
		}
		loc = l
	}
	opts := cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor
	if p.Seconds {
		opts |= cron.SecondOptional
	}
	sched, err := cron.NewParser(opts).Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "failed to parse "))
	}
	if ss, ok := sched.(*cron.SpecSchedule); ok {
		ss.Location = loc
	}
	return &Cron{spec: s, sched: sched}, nil
}

// String returns the schedule as written.
func (c *Cron) String() string { return c.spec }

// Next returns the first scheduled time strictly after t, or false if there is none within five years.
func (c *Cron) Next(t time.Time) (time.Time, bool) {
	n := c.sched.Next(t)
	return n, !n.IsZero()
}

// Prev returns the last scheduled time at or before t (searching back about a year).
func (c *Cron) Prev(t time.Time) (time.Time, bool) {
	// robfig/cron only steps forward, so search for the latest second s whose next
	// run is still at or before t: Next is monotonic in s, which makes this a bisection.
	end := t.Truncate(time.Second)
	lo := end.Add(-lookBack)
	if n, ok := c.Next(lo); !ok || n.After(t) {
		return time.Time{}, false
	}
	hiSec := int64(lookBack / time.Second) // offset from lo known to be too late (or end itself)
	loSec := int64(0)                      // offset known to be early enough
	for hiSec-loSec > 1 {
		mid := loSec + (hiSec-loSec)/2
		if n, ok := c.Next(lo.Add(time.Duration(mid) * time.Second)); ok && !n.After(t) {
			loSec = mid
		} else {
			hiSec = mid
		}
	}
	n, _ := c.Next(lo.Add(time.Duration(loSec) * time.Second))
	return n, true
}

// Interval estimates the gap between the two runs at or before t; zero if there are not two.
func (c *Cron) Interval(t time.Time) time.Duration {
	a, ok := c.Prev(t)
	if !ok {
		return 0
	}
	b, ok := c.Prev(a.Add(-time.Second))
	if !ok {
		return 0
	}
	return a.Sub(b)
}
