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
	"path"
	"regexp"
	"strings"
)

// A path in an error's text is a file the application wanted, or the place in its own code
// (or in a library's) where the error was raised: a Ruby or Go frame ("…/session.rb:1262:in"),
// a Python frame (File "…/site-packages/x.py", line 3), a Java or Node frame ("(…/x.js:10:5)").
// Only the first kind can be a missing or unreadable configuration file.

// lineNumberAfter matches what follows a code location: ":123", ", line 123".
var lineNumberAfter = regexp.MustCompile(`^(?::\d{1,7}\b|["']?,? line \d{1,7}\b)`)

// libraryDirs are directories that hold installed code, never configuration.
var libraryDirs = []string{"/gems/", "/site-packages/", "/dist-packages/", "/node_modules/", "/vendor/bundle/", "/lib/python", "/.m2/repository/", "/go/pkg/mod/", "/usr/lib/jvm/", "/lib/ruby/"}

// sourceExt are the extensions of program source files.
var sourceExt = map[string]bool{".rb": true, ".py": true, ".go": true, ".js": true, ".mjs": true, ".cjs": true, ".ts": true, ".jsx": true, ".tsx": true,
	".java": true, ".kt": true, ".scala": true, ".rs": true, ".cs": true, ".php": true, ".ex": true, ".exs": true, ".pl": true, ".pm": true, ".c": true, ".cc": true, ".cpp": true, ".h": true}

// A path can also be a request's path, not a file: after an HTTP method ("POST /v1/notify"),
// before a protocol version ("… HTTP/1.1"), as the value of a path/uri/route field, or under a
// root only web APIs use (/api/, /v1/, /healthz).
var (
	methodBefore  = regexp.MustCompile(`(?i)\b(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+["']?$`)
	requestField  = regexp.MustCompile(`(?i)\b(?:path|uri|url|route|endpoint|request_uri|request_path|location)["']?\s*[=:]\s*["']?$`)
	protocolAfter = regexp.MustCompile(`^\s+HTTP/\d`)
	webRoot       = regexp.MustCompile(`^/(?:api|apis|v\d+(?:alpha\d*|beta\d*)?|healthz?|readyz|livez|graphql|rpc)(?:/|$)`)
)

// requestPath reports whether path p, preceded in its line by before and followed by rest, is
// the path of an HTTP request.
func requestPath(p, before, rest string) bool {
	if len(before) > 40 {
		before = before[len(before)-40:]
	}
	return methodBefore.MatchString(before) || requestField.MatchString(before) || protocolAfter.MatchString(rest) || webRoot.MatchString(p) || strings.HasPrefix(rest, "?")
}

// codeLocation reports whether path p, followed in its line by rest, is a place in code.
func codeLocation(p, rest string) bool {
	if lineNumberAfter.MatchString(rest) && sourceExt[strings.ToLower(path.Ext(p))] {
		return true // a configuration file quoted with a line number (config.yaml:5) stays
	}
	for _, d := range libraryDirs {
		if strings.Contains(p, d) {
			return true
		}
	}
	return false
}
