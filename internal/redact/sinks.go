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

package redact

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Sinks (ConfigMaps, status, Events, embedding requests, MCP output) are read by people
// and tools that need addresses and names, so they lose credentials only: e-mail and IP
// pseudonyms are for what goes to a model.

// Secrets returns s with every credential replaced, leaving e-mail addresses and IPs.
func (r *Redactor) Secrets(s string) string {
	if s == "" {
		return s
	}
	r.mu.RLock()
	for _, k := range r.known {
		if strings.Contains(s, k) {
			s = strings.ReplaceAll(s, k, Marker+KindSecret+"]")
		}
	}
	r.mu.RUnlock()
	n := 0
	for _, ru := range rules {
		switch ru.kind {
		case KindEmail, KindIPv4, KindIPv6:
			continue
		}
		s, n = r.apply(ru, s, n)
	}
	return s
}

// SecretsJSON redacts the credentials in every string of a JSON document; a value whose
// key names a secret ("password", "apiKey") is replaced whole. Invalid JSON is redacted
// as text.
func (r *Redactor) SecretsJSON(raw []byte) []byte {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return []byte(r.Secrets(string(raw)))
	}
	out, err := json.Marshal(r.secretsValue("", v))
	if err != nil {
		return []byte(r.Secrets(string(raw)))
	}
	return out
}

func (r *Redactor) secretsValue(key string, v any) any {
	switch t := v.(type) {
	case string:
		if key != "" {
			// Seen with its key, so the key=value rules apply ("password": "hunter22").
			prefix := key + ": "
			if out := r.Secrets(prefix + t); strings.HasPrefix(out, prefix) {
				return out[len(prefix):]
			}
		}
		return r.Secrets(t)
	case map[string]any:
		for k, x := range t {
			t[k] = r.secretsValue(k, x)
		}
		return t
	case []any:
		for i, x := range t {
			t[i] = r.secretsValue(key, x)
		}
		return t
	}
	return v
}

// RedactJSONInto redacts the credentials in v's JSON form and decodes the result back
// into v (a pointer), so typed values can be cleaned before they are stored.
func (r *Redactor) RedactJSONInto(v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(r.SecretsJSON(raw), v)
}
