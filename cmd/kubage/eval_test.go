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

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kubage/kubage/internal/eval"
	"github.com/kubage/kubage/test/fakes/llmtest"
)

func TestRunEvalPrintsAReport(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetAuto(llmtest.DemoResponder(llmtest.DemoOptions{}))
	srv.RequireKey("sk-eval-key-123456")
	env := map[string]string{"MY_KEY": "sk-eval-key-123456"}
	o := evalOptions{baseURL: srv.BaseURL(), model: "demo", apiKeyEnv: "MY_KEY", timeout: 5 * time.Second, scenarioTimeout: time.Minute,
		maxOutputTokens: 512, contextTokens: 8192, responseFormat: "JSONSchema", minPassRate: 100}
	var out bytes.Buffer
	err := runEval(context.Background(), o, func(k string) string { return env[k] }, &out)
	// The demo only echoes the rule engine, so one built-in scenario fails: below 100%.
	if err == nil || !strings.Contains(err.Error(), "pass rate") {
		t.Fatalf("want a pass-rate error, got %v", err)
	}
	var rep eval.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if rep.Total == 0 || rep.Passed == 0 || rep.Model != "demo" || rep.PromptTokens == 0 {
		t.Fatalf("report %+v", rep)
	}
	o.minPassRate = 0
	o.baseURL = "not a url"
	if err := runEval(context.Background(), o, func(string) string { return "" }, &out); err == nil {
		t.Fatalf("a bad base URL must fail")
	}
}
