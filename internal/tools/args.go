package tools

import (
	"encoding/json"
	"strings"
)

// ArgValue converts one string argument (as plan tasks and model tool calls carry
// them) to the JSON value its schema type declares: json.Number for integer/number,
// bool for boolean, a JSON or comma-separated list for array, a JSON object for
// object. Anything that does not parse stays the original string, so schema
// validation reports it instead of this function guessing.
func ArgValue(schemaType, v string) any {
	s := strings.TrimSpace(v)
	switch schemaType {
	case "integer", "number":
		var n json.Number
		if json.Unmarshal([]byte(s), &n) == nil {
			return n
		}
	case "boolean":
		switch strings.ToLower(s) {
		case "true":
			return true
		case "false":
			return false
		}
	case "array":
		var a []any
		if json.Unmarshal([]byte(s), &a) == nil {
			return a
		}
		parts := []any{}
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				parts = append(parts, p)
			}
		}
		return parts
	case "object":
		var o map[string]any
		if json.Unmarshal([]byte(s), &o) == nil {
			return o
		}
	}
	return v
}
