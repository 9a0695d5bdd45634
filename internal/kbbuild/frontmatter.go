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

package kbbuild

import (
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// maxFrontMatterBytes bounds front matter; anything longer is treated as body text.
const maxFrontMatterBytes = 64 << 10

// splitFrontMatter separates a leading YAML ("---") or TOML ("+++") block from the body.
// It returns the raw block (without fences), its delimiter, and the body.
func splitFrontMatter(src string) (fm, delim, body string) {
	s := strings.TrimPrefix(src, "\ufeff")
	for _, d := range []string{"---", "+++"} {
		if !strings.HasPrefix(s, d+"\n") && !strings.HasPrefix(s, d+"\r\n") {
			continue
		}
		rest := s[strings.IndexByte(s, '\n')+1:]
		limit := min(len(rest), maxFrontMatterBytes)
		// The closing fence is a line holding only the delimiter.
		off := 0
		for off <= limit {
			nl := strings.IndexByte(rest[off:], '\n')
			line := rest[off:]
			if nl >= 0 {
				line = rest[off : off+nl]
			}
			if strings.TrimRight(line, " \t\r") == d {
				after := ""
				if nl >= 0 {
					after = rest[off+nl+1:]
				}
				return rest[:off], d, after
			}
			if nl < 0 {
				break
			}
			off += nl + 1
		}
	}
	return "", "", src
}

// decodeFrontMatter decodes front matter into a map; TOML is read line by line for
// plain `key = "value"` pairs, which is all the title/description lookup needs.
func decodeFrontMatter(fm, delim string) (map[string]any, error) {
	if strings.TrimSpace(fm) == "" {
		return nil, nil
	}
	if delim == "+++" {
		out := map[string]any{}
		for _, line := range strings.Split(fm, "\n") {
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				continue
			}
			out[strings.TrimSpace(k)] = unquote(strings.TrimSpace(v))
		}
		return out, nil
	}
	var out map[string]any
	if err := yaml.Unmarshal([]byte(fm), &out); err != nil {
		return nil, fmt.Errorf("malformed front matter: %w", err)
	}
	return out, nil
}

func stringField(m map[string]any, key string) string {
	if v, ok := m[key].(string); ok {
		return strings.Join(strings.Fields(v), " ")
	}
	return ""
}
