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
	"strings"
)

// logfmt records (key=value pairs, values quoted when they hold spaces: go-kit, logrus,
// Prometheus, Loki) are read like JSON records: the severity, the message and the error
// come first, in a line a person would read, and the timestamp and the caller go. Read as
// text, a long record's error sits past what a quote holds, behind the fields before it.

// maxLogfmtPairs bounds the pairs read from one record.
const maxLogfmtPairs = 32

// logfmtPairs splits a logfmt record into its pairs, in order; ok is false when the line is
// not one (fewer than three pairs, or text between them).
func logfmtPairs(line string) (keys []string, vals map[string]string, ok bool) {
	vals = map[string]string{}
	s := strings.TrimSpace(line)
	for s != "" && len(keys) < maxLogfmtPairs {
		eq := strings.IndexByte(s, '=')
		if eq <= 0 || strings.ContainsAny(s[:eq], " \t\"") {
			return nil, nil, false
		}
		k := s[:eq]
		s = s[eq+1:]
		var v string
		if strings.HasPrefix(s, `"`) {
			end, esc := -1, false
			for i := 1; i < len(s); i++ {
				if esc {
					esc = false
					continue
				}
				if s[i] == '\\' {
					esc = true
				} else if s[i] == '"' {
					end = i
					break
				}
			}
			if end < 0 {
				return nil, nil, false
			}
			v = unescapeLogfmt(s[1:end])
			s = s[end+1:]
		} else {
			sp := strings.IndexAny(s, " \t")
			if sp < 0 {
				sp = len(s)
			}
			v, s = s[:sp], s[sp:]
		}
		if _, dup := vals[k]; !dup {
			keys = append(keys, k)
			vals[k] = v
		}
		s = strings.TrimLeft(s, " \t")
	}
	return keys, vals, len(keys) >= 3
}

// unescapeLogfmt undoes the escapes of a quoted value; a line break becomes " | ".
func unescapeLogfmt(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	r := strings.NewReplacer(`\"`, `"`, `\\`, `\`, `\n`, " | ", `\t`, " ")
	return r.Replace(v)
}

// flattenLogfmt returns the readable form of a logfmt record, or line unchanged.
func flattenLogfmt(line string) string {
	if len(line) > maxJSONLine || !strings.Contains(line, "=") {
		return line
	}
	keys, vals, ok := logfmtPairs(line)
	if !ok {
		return line
	}
	rec := make(map[string]any, len(vals))
	for k, v := range vals {
		rec[k] = v
	}
	used := map[string]bool{}
	lv := jsonLevel(rec, used)
	pick := func(names []string) (string, string) {
		for _, k := range names {
			if v, ok := vals[k]; ok {
				used[k] = true
				return k, v
			}
		}
		return "", ""
	}
	_, msg := pick(jsonMessageKeys)
	errKey, errText := pick(jsonErrorKeys)
	if lv == "" || msg == "" && errText == "" {
		return line // key=value text, but no log record we can read
	}
	var b strings.Builder
	b.WriteString(lv + " " + msg)
	if errText != "" {
		// The error keeps its key: "err=" says it is one, whatever its words.
		b.WriteString(" " + errKey + "=" + errText)
	}
	var rest []string
	for _, k := range keys {
		v := vals[k]
		if used[k] || jsonNoise[strings.ToLower(k)] || len(rest) >= 8 || len(v) > 200 {
			continue
		}
		rest = append(rest, k+"="+v)
	}
	if len(rest) > 0 {
		b.WriteString(" (" + strings.Join(rest, " ") + ")")
	}
	return strings.TrimSpace(b.String())
}
