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
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// Structured logs. A JSON record says its severity in a field ("level":"error", pino's
// "level":50, "severity", Serilog's "@l") and its error in others ("msg", "err", "error",
// "exception"); read as text, its error sits behind timestamps and ids, and its top-level
// "hostname" is the emitting pod, not a dependency. flattenJSON rewrites such a record as
// the line a person would read: "ERROR msg: error (key=value …)".

// maxJSONLine bounds the records that are parsed; longer lines are scored as plain text.
const maxJSONLine = 16 << 10

// jsonLevelKeys, jsonMessageKeys and jsonErrorKeys are the field names loggers use.
var (
	jsonLevelKeys   = []string{"level", "severity", "lvl", "log.level", "@l", "loglevel"}
	jsonMessageKeys = []string{"msg", "message", "@m", "@mt", "event"}
	jsonErrorKeys   = []string{"error", "err", "exception", "@x", "error.message", "cause", "reason", "stack_trace"}
	// jsonNoise are fields that never say what went wrong (the emitter, times, ids).
	jsonNoise = map[string]bool{"time": true, "ts": true, "timestamp": true, "@t": true, "@timestamp": true, "pid": true, "hostname": true,
		"caller": true, "logger": true, "v": true, "reqid": true, "traceid": true, "spanid": true, "trace_id": true, "span_id": true, "thread": true}
)

// flattenJSON returns the readable form of a JSON log record, or line unchanged.
func flattenJSON(line string) string {
	t := strings.TrimSpace(line)
	if len(t) < 2 || len(t) > maxJSONLine || t[0] != '{' {
		return line
	}
	var rec map[string]any
	if t[len(t)-1] != '}' || json.Unmarshal([]byte(t), &rec) != nil {
		// Log tools clip long lines: read what the fields of a cut record still say.
		return partialJSON(t, line)
	}
	used := map[string]bool{}
	pick := func(keys []string) string {
		for _, k := range keys {
			if v, ok := rec[k]; ok {
				used[k] = true
				return jsonText(v, 2)
			}
		}
		return ""
	}
	var b strings.Builder
	if lv := jsonLevel(rec, used); lv != "" {
		b.WriteString(lv + " ")
	}
	b.WriteString(pick(jsonMessageKeys))
	if e := pick(jsonErrorKeys); e != "" {
		b.WriteString(": " + e)
	}
	var rest []string
	for _, k := range sortedKeys(rec) {
		if used[k] || jsonNoise[strings.ToLower(k)] || len(rest) >= 8 {
			continue
		}
		if s := jsonText(rec[k], 1); s != "" && len(s) <= 200 {
			rest = append(rest, k+"="+s)
		}
	}
	if len(rest) > 0 {
		b.WriteString(" (" + strings.Join(rest, " ") + ")")
	}
	return strings.TrimSpace(b.String())
}

// jsonField finds "key": value in a record that may be cut short (the value may be cut too).
var jsonField = regexp.MustCompile(`"(level|severity|lvl|@l|msg|message|@m|@mt|error|err|exception|@x|reason)"\s*:\s*(?:"((?:[^"\\]|\\.){0,400})"?|(-?[0-9]{1,3}))`)

// partialJSON rewrites a cut JSON record from the fields it still holds, or returns line.
func partialJSON(t, line string) string {
	rec := map[string]any{}
	for _, m := range jsonField.FindAllStringSubmatch(t, 12) {
		k := m[1]
		if _, seen := rec[k]; seen {
			continue
		}
		if m[3] != "" {
			n, _ := strconv.Atoi(m[3])
			rec[k] = float64(n)
			continue
		}
		var v string
		if json.Unmarshal([]byte(`"`+m[2]+`"`), &v) != nil {
			v = m[2]
		}
		rec[k] = v
	}
	used := map[string]bool{}
	lv := jsonLevel(rec, used)
	if lv == "" || len(rec) == len(used) {
		return line // not a log record we can read
	}
	parts := []string{lv}
	for _, k := range append(append([]string(nil), jsonMessageKeys...), jsonErrorKeys...) {
		if v, ok := rec[k].(string); ok && v != "" {
			parts = append(parts, strings.ReplaceAll(v, "\n", " | "))
		}
	}
	return strings.Join(parts, " ")
}

// jsonLevel reads the record's severity as a word, numbers as pino and bunyan write them.
func jsonLevel(rec map[string]any, used map[string]bool) string {
	for _, k := range jsonLevelKeys {
		v, ok := rec[k]
		if !ok {
			// ECS and others nest it: {"log": {"level": "error"}}.
			if parent, child, dotted := strings.Cut(k, "."); dotted {
				if m, isMap := rec[parent].(map[string]any); isMap {
					v, ok = m[child]
				}
			}
			if !ok {
				continue
			}
		}
		used[k] = true
		switch x := v.(type) {
		case float64:
			switch {
			case x >= 60:
				return "FATAL"
			case x >= 50:
				return "ERROR"
			case x >= 40:
				return "WARN"
			case x >= 30:
				return "INFO"
			}
			return "DEBUG"
		case string:
			return strings.ToUpper(clipBytes(x, 16))
		}
	}
	return ""
}

// jsonText renders a field value: strings as they are, an error object by its message
// (then its other scalar fields), numbers and booleans plainly; depth bounds the nesting.
func jsonText(v any, depth int) string {
	switch x := v.(type) {
	case string:
		return strings.ReplaceAll(x, "\n", " | ")
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case map[string]any:
		if depth <= 0 {
			return ""
		}
		var parts []string
		for _, k := range []string{"message", "msg"} {
			if s, ok := x[k].(string); ok {
				parts = append(parts, strings.ReplaceAll(s, "\n", " | "))
			}
		}
		// An exception's class says what failed ("ConnectionAcquireTimeoutError:
		// Operation timeout"); the bare "Error" of JavaScript says nothing.
		typ, _ := x["type"].(string)
		if len(parts) > 0 && typ != "" && typ != "Error" && len(typ) <= 120 {
			parts[0] = typ + ": " + parts[0]
		}
		for _, k := range sortedKeys(x) {
			if k == "message" || k == "msg" || k == "stack" || k == "type" && len(parts) > 0 {
				continue
			}
			if s := jsonText(x[k], depth-1); s != "" && len(s) <= 200 && len(parts) < 8 {
				parts = append(parts, k+"="+s)
			}
		}
		return strings.Join(parts, " ")
	}
	return ""
}

// ansiEscape matches terminal colour and cursor sequences, which loggers write when they
// think they talk to a terminal ("\x1b[31mERROR\x1b[0m"); left in, they glue to the
// severity word and hide it. The log tool shows the escape byte as ".", so ".[31m" too.
var ansiEscape = regexp.MustCompile(`\x1b\[[0-9;?]{0,32}[A-Za-z]|\.\[[0-9;]{1,32}m`)

// flattenLines strips terminal escapes and applies flattenJSON to every line (a copy; the
// caller's slice is untouched).
func flattenLines(lines []string) []string {
	lines = joinContinuations(lines)
	out := make([]string, len(lines))
	for i, l := range lines {
		if strings.IndexByte(l, 0x1b) >= 0 || strings.Contains(l, ".[") {
			l = ansiEscape.ReplaceAllString(clipBytes(l, maxJSONLine), "")
		}
		if f := flattenJSON(l); f != l {
			out[i] = f
		} else {
			out[i] = rubyUncaught(flattenLogfmt(l))
		}
	}
	return out
}
