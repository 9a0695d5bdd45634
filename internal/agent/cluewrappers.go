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

// Framework wrappers. Frameworks report a failure beneath them in their own words first:
// Spring's "Exception encountered during context initialization", "Application run failed",
// "Error creating bean with name …", .NET's "One or more errors occurred", Node's unhandled
// rejection banner, Python's "The above exception was the direct cause". Such a line says
// that something failed, not what: the cause is the innermost link of its chain, either on
// the same line ("nested exception is X: msg", " ---> X: msg", "rejected with the reason
// "msg"") or on a later line (the last "Caused by:", the first traceback's last line). The
// wrapper keeps a low positive score, so it is still quoted when the tail lost the rest.

var (
	// wrapperPhrase is a framework's report that something beneath it failed.
	wrapperPhrase = regexp.MustCompile(`(?i)exception encountered during (?:context initialization|startup|start-up)|application run failed|error starting applicationcontext|application failed to start|error creating bean with name|unsatisfied dependency expressed through|failed to start bean|error occurred during initialization of boot layer|an error occurred while starting the application|one or more errors occurred|unhandledpromiserejection: this error originated|an unhandled exception has occurred|hosting failed to start|invocation of init method failed|failed to start application|beaninstantiationexception: failed to instantiate|(?:exiting|shutting down|aborting|terminating)\b.{0,60}\bdue to (?:an? )?(?:fatal |unexpected |unhandled |uncaught )?(?:exception|error)\b|fatal error during \S+ (?:startup|start-up|initiali[sz]ation)`)
	// innerLink ends each link of a chain written on one line; the text after the last one
	// is the innermost cause.
	innerLink = regexp.MustCompile(`(?i)(?:;\s*)?nested exception is\s+|\s---> |\bcaused by:\s+|rejected with the reason\s+`)
)

// chainLink is a line that continues an exception chain on its own line. A logger's
// error line followed by the exception it was given ("ERROR Exiting Kafka due to fatal
// exception" over "java.lang.IllegalArgumentException: requirement failed: …") continues the
// chain too: exceptionAfter.
var chainLink = regexp.MustCompile(`^\s*(Caused by: |---> |Traceback \(most recent call last\):)`)

// wrapperDemotion is how much a wrapper line loses against the lines of its chain.
const wrapperDemotion = 4

// innermost is the last link of a chain written on one line, or "" when the line has none
// (or the last link is too short to say anything).
func innermost(l string) string {
	l = clipBytes(l, maxClueLineLen)
	locs := innerLink.FindAllStringIndex(l, -1)
	if len(locs) == 0 {
		return ""
	}
	in := strings.TrimSpace(l[locs[len(locs)-1][1]:])
	in = strings.Trim(in, `"'.]{ `)
	if len(in) < 8 {
		return ""
	}
	return in
}

// wrappers rescores a line that carries a chain by its innermost link, and demotes lines
// whose words are a framework's wrapper when the line says nothing beneath the wrapper or
// a later line continues the chain ("Caused by:", " ---> ", a traceback).
func wrappers(lines []string, scores []int, classes []ErrClass) {
	chainAfter := make([]bool, len(lines)+1)
	for i := len(lines) - 1; i >= 0; i-- {
		chainAfter[i] = chainAfter[i+1] || chainLink.MatchString(clipBytes(lines[i], maxClueLineLen))
	}
	for i, l := range lines {
		if scores[i] <= 0 {
			continue
		}
		in := innermost(l)
		if in != "" {
			if s, c := scoreLine(in, true); c != ErrNone && c != ErrGeneric || classes[i] == ErrGeneric {
				// The innermost link decides the family; the severity words of the whole line count.
				scores[i], classes[i] = max(s, scores[i]), c
			}
		}
		if wrapperPhrase.MatchString(clipBytes(l, maxClueLineLen)) && (in == "" || wrapperPhrase.MatchString(in) || chainAfter[i+1] || exceptionAfter(lines, i)) {
			scores[i] = max(1, scores[i]-wrapperDemotion)
		}
	}
}

// exceptionAfter reports the line after line i (blank lines aside) opening an exception
// with a message of its own ("pkg.SomeException: msg"): the exception a logger was handed.
func exceptionAfter(lines []string, i int) bool {
	for j := i + 1; j < len(lines) && j <= i+2; j++ {
		l := strings.TrimSpace(clipBytes(lines[j], maxClueLineLen))
		if l == "" {
			continue
		}
		name, msg, ok := strings.Cut(l, ": ")
		return ok && len(strings.TrimSpace(msg)) >= 8 && !isFrame(l) && exceptionLine.MatchString(name)
	}
	return false
}
