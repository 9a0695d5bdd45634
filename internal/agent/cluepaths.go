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
var libraryDirs = []string{"/usr/local/go/src/", "/usr/lib/go/src/", "/gems/", "/site-packages/", "/dist-packages/", "/node_modules/", "/vendor/bundle/", "/lib/python", "/.m2/repository/", "/go/pkg/mod/", "/usr/lib/jvm/", "/lib/ruby/"}

// sourceExt are the extensions of program source files.
var sourceExt = map[string]bool{".rb": true, ".py": true, ".go": true, ".s": true, ".js": true, ".mjs": true, ".cjs": true, ".ts": true, ".jsx": true, ".tsx": true,
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

// A path is a file only where the text uses it as one: after a verb or noun of file access
// ("open P", "stat P", "config file P", "ENOENT: …, open 'P'"), before a file error ("P: no
// such file or directory", "P (Permission denied)"), as the value of a file setting
// (config_file=P), or when its last element has a file's extension. Elsewhere a path is an
// etcd or ZooKeeper key, a cgroup, a route: nothing a volume could hold.
var (
	fileWordBefore = regexp.MustCompile(`(?i)(?:\b(?:open|opening|opened|openat|openfile|stat|lstat|statfs|read|reading|readfile|readdir|readlink|write|writing|writefile|load|loading|parse|parsing|create|creating|mkdir|chmod|chown|chdir|access|accessing|unlink|remove|rename|exec|execute|executing|source|include|find|locate|mount|mounted at|file|files|directory|dir|folder|path|config|configuration|conf|certificate|keyfile|certfile|cafile|socket|script|module|binary|executable|datadir|no such file or directory|no such file|permission denied|read-only file system|not a directory|is a directory|enoent|eacces)(?:\(\))?\s*[:,]?|[\w.-]*(?:file|path|dir|directory|config|conf)["']?\s*[=:])\s*["'\x60(\[]?$`)
	// fileReadFrom is a file verb a few words before "from P" or "at P": "failed to read
	// configuration from /etc/app".
	fileReadFrom = regexp.MustCompile(`(?i)\b(?:open|read|load|pars|stat|writ)\w*\s+(?:[\w-]+\s+){0,2}(?:from|at|in)\s+["'\x60]?$`)
	// fileErrorAfter is an error only a file system gives, shortly after the path.
	fileErrorAfter = regexp.MustCompile(`(?i)^[^/]{0,40}?(?:no such file|permission denied|read-only file system|is a directory|not a directory|no space left|operation not permitted|too many open files|input/output error|file exists|access is denied|cannot open|could not open|enoent|eacces)`)
	// missingAfter says a thing is missing; it proves a file only under a file system's roots.
	missingAfter = regexp.MustCompile(`(?i)^["'\x60]?:?\s+(?:not found|does not exist|is missing|missing)|^: not found`)
	fileExt      = regexp.MustCompile(`\.[A-Za-z][A-Za-z0-9]{0,9}$`)
)

// fsRoots are top directories that hold files in a container image or its volumes.
var fsRoots = map[string]bool{"etc": true, "var": true, "opt": true, "app": true, "data": true, "srv": true, "usr": true, "home": true,
	"run": true, "tmp": true, "config": true, "conf": true, "mnt": true, "certs": true, "secrets": true, "root": true, "bin": true,
	"lib": true, "workspace": true, "code": true, "tls": true, "ssl": true, "keys": true, "vault": true, "docker-entrypoint.d": true}

// filePosition reports whether path p, preceded in its line by before and followed by rest,
// is written where a file is.
func filePosition(p, before, rest string) bool {
	if len(before) > 80 {
		before = before[len(before)-80:]
	}
	if fileWordBefore.MatchString(before) || fileReadFrom.MatchString(before) || fileErrorAfter.MatchString(clipBytes(rest, 80)) {
		return true
	}
	base := path.Base(p)
	if fileExt.MatchString(base) && !strings.HasPrefix(base, ".") {
		return true
	}
	root, _, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
	return fsRoots[root] && missingAfter.MatchString(clipBytes(rest, 40))
}
