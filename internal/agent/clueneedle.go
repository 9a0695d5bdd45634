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

// hasNeedle finds n in low; a number (an HTTP status) must stand alone, so "503" does not
// match inside "15033".
func hasNeedle(low, n string) bool {
	if errnoNeedle.MatchString(n) || identNeedle.MatchString(n) {
		// An errno or class name stands alone: "enotfound" is not in "modulenotfounderror",
		// "outofmemoryerror" not in the JVM flag "ExitOnOutOfMemoryError".
		for i := 0; i+len(n) <= len(low); {
			j := strings.Index(low[i:], n)
			if j < 0 {
				return false
			}
			if j += i; j == 0 || !isLetter(low[j-1]) {
				return true
			}
			i = j + 1
		}
		return false
	}
	if wordNeedle.MatchString(n) {
		// A word stands alone, takes a plural s or names an exception class: "config" is not
		// in "is configured" nor in "ConfigServlet", "migration" is in "migrations".
		for i := 0; i+len(n) <= len(low); {
			j := strings.Index(low[i:], n)
			if j < 0 {
				return false
			}
			j += i
			end := j + len(n)
			if end < len(low) && low[end] == 's' {
				end++
			}
			for _, suffix := range []string{"error", "exception"} {
				// An exception class named for the word: ConfigError, MigrationException.
				if strings.HasPrefix(low[end:], suffix) {
					end += len(suffix)
					break
				}
			}
			if (j == 0 || !isLetter(low[j-1])) && (end == len(low) || !isLetter(low[end])) {
				return true
			}
			i = j + 1
		}
		return false
	}
	if strings.Trim(n, "0123456789") != "" {
		if !isLetter(n[0]) || !strings.Contains(n, " ") {
			return strings.Contains(low, n)
		}
		// A phrase starts a word: "name resolution" is not in "hostname resolution".
		for i := 0; i+len(n) <= len(low); {
			j := strings.Index(low[i:], n)
			if j < 0 {
				return false
			}
			if j += i; j == 0 || !isLetter(low[j-1]) {
				return true
			}
			i = j + 1
		}
		return false
	}
	for i := 0; i+len(n) <= len(low); {
		j := strings.Index(low[i:], n)
		if j < 0 {
			return false
		}
		j += i
		before, after := j == 0 || !isDigit(low[j-1]), j+len(n) == len(low) || !isDigit(low[j+len(n)])
		if before && after {
			return true
		}
		i = j + 1
	}
	return false
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// errnoNeedle is a needle written as a C errno name (ENOTFOUND, ECONNREFUSED); identNeedle
// one written as an exception class name (OutOfMemoryError, UnknownHostException).
var (
	errnoNeedle = regexp.MustCompile(`^e[a-z_]{3,11}$`)
	identNeedle = regexp.MustCompile(`^[a-z]{8,}(error|exception|table)$`)
	wordNeedle  = regexp.MustCompile(`^[a-z]{3,12}$`)
)
