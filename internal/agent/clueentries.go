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

// Multi-line entries. Many loggers write one error over several lines: a severity header
// whose own text is only a timestamp and a request id (Rails' tagged logger, log4j patterns
// ending in a newline), a Python traceback whose last line is the exception, a Java chain of
// "Caused by:" links, a Go panic above its goroutine dump. The header is not the error; the
// line that names the exception is, and the lines of the same entry say what it was about.

var (
	// frameTail is a frame written "file.rb:12:in `method'" anywhere on the line (Ruby
	// backtraces prefix it with a gem name and version, or a request tag).
	frameTail = regexp.MustCompile("\\.(rb|py|go|js|ts|php|ex|exs|erl|cr):\\d+:in [`'\u2018]|^\\s*from \\S+:\\d+:in [`'\u2018]")
	// rubyRaise is the line Ruby writes for an exception nobody rescued: the frame that
	// raised it, then the message and the class ("app.rb:113:in 'connect': msg (PG::Error)";
	// backquoted before Ruby 3.4). It opens the backtrace but is no frame: it is the error.
	rubyRaise = regexp.MustCompile("^(\\s*(?:\\[[^\\]\\s]{1,64}\\]\\s*)?)[^\\s:'`]{1,300}:\\d+:in [`'\u2018][^'\u2019\\n]{1,160}['\u2019]: (.+?) \\(([A-Z][A-Za-z0-9_]*(?:::[A-Z][A-Za-z0-9_]*)*)\\)\\s*$")
	// headerNoise is what a severity header holds besides a message: bracketed tags and
	// ids, times and numbers, process ids and severity words.
	headerNoise = regexp.MustCompile(`\[[^\]]{0,80}\]|\d[\d:.,TZ+-]*|#\d+|(?i:\b(fatal|error|err|crit|critical|panic|emerg|alert|warn|warning|info|debug|trace|notice|severe)\b)`)
	wordRe      = regexp.MustCompile(`[A-Za-z]{3,}`)
	// entryStart is a line that opens an entry of its own: a timestamp, a klog or Ruby
	// severity prefix, a severity word, a JSON record.
	entryStart = regexp.MustCompile(`^(\[?\d{4}[-/]\d\d[-/]\d\d|[IWEFDA]\d{4} \d\d:|[DIWEFAU], \[|(?i:(info|warn|warning|error|fatal|debug|trace|crit|critical|panic)\b)|\{)`)
	// leadingTime is a timestamp at the start of a line.
	leadingTime = regexp.MustCompile(`^(?:\[` + timestamp + `\]|` + timestamp + `):?\s+`)
	// leadingTag is a request id or thread tag a logger writes before each line of an entry.
	leadingTag = regexp.MustCompile(`^\[[^\]\s]{1,64}\]`)
	// pyTraceback opens a Python traceback; pyChain joins two of them.
	pyTraceback = regexp.MustCompile(`^\s*Traceback \(most recent call last\):`)
	pyChain     = regexp.MustCompile(`^\s*(During handling of the above exception|The above exception was the direct cause)`)
	// exceptionLine names an exception class and its message ("pkg.SomeError: msg").
	exceptionLine = regexp.MustCompile(`^\s*(Caused by: )?[\w.$:]*[A-Za-z0-9](Error|Exception|Exit|Interrupt|Fault|Failure|Bad)\b`)
)

// timestamp is a date and time as loggers write them.
const timestamp = `\d{4}[-/]\d\d[-/]\d\d[T ]\d\d:\d\d(?::\d\d)?(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d| ?UTC| [+-]\d{4})?`

// quietSeverity reports a line whose own severity, near its start, is info, debug or trace.
func quietSeverity(l string) bool {
	head := clipBytes(l, 48)
	if strings.Contains(l, "level=info") || strings.Contains(l, "level=debug") {
		return true
	}
	return quietHead.MatchString(head) && !fatalMarker.MatchString(head) && !severeHead.MatchString(head)
}

var (
	quietHead  = regexp.MustCompile(`(?i)\b(info|debug|trace|dbug|trce)\b|^[ID]\d{4} \d\d:|^[ID], \[`)
	severeHead = regexp.MustCompile(`(?i)\b(error|err|warn|warning|fail|severe)\b|^[EWF]\d{4} \d\d:|^[EWF], \[`)
)

// rubyUncaught rewrites Ruby's line for an unrescued exception as the other stacks write
// an exception ("PG::ConnectionBad: msg"), so it scores as the error it is and its frame
// (the file that raised it) is not read as a path the error is about. Other lines are
// returned unchanged.
func rubyUncaught(l string) string {
	if !strings.Contains(l, ":in ") {
		return l
	}
	m := rubyRaise.FindStringSubmatch(clipBytes(l, maxClueLineLen))
	if m == nil {
		return l
	}
	return m[1] + m[3] + ": " + m[2]
}

// isFrame reports a stack frame or a frame-count line.
func isFrame(l string) bool { return stackFrame.MatchString(l) || frameTail.MatchString(l) }

// headerOnly reports a line that holds a severity and nothing else worth quoting.
func headerOnly(l string) bool {
	return !wordRe.MatchString(headerNoise.ReplaceAllString(clipBytes(l, maxClueLineLen), ""))
}

// untagged is l without the request tag in front of it.
func untagged(l string) string { return strings.TrimSpace(leadingTag.ReplaceAllString(l, "")) }

