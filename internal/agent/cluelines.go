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

// Line scores in context. ScoreLine rates one line alone; a log is more than its lines:
// a usage table printed after the error lists words such as "error" without meaning one,
// a Java exception's real cause is the last "Caused by:" of its chain, and .NET and other
// loggers write an entry as a severity header followed by indented text. contextScores
// corrects the single-line scores with what the neighbouring lines say.

var (
	// usageHeader opens a help text: flag or environment-variable tables printed by a
	// program that refuses its configuration.
	usageHeader = regexp.MustCompile(`(?i)^\s*(usage( of [\w./-]{1,80})?:|usage$|flags:|options:|available commands:|commands:|the following (environment )?(variables|flags|options)|environment variables:|KEY\s{2,}TYPE\b)`)
	// tabular is a row of a help table: columns separated by runs of spaces, or an
	// indented flag description.
	tabular = regexp.MustCompile(`^\s*(-{1,2}[\w-]+|[A-Z][A-Z0-9_]{2,}\s{2,}|\S+(\s{2,}\S+){2,})`)
	// causedBy starts one link of a Java (or Kotlin, Scala) exception chain.
	causedBy = regexp.MustCompile(`^\s*Caused by: `)
	// entryHeader is a severity header whose text follows on indented lines
	// (Microsoft.Extensions.Logging's console format: "fail: Category[id]").
	entryHeader = regexp.MustCompile(`^(fail|crit|error|warn|info|dbug|trce):\s`)
	// strongConfig words state a missing setting on their own, without an error marker.
	strongConfig = regexp.MustCompile(`(?i)required key|unbound variable|parameter null or not set|missing value|is not set|must be set|missing required|no such file or directory|keyerror|is required but|not defined in (the )?environment|flag provided but not defined|unknown (flag|option|shorthand flag)|unrecognized (option|arguments)|invalid configuration:\s*\S`)
)

// contextScores adjusts scores (and classes) of lines by their neighbours, in place.
func contextScores(lines []string, scores []int, classes []ErrClass) {
	usageRows(lines, scores, classes)
	tracebacks(lines, scores, classes)
	headers(lines, scores, classes)
	causeChains(lines, scores)
	wrappers(lines, scores, classes)
	entryContinuations(lines, scores, classes)
	repeated(lines, scores)
}

// digitsRun matches what changes between repeats of one message (times, ids, counters).
var digitsRun = regexp.MustCompile(`[0-9a-f]*[0-9][0-9a-f]*`)

// repeated raises error lines whose text, numbers aside, recurs: an error a workload keeps
// hitting says more about its state than a one-off line of the same score.
func repeated(lines []string, scores []int) {
	counts := map[string]int{}
	keys := make([]string, len(lines))
	for i, l := range lines {
		if scores[i] <= 0 {
			continue
		}
		keys[i] = digitsRun.ReplaceAllString(clipBytes(l, 200), "#")
		counts[keys[i]]++
	}
	for i := range lines {
		if scores[i] > 0 && counts[keys[i]] >= 3 {
			scores[i]++
		}
	}
}

// usageRows demotes the rows of a help table that follows a usage header, so that a word
// such as "error" in an option's description never becomes the quoted error line.
func usageRows(lines []string, scores []int, classes []ErrClass) {
	in := false
	for i, l := range lines {
		l = clipBytes(l, maxClueLineLen)
		switch {
		case usageHeader.MatchString(l):
			in = true
		case in && (strings.TrimSpace(l) == "" || tabular.MatchString(l) || strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")):
		default:
			in = false
			continue
		}
		if scores[i] > -4 {
			scores[i] = -4
		}
		classes[i] = ErrNone
	}
}

// causeChains raises the last "Caused by:" of each chain: the first exception of a Java
// trace is what the caller saw, the last cause is what went wrong.
func causeChains(lines []string, scores []int) {
	last := -1
	flush := func() {
		if last >= 0 && scores[last] > 0 {
			scores[last] += 2
		}
		last = -1
	}
	for i, l := range lines {
		l = clipBytes(l, maxClueLineLen)
		switch {
		case causedBy.MatchString(l):
			last = i
		case isFrame(l):
			// Frames and "... n more" belong to the current link.
		default:
			flush()
		}
	}
	flush()
}

// entryContinuations gives the indented text of an error entry the severity of its header.
func entryContinuations(lines []string, scores []int, classes []ErrClass) {
	severe := false
	msg := 0 // the score of the entry's message line, the first under the header
	for i, l := range lines {
		l = clipBytes(l, maxClueLineLen)
		if m := entryHeader.FindStringSubmatch(l); m != nil {
			severe = m[1] == "fail" || m[1] == "crit" || m[1] == "error"
			msg = -1
			continue
		}
		if !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "\t") {
			severe = false
			continue
		}
		if s, c := scoreLine(l, true); severe && scores[i] > -6 && s > scores[i] {
			scores[i], classes[i] = s, c
		}
		switch {
		case !severe:
		case msg < 0:
			msg = scores[i]
		case msg > 0 && !isFrame(l) && exceptionLine.MatchString(l):
			// The exception under the message names the cause ("SmtpCommandException:
			// 5.7.1 …: Relay access denied" under "Sending invoice … failed; will retry").
			if scores[i] <= msg {
				scores[i] = msg + 1
				if classes[i] == ErrNone {
					classes[i] = ErrGeneric
				}
			}
			msg = 0
		}
	}
}

// contextHosts adds the hosts named by the other error lines of the tail when the chosen
// line names none: loggers often say which server they were talking to in one entry and
// what failed in the next. Such hosts are weak: the configuration must confirm them.
func (c *Clue) contextHosts(lines []string, scores []int, best int) {
	for _, h := range c.Hosts {
		if !h.Weak {
			return
		}
	}
	var more Clue
	for i := len(lines) - 1; i >= 0 && len(more.Hosts) < maxEntities; i-- {
		if i != best && scores[i] > 0 {
			more.addEntities(clipBytes(lines[i], maxClueLineLen))
		}
	}
	for _, h := range more.Hosts {
		known := false
		for _, x := range c.Hosts {
			known = known || x.Host == h.Host
		}
		if !known && len(c.Hosts) < maxEntities {
			h.Weak = true
			c.Hosts = append(c.Hosts, h)
		}
	}
}
