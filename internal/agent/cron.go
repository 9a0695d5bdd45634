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
	"fmt"
	"strconv"
	"strings"
	"time"
)

// cronSchedule is a parsed standard 5-field cron expression, as the CronJob controller
// accepts it (ranges, steps, lists, month/day names, @-descriptors, @every).
type cronSchedule struct {
	minute, hour, dom, month, dow uint64
	domStar, dowStar              bool
	every                         time.Duration
}

var cronDescriptors = map[string]string{
	"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
	"@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}

var monthNames = map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}
var dayNames = map[string]int{"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}

// parseCron parses a schedule; the error says what is wrong in plain words.
func parseCron(spec string) (*cronSchedule, error) {
	s := strings.TrimSpace(spec)
	if len(s) > 200 {
		return nil, fmt.Errorf("schedule is too long")
	}
	if strings.HasPrefix(s, "TZ=") || strings.HasPrefix(s, "CRON_TZ=") {
		return nil, fmt.Errorf("time zones in the schedule are not supported; use spec.timeZone")
	}
	if strings.HasPrefix(s, "@every ") {
		d, err := time.ParseDuration(strings.TrimSpace(s[len("@every "):]))
		if err != nil || d < time.Second {
			return nil, fmt.Errorf("bad @every duration %q", s)
		}
		return &cronSchedule{every: d}, nil
	}
	if d, ok := cronDescriptors[strings.ToLower(s)]; ok {
		s = d
	}
	f := strings.Fields(s)
	if len(f) != 5 {
		return nil, fmt.Errorf("expected 5 fields (minute hour day-of-month month day-of-week), got %d", len(f))
	}
	var c cronSchedule
	var err error
	if c.minute, err = cronField(f[0], 0, 59, nil); err != nil {
		return nil, fmt.Errorf("minute: %w", err)
	}
	if c.hour, err = cronField(f[1], 0, 23, nil); err != nil {
		return nil, fmt.Errorf("hour: %w", err)
	}
	if c.dom, err = cronField(f[2], 1, 31, nil); err != nil {
		return nil, fmt.Errorf("day of month: %w", err)
	}
	if c.month, err = cronField(f[3], 1, 12, monthNames); err != nil {
		return nil, fmt.Errorf("month: %w", err)
	}
	if c.dow, err = cronField(f[4], 0, 7, dayNames); err != nil {
		return nil, fmt.Errorf("day of week: %w", err)
	}
	if c.dow&(1<<7) != 0 {
		c.dow |= 1 // 7 is Sunday too
	}
	c.domStar = f[2] == "*" || f[2] == "?"
	c.dowStar = f[4] == "*" || f[4] == "?"
	return &c, nil
}

func cronField(field string, lo, hi int, names map[string]int) (uint64, error) {
	var bits uint64
	for _, part := range strings.Split(field, ",") {
		step := 1
		if i := strings.IndexByte(part, '/'); i >= 0 {
			n, err := strconv.Atoi(part[i+1:])
			if err != nil || n <= 0 || n > hi+1 {
				return 0, fmt.Errorf("bad step in %q", part)
			}
			step, part = n, part[:i]
		}
		start, end := lo, hi
		switch {
		case part == "*" || part == "?":
		case strings.Contains(part, "-"):
			i := strings.IndexByte(part, '-')
			a, err := cronValue(part[:i], names)
			if err != nil {
				return 0, err
			}
			b, err := cronValue(part[i+1:], names)
			if err != nil {
				return 0, err
			}
			start, end = a, b
		default:
			v, err := cronValue(part, names)
			if err != nil {
				return 0, err
			}
			start, end = v, v
			if step > 1 {
				end = hi
			}
		}
		if start < lo || end > hi || start > end {
			return 0, fmt.Errorf("value out of range %d-%d in %q", lo, hi, field)
		}
		for v := start; v <= end; v += step {
			bits |= 1 << uint(v)
		}
	}
	return bits, nil
}

func cronValue(s string, names map[string]int) (int, error) {
	if v, ok := names[strings.ToLower(s)]; ok {
		return v, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, nil
}

func (c *cronSchedule) matches(t time.Time) bool {
	if c.minute&(1<<uint(t.Minute())) == 0 || c.hour&(1<<uint(t.Hour())) == 0 || c.month&(1<<uint(t.Month())) == 0 {
		return false
	}
	domOK := c.dom&(1<<uint(t.Day())) != 0
	dowOK := c.dow&(1<<uint(t.Weekday())) != 0
	if c.domStar || c.dowStar {
		return domOK && dowOK
	}
	return domOK || dowOK
}

// prev returns the last scheduled time at or before t (searching back at most ~1 year).
func (c *cronSchedule) prev(t time.Time) (time.Time, bool) {
	if c.every > 0 {
		return t.Add(-c.every), true
	}
	t = t.Truncate(time.Minute)
	limit := t.AddDate(-1, 0, -1)
	for t.After(limit) {
		if c.month&(1<<uint(t.Month())) == 0 {
			// Jump to the last minute of the previous month.
			t = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, t.Location()).Add(-time.Minute)
			continue
		}
		if !c.matchesDay(t) {
			t = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location()).Add(-time.Minute)
			continue
		}
		if c.hour&(1<<uint(t.Hour())) == 0 {
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), 0, 0, 0, t.Location()).Add(-time.Minute)
			continue
		}
		if c.minute&(1<<uint(t.Minute())) != 0 {
			return t, true
		}
		t = t.Add(-time.Minute)
	}
	return time.Time{}, false
}

func (c *cronSchedule) matchesDay(t time.Time) bool {
	domOK := c.dom&(1<<uint(t.Day())) != 0
	dowOK := c.dow&(1<<uint(t.Weekday())) != 0
	if c.domStar || c.dowStar {
		return domOK && dowOK
	}
	return domOK || dowOK
}

// interval estimates the gap between two runs ending at t.
func (c *cronSchedule) interval(t time.Time) time.Duration {
	if c.every > 0 {
		return c.every
	}
	a, ok := c.prev(t)
	if !ok {
		return 0
	}
	b, ok := c.prev(a.Add(-time.Minute))
	if !ok {
		return 0
	}
	return a.Sub(b)
}