// quotable is the error line as quoted: without the timestamp or the request id in front
// of it, which change with every line and say nothing about the error, so that the words
// of the error fit the quote.
func quotable(l string) string {
	l = strings.TrimSpace(l)
	if ts := leadingTime.FindString(l); ts != "" && len(ts) < len(l) {
		l = l[len(ts):]
	}
	if tag := leadingTag.FindString(l); len(tag) >= 10 && strings.ContainsAny(tag, "0123456789") && untagged(l) != "" {
		return untagged(l)
	}
	return l
}

// windowed keeps the words of a long error line that say what failed: when the needle of
// its family lies past what a quote holds, the quote starts shortly before it.
func windowed(l string, class ErrClass) string {
	if len(l) <= maxClueLine {
		return l
	}
	low := strings.ToLower(clipBytes(l, maxClueLineLen))
	at := -1
	for _, f := range errFamilies {
		if f.class != class {
			continue
		}
		for _, n := range f.needles {
			if i := strings.Index(low, n); i >= 0 && (at < 0 || i < at) {
				at = i
			}
		}
	}
	if at < 0 || at+40 < maxClueLine || at > len(l) {
		return l
	}
	start := at - maxClueLine/2
	if sp := strings.IndexByte(l[start:at], ' '); sp >= 0 {
		start += sp + 1
	}
	return "…" + l[start:]
}

// headers hands the severity of a header that says nothing to the first line of its entry
// that does, and demotes the header: "FATAL -- : [req-id]" is not the error, the exception
// on the next line is.
func headers(lines []string, scores []int, classes []ErrClass) {
	for i, l := range lines {
		if scores[i] <= 0 || !headerOnly(l) {
			continue
		}
		for j := i + 1; j < len(lines) && j <= i+4; j++ {
			lj := clipBytes(lines[j], maxClueLineLen)
			if untagged(lj) == "" || scores[j] <= -6 {
				continue
			}
			if entryStart.MatchString(lj) && !headerOnly(lj) {
				break
			}
			s, c := scoreLine(untagged(lj), true)
			if s < scores[i] {
				s = scores[i]
			}
			if s > scores[j] {
				scores[j], classes[j] = s, c
			}
			if classes[j] == ErrNone {
				classes[j] = ErrGeneric
			}
			scores[i], classes[i] = 0, ErrNone
			break
		}
	}
}

// tracebacks reads Python tracebacks: the header and the lines between it and the exception
// are frames, and the exception line that closes the traceback is its error (unless it was
// raised from the cause of an earlier traceback).
func tracebacks(lines []string, scores []int, classes []ErrClass) {
	in, caused := false, false
	header := 0 // the score of the line a traceback hangs under (logger.exception's message)
	for i, l := range lines {
		l = clipBytes(l, maxClueLineLen)
		switch {
		case pyTraceback.MatchString(l):
			in = true
			header = 0
			if i > 0 && scores[i-1] > 0 {
				header = scores[i-1]
			}
			scores[i], classes[i] = -6, ErrNone
		case pyChain.MatchString(l):
			// "The above exception was the direct cause": the traceback that follows is a
			// wrapper raised from the cause above it, which keeps its lead.
			caused = strings.Contains(strings.ToLower(l), "direct cause")
			scores[i], classes[i] = 0, ErrNone
		case in && (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")):
			scores[i], classes[i] = -6, ErrNone
		case in && strings.TrimSpace(l) != "":
			in = false
			bonus, wrapped := 2, caused
			if wrapped {
				bonus, caused = -wrapperDemotion, false
			}
			if s, c := scoreLine(l, true); s+bonus > scores[i] || wrapped {
				scores[i], classes[i] = max(1, s+bonus), c
				if !wrapped && header > 0 && scores[i] <= header {
					// The exception is what the message above the traceback is about: it
					// names the cause ("MasterNotFoundError: No master found for 'x'" under
					// "GET /ready 503: store unavailable").
					scores[i] = header + 1
				}
				if c == ErrNone {
					classes[i] = ErrGeneric
				}
			}
		}
	}
}

// maxEntryLines bounds how far an entry is followed from its error line.
const maxEntryLines = 40

// continues reports whether line l continues the entry that line prev belongs to.
func continues(l, tag string) bool {
	switch {
	case strings.TrimSpace(l) == "":
		return false
	case strings.HasPrefix(l, " "), strings.HasPrefix(l, "\t"), isFrame(l), causedBy.MatchString(l):
		return true
	case tag != "" && strings.HasPrefix(l, tag):
		return true
	}
	return false
}

// entryOf lists the other error-bearing lines of the entry line best belongs to: back to
// the line that opened it (a header, "Exception in thread", "Traceback") and on over its
// continuation lines. What these lines name is what the error is about.
func entryOf(lines []string, scores []int, best int) []int {
	tag := leadingTag.FindString(lines[best])
	var out []int
	start := best
	if continues(lines[best], tag) || exceptionLine.MatchString(lines[best]) {
		for start > 0 && best-start < maxEntryLines {
			start--
			if !continues(clipBytes(lines[start], maxClueLineLen), tag) {
				break // the line that opened the entry
			}
		}
	}
	for i := start; i < len(lines) && i-best < maxEntryLines; i++ {
		if i > best && !continues(clipBytes(lines[i], maxClueLineLen), tag) && !(tag != "" && strings.TrimSpace(lines[i]) == "") {
			break
		}
		if i != best && scores[i] > 0 {
			out = append(out, i)
		}
	}
	return out
}
