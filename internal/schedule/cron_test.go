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
)

func TestCron(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 7, 30, 0, time.UTC) // a Sunday
	cases := []struct {
		spec string
		prev string
		err  bool
	}{
		{"*/5 * * * *", "2026-03-01T12:05:00Z", false},
		{"0 * * * *", "2026-03-01T12:00:00Z", false},
		{"30 2 * * 1-5", "2026-02-27T02:30:00Z", false}, // last weekday run: Friday
		{"0 0 1 jan *", "2026-01-01T00:00:00Z", false},
		{"@daily", "2026-03-01T00:00:00Z", false},
		{"0 9 * * SUN", "2026-03-01T09:00:00Z", false},
		{"0 0 31 2 *", "", false}, // never fires
		{"61 * * * *", "", true},
		{"* * *", "", true},
		{"TZ=UTC 0 * * * *", "", true},
		{"*/0 * * * *", "", true},
		{"5-1 * * * *", "", true},
	}
	for _, c := range cases {
		s, err := Parse(c.spec, "")
		if (err != nil) != c.err {
			t.Errorf("Parse(%q) error = %v, want error %t", c.spec, err, c.err)
			continue
		}
		if err != nil {
			continue
		}
		p, ok := s.Prev(now)
		got := ""
		if ok {
			got = p.Format(time.RFC3339)
		}
		if got != c.prev {
			t.Errorf("prev(%q) = %q, want %q", c.spec, got, c.prev)
		}
	}
	if s, _ := Parse("*/15 * * * *", ""); s.Interval(now) != 15*time.Minute {
		t.Errorf("interval of */15 = %s", s.Interval(now))
	}
}

func FuzzCron(f *testing.F) {
	for _, s := range []string{"*/5 * * * *", "@hourly", "0 0 29 2 *", "1-5/2 1,2 * JAN-mar mon-fri", "@every 90s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Parse(s, "")
		if err != nil {
			return
		}
		if p, ok := c.Prev(fixedNow); ok && p.After(fixedNow) {
			t.Fatalf("prev after now for %q", s)
		}
	})
}

var fixedNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestCronTimeZone(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 7, 30, 0, time.UTC)
	s, err := Parse("0 9 * * *", "Asia/Tokyo") // 09:00 JST is 00:00 UTC
	if err != nil {
		t.Fatal(err)
	}
	p, ok := s.Prev(now)
	if !ok || !p.Equal(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("Prev = %s, want 2026-03-01T00:00:00Z", p.UTC())
	}
	n, ok := s.Next(now)
	if !ok || !n.Equal(time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("Next = %s, want 2026-03-02T00:00:00Z", n.UTC())
	}
	if _, err := Parse("0 9 * * *", "Mars/Olympus"); err == nil {
		t.Error("an unknown time zone was accepted")
	}
	if _, err := Parse("0 9 * * *", "Local"); err == nil {
		t.Error("the operator's local zone was accepted; it differs between machines")
	}
}

func TestCronSecondsOnlyWhenAsked(t *testing.T) {
	if _, err := Parse("*/5 * * * * *", ""); err == nil {
		t.Error("six fields accepted without the seconds option")
	}
	s, err := Parser{Seconds: true}.Parse("*/5 * * * * *", "")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 12, 7, 33, 0, time.UTC)
	if p, _ := s.Prev(now); !p.Equal(now.Add(-3 * time.Second)) {
		t.Errorf("Prev = %s", p)
	}
	if s.Interval(now) != 5*time.Second {
		t.Errorf("Interval = %s", s.Interval(now))
	}
	// Five fields still read as minutes with the option on.
	s, _ = Parser{Seconds: true}.Parse("*/5 * * * *", "")
	if p, _ := s.Prev(now); !p.Equal(time.Date(2026, 3, 1, 12, 5, 0, 0, time.UTC)) {
		t.Errorf("Prev = %s", p)
	}
}

// TestCronPrevMatchesForwardWalk checks the bisection against walking forward run by run.
func TestCronPrevMatchesForwardWalk(t *testing.T) {
	now := time.Date(2026, 11, 1, 1, 30, 0, 0, time.UTC)
	for _, spec := range []string{"*/7 * * * *", "30 2 * * 1-5", "0 0 1,15 * *", "15 */3 * * *", "@every 90s", "0 1 * * *"} {
		for _, tz := range []string{"", "America/New_York", "Europe/Berlin"} {
			s, err := Parse(spec, tz)
			if err != nil {
				t.Fatal(err)
			}
			var want time.Time
			for cur, _ := s.Next(now.Add(-40 * 24 * time.Hour)); !cur.After(now); cur, _ = s.Next(cur) {
				want = cur
			}
			got, ok := s.Prev(now)
			if !ok || !got.Equal(want) {
				t.Errorf("Prev(%q in %q) = %s, want %s", spec, tz, got, want)
			}
		}
	}
}
