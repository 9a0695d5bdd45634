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

package text_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kubage/kubage/internal/text"
)

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 3, "hel"},
		{"hello", 0, ""},
		{"hello", -1, ""},
		{"héllo", 2, "h"}, // é is two bytes: never split it
		{"héllo", 3, "hé"},
		{"日本語", 4, "日"},
		{"", 3, ""},
	} {
		if got := text.Clip(tc.in, tc.n); got != tc.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestClipMarked(t *testing.T) {
	if got := text.ClipMarked("hello", 5); got != "hello" {
		t.Errorf("unclipped text gained a mark: %q", got)
	}
	if got := text.ClipMarked("hello world", 5); got != "hello…" {
		t.Errorf("ClipMarked = %q", got)
	}
	if got := text.ClipMarked("日本語", 4); got != "日…" {
		t.Errorf("ClipMarked = %q", got)
	}
}

func FuzzClip(f *testing.F) {
	f.Add("héllo wörld", 3)
	f.Add(strings.Repeat("日", 100), 7)
	f.Fuzz(func(t *testing.T, s string, n int) {
		got := text.Clip(s, n)
		if len(got) > n && n >= 0 {
			t.Fatalf("Clip(%q, %d) is %d bytes", s, n, len(got))
		}
		if !strings.HasPrefix(s, got) {
			t.Fatalf("Clip(%q, %d) = %q is not a prefix", s, n, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Clip split a rune: %q", got)
		}
	})
}

// A cut inside a word drops the word, so no half of a value survives to the redactor.
func TestClipWordsDropsTheCutWord(t *testing.T) {
	got := text.ClipWords("the pager failed, page oncall@payments.example now", 28)
	if got != "the pager failed, page…" {
		t.Fatalf("got %q", got)
	}
	if got := text.ClipWords("short", 24); got != "short" {
		t.Fatalf("got %q", got)
	}
	if got := text.ClipWords(strings.Repeat("x", 40), 24); got != strings.Repeat("x", 24)+"…" {
		t.Fatalf("a text without spaces is cut at n: %q", got)
	}
}
