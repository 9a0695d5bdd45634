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

package tools_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/kubage/kubage/internal/tools"
)

func TestArgValue(t *testing.T) {
	for _, c := range []struct {
		typ, in string
		want    any
	}{
		{"integer", " 3 ", json.Number("3")},
		{"number", "2.5", json.Number("2.5")},
		{"integer", "many", "many"},
		{"boolean", "TRUE", true},
		{"boolean", "false", false},
		{"boolean", "yes", "yes"},
		{"array", `["a", 1]`, []any{"a", float64(1)}},
		{"array", "a, b,,c ", []any{"a", "b", "c"}},
		{"array", "", []any{}},
		{"object", `{"k":"v"}`, map[string]any{"k": "v"}},
		{"object", "k=v", "k=v"},
		{"string", " keep spaces ", " keep spaces "},
		{"", "7", "7"},
	} {
		if got := tools.ArgValue(c.typ, c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ArgValue(%q, %q) = %#v, want %#v", c.typ, c.in, got, c.want)
		}
	}
}
