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
	"regexp"
	"strings"
)

// HashiCorp's hclog (Vault, Consul, Nomad, Terraform providers, Boundary) writes a value that
// spans lines under its key, each line prefixed with "| ", and the entry's remaining pairs
// indented after it:
//
//	2026-11-27T14:03:10Z [ERROR] agent.auth.handler: error authenticating:
//	  error=
//	  | Error making API request.
//	  | Code: 403. Errors:
//	  | * service account name not authorized
//	  backoff=1s
//
// The header alone says nothing; the error is in the value. Such an entry is joined into one
// line before the lines are scored, bounded like any other line.

var (
	hclogKeyOnly = regexp.MustCompile(`^\s+[A-Za-z_][\w.-]{0,40}=\s*$`)
	hclogPipe    = regexp.MustCompile(`^\s+\|`)
)

// maxJoined bounds the continuation lines joined into one entry.
const maxJoined = 40

// joinContinuations joins hclog's multi-line values, and indented details under a header
// that ends with a colon, into their entry's line.
func joinContinuations(lines []string) []string {
	var out []string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		// A value block starts with "key=" alone on an indented line, or directly with "| ".
		if len(out) == 0 || !startsValueBlock(lines, i) && !continuesColon(out[len(out)-1], l) {
			out = append(out, l)
			continue
		}
		var b strings.Builder
		b.WriteString(strings.TrimRight(out[len(out)-1], " "))
		n := 0
		for ; i < len(lines) && n < maxJoined && isIndented(lines[i]) && !stackFrame.MatchString(lines[i]); i, n = i+1, n+1 {
			part := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[i]), "|"))
			if part != "" && b.Len() < maxClueLineLen {
				b.WriteByte(' ')
				b.WriteString(part)
			}
		}
		i-- // the loop's own increment moves past the block
		out[len(out)-1] = clipBytes(b.String(), maxClueLineLen)
	}
	return out
}

// continuesColon reports an indented line under a header that ends with a colon
// ("invalid configuration:" then "  cookie_secret must be 16, 24, or 32 bytes"): the details
// belong to the header's entry. Stack frames are never joined.
func continuesColon(prev, l string) bool {
	return strings.HasSuffix(strings.TrimSpace(prev), ":") && isIndented(l) && strings.TrimSpace(l) != "" && !stackFrame.MatchString(l)
}

// startsValueBlock reports an hclog value block at line i: "key=" alone followed by a "| "
// line, or a "| " line itself.
func startsValueBlock(lines []string, i int) bool {
	if hclogPipe.MatchString(lines[i]) {
		return true
	}
	return hclogKeyOnly.MatchString(lines[i]) && i+1 < len(lines) && hclogPipe.MatchString(lines[i+1])
}

// isIndented reports a line that continues an entry: indented, or blank but for spaces.
func isIndented(l string) bool {
	return l != "" && (l[0] == ' ' || l[0] == '\t')
}
