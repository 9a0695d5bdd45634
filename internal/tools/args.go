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
