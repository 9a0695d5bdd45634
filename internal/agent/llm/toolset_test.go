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

package llm

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kubage/kubage/internal/tools"
	"github.com/kubage/kubage/internal/tools/registry"
)

// The registry adapter exposes the session registry's tools with their categories and
// call ids, so evidence can point at the registry's call log.
func TestRegistryTools(t *testing.T) {
	cs, _ := cluster()
	c := tools.NewClient(cs, tools.Scope{Namespace: ns})
	c.SetClock(func() time.Time { return time.Now() })
	reg, err := registry.Open(context.Background(), registry.Options{Namespace: ns, Builtin: tools.BuiltinFor(c)})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	set := RegistryTools(reg)
	specs := set.List()
	if len(specs) < 5 || specs[0].Category != "kubernetes" || len(specs[0].InputSchema) == 0 {
		t.Fatalf("specs %+v", specs[:1])
	}
	out, err := set.Call(context.Background(), "k8s_get", json.RawMessage(`{"kind":"Deployment","name":"web"}`))
	if err != nil || out.Ref == "" || !strings.Contains(out.Text, "Deployment web") {
		t.Fatalf("%+v %v", out, err)
	}
	log, _ := reg.CallLog()
	if len(log) != 1 || log[0].ID != out.Ref {
		t.Fatalf("the call id must name the registry's log entry: %+v", log)
	}
}

func TestToolGateHidesMutatingTools(t *testing.T) {
	g := newToolGate(&toolList{fakes: []*fakeTool{deleteNamespace(), {spec: ToolSpec{Name: "read", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)}}}})
	if len(g.specs()) != 1 || g.specs()[0].Name != "read" {
		t.Fatalf("offered %+v", g.specs())
	}
	if err := g.check("delete_namespace", json.RawMessage(`{"name":"x"}`)); err == nil {
		t.Fatalf("a mutating tool must be refused")
	}
	if err := g.check("read", json.RawMessage(`{"n":"x"}`)); err == nil || !strings.Contains(err.Error(), "/n") {
		t.Fatalf("want a schema error at /n, got %v", err)
	}
	raw, err := g.argsFromStrings("read", map[string]string{"n": "7"})
	if err != nil || string(raw) != `{"n":7}` {
		t.Fatalf("%s %v", raw, err)
	}
}
