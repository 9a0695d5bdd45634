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

import "strings"

// A long error line (a JSON message whose newlines were joined, a Java exception chain, a
// Go error wrapped five times) often says what went wrong only after a general header
// ("node validation exception | bootstrap checks failed | ... vm.max_map_count [65530] is
// too low"). Cutting such a line to its head loses the words that matter, so the quoted line
// keeps the header and then the window from the most telling part on.

// segmentSeps split a line into the parts an error chain is made of.
var segmentSeps = []string{" | ", "; ", ". ", ": ", " - "}

// maxWindowHead is how much of the header is kept before the window.
const maxWindowHead = 120

// quoteWindow is the part of an error line a quote shows: the window around the needle of
// its family when that lies past the head (windowed), else the header and the most telling
// part, for errors no family names (a bootstrap check, a value out of range).
func quoteWindow(line string, class ErrClass) string {
	l := quotable(line)
	if w := windowed(l, class); w != l {
		return w
	}
	return errorWindow(l, maxClueLine)
}

// errorWindow returns line when it fits in max bytes; otherwise the header and, from the
// part of the line that scores highest as an error (the last of equals: error chains go
// from the general to the specific), as much as fits. The result may exceed max by the
// ellipsis; the caller sanitizes and cuts it.
func errorWindow(line string, max int) string {
	line = clipBytes(line, maxClueLineLen)
	if len(line) <= max {
		return line
	}
	starts := segmentStarts(line)
	best, bestScore := 0, 0
	for i, s := range starts {
		end := len(line)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		if sc, _ := scoreLine(line[s:end], false); sc > 0 && sc >= bestScore {
			best, bestScore = s, sc
		}
	}
	// The head already shows the best part with room to spare: keep the line as it is.
	if best+max/3 <= max {
		return line
	}
	head := line[:best]
	if len(head) > maxWindowHead {
		head = head[:maxWindowHead]
		if i := strings.LastIndexByte(head, ' '); i > maxWindowHead/2 {
			head = head[:i]
		}
	}
	head = strings.TrimRight(head, " |;:.-")
	return head + " \u2026 " + line[best:]
}

// segmentStarts returns the byte offsets where the parts of line begin (0 first, ascending).
func segmentStarts(line string) []int {
	marks := make([]bool, len(line)+1)
	for _, sep := range segmentSeps {
		for i := 0; ; {
			j := strings.Index(line[i:], sep)
			if j < 0 {
				break
			}
			i += j + len(sep)
			marks[i] = true
		}
	}
	out := []int{0}
	for i := 1; i < len(line); i++ {
		if marks[i] {
			out = append(out, i)
		}
	}
	return out
}
