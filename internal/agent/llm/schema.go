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
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/kubage/kubage/internal/text"
	kmcp "github.com/kubage/kubage/internal/tools/mcp"
)

// Names of the structured outputs, sent as the json_schema name.
const (
	SchemaPlan       = "kubage_plan"
	SchemaVerdict    = "kubage_verdict"
	SchemaConclusion = "kubage_conclusion"
)

// outputSchema is one structured output: the full schema (validated on our side) and
// what is sent to the model.
type outputSchema struct {
	name string
	full map[string]any
	// compiled validates replies; additionalProperties is relaxed so that a model adding
	// a field does not cost a repair round.
	compiled *kmcp.Schema
}

// strictKeywords are the schema keywords every strict structured-output implementation
// accepts; bounds and patterns are enforced on our side instead.
var strictKeywords = map[string]bool{"type": true, "properties": true, "required": true, "additionalProperties": true,
	"enum": true, "items": true, "description": true}

func newOutputSchema(name string, full map[string]any) (*outputSchema, error) {
	lenient := rewrite(full, func(k string) bool { return k != "additionalProperties" })
	raw, err := json.Marshal(lenient)
	if err != nil {
		return nil, err
	}
	c, err := kmcp.CompileSchema(raw)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	return &outputSchema{name: name, full: full, compiled: c}, nil
}

// strict is the schema sent with response_format json_schema.
func (o *outputSchema) strict() json.RawMessage {
	raw, _ := json.Marshal(rewrite(o.full, func(k string) bool { return strictKeywords[k] }))
	return raw
}

// text is the schema as shown in a prompt (JSON mode and prompt mode).
func (o *outputSchema) text() string {
	raw, _ := json.Marshal(o.full)
	return string(raw)
}

// rewrite copies a schema keeping the keywords keep accepts; property names are kept.
func rewrite(s map[string]any, keep func(string) bool) map[string]any {
	out := map[string]any{}
	for k, v := range s {
		if !keep(k) {
			continue
		}
		switch k {
		case "properties":
			props := map[string]any{}
			for name, p := range v.(map[string]any) {
				props[name] = rewrite(p.(map[string]any), keep)
			}
			out[k] = props
		case "items":
			out[k] = rewrite(v.(map[string]any), keep)
		default:
			out[k] = v
		}
	}
	return out
}

// decode extracts the JSON object of a reply, checks it against the schema and decodes it.
func (o *outputSchema) decode(content string, out any) error {
	js, err := extractJSON(content)
	if err != nil {
		return err
	}
	if err := o.compiled.Validate(json.RawMessage(js)); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), kmcp.ErrInvalidArguments.Error()+": "))
	}
	// A repair round decodes into the same value: start from zero.
	reflect.ValueOf(out).Elem().SetZero()
	if err := json.Unmarshal([]byte(js), out); err != nil {
		return fmt.Errorf("reply does not decode: %v", err)
	}
	return nil
}

var fenceRE = regexp.MustCompile("(?s)```(?:json|JSON)?\\s*(.*?)```")

// extractJSON finds the JSON object in a reply: the whole reply, a fenced block, or the
// span from the first '{' to the last '}' (models like to add prose around it).
func extractJSON(content string) (string, error) {
	s := strings.TrimSpace(content)
	if s == "" {
		return "", errors.New("the reply is empty; a JSON object was expected")
	}
	if json.Valid([]byte(s)) && strings.HasPrefix(s, "{") {
		return s, nil
	}
	if m := fenceRE.FindStringSubmatch(s); m != nil && json.Valid([]byte(strings.TrimSpace(m[1]))) {
		return strings.TrimSpace(m[1]), nil
	}
	i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if i >= 0 && j > i && json.Valid([]byte(s[i:j+1])) {
		return s[i : j+1], nil
	}
	var v any
	err := json.Unmarshal([]byte(s), &v)
	if err == nil {
		return "", errors.New("the reply is JSON but not an object")
	}
	return "", fmt.Errorf("the reply is not valid JSON: %v", err)
}

func str(desc string, kv ...any) map[string]any {
	m := map[string]any{"type": "string", "description": desc}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func arr(items map[string]any, maxItems int, desc string) map[string]any {
	return map[string]any{"type": "array", "items": items, "maxItems": maxItems, "description": desc}
}

func object(props map[string]any) map[string]any {
	req := make([]string, 0, len(props))
	for k := range props {
		req = append(req, k)
	}
	sort.Strings(req)
	return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
}

var (
	upperCamelRE = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
	planIDRE     = regexp.MustCompile(`^[a-z][a-z0-9-]{0,19}$`)
)

// Task types the model may plan (Analyze belongs to the rule engine).
const (
	planInvestigate = "Investigate"
	planToolCall    = "ToolCall"
	planKnowledge   = "Knowledge"
)

func planSchema(maxTasks int) map[string]any {
	arg := object(map[string]any{
		"name":  str("argument name", "maxLength", 64),
		"value": str("argument value as a string", "maxLength", 500),
	})
	task := object(map[string]any{
		"id":          str("short id, lowercase, e.g. logs-web", "pattern", planIDRE.String()),
		"type":        str("Investigate: an open question for a sub-agent with tools; ToolCall: one tool call; Knowledge: a search of the runbooks", "enum", []any{planInvestigate, planToolCall, planKnowledge}),
		"description": str("what to find out (the question, or the knowledge query)", "minLength", 1, "maxLength", 300),
		"tool":        str("ToolCall only: the tool name; empty for other types", "maxLength", 128),
		"args":        arr(arg, 10, "ToolCall only: the tool arguments"),
		"dependsOn":   arr(str("id of an earlier task or a rule-engine task", "maxLength", 20), 8, "tasks that must finish first"),
	})
	return object(map[string]any{
		"reasoning": str("one or two sentences on why these tasks", "maxLength", 600),
		"tasks":     arr(task, maxTasks, "additional tasks; empty when the rule-engine tasks suffice"),
	})
}

func verdictSchema() map[string]any {
	return object(map[string]any{
		"decision":  str("pass: the evidence explains the problem; refine: more evidence is needed; fail: it cannot be found out", "enum", []any{"pass", "refine", "fail"}),
		"feedback":  str("why, in one or two sentences", "maxLength", 500),
		"nextSteps": arr(str("one concrete question to investigate next", "minLength", 1, "maxLength", 300), 3, "refine only: what to look at next"),
	})
}

func conclusionSchema() map[string]any {
	ref := object(map[string]any{
		"kind": str("Kubernetes kind, e.g. Deployment", "maxLength", 63),
		"name": str("object name", "maxLength", 253),
	})
	action := object(map[string]any{
		"description": str("what to do and why", "minLength", 1, "maxLength", 500),
		"command":     str("a kubectl command or patch draft; empty if none", "maxLength", 1000),
		"risk":        str("blast radius of the action", "enum", []any{"Low", "Medium", "High"}),
	})
	return object(map[string]any{
		"summary":            str("the root cause in one to three sentences", "minLength", 1, "maxLength", 1024),
		"category":           str("UpperCamelCase category, e.g. CrashLoop, ImagePull, Scheduling, Configuration, Storage, Network, Application, Unknown", "pattern", upperCamelRE.String(), "maxLength", 63),
		"confidence":         map[string]any{"type": "integer", "minimum": 0, "maximum": 100, "description": "confidence in percent"},
		"culprit":            ref,
		"affectedObjects":    arr(ref, 20, "objects that show the symptom"),
		"evidenceIds":        arr(str("an evidence id from the prompt", "maxLength", 128), 20, "evidence that supports the root cause"),
		"knowledgeCitations": arr(str("a knowledge citation from the prompt", "maxLength", 300), 10, "runbook or documentation sections used"),
		"chain":              arr(str("one step from symptom to cause, e.g. Pod/web-1", "maxLength", 200), 8, "path from the symptom to the cause"),
		"remediation": object(map[string]any{
			"actions":         arr(action, 10, "proposed actions; nothing is executed without approval"),
			"validationSteps": arr(str("a check that shows the fix worked", "maxLength", 300), 10, "how to verify"),
		}),
	})
}

// Decoded structured outputs.

type planOut struct {
	Reasoning string     `json:"reasoning"`
	Tasks     []planTask `json:"tasks"`
}

type planTask struct {
	ID          string    `json:"id"`
	Type        string    `json:"type"`
	Description string    `json:"description"`
	Tool        string    `json:"tool"`
	Args        []planArg `json:"args"`
	DependsOn   []string  `json:"dependsOn"`
}

type planArg struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type verdictOut struct {
	Decision  string   `json:"decision"`
	Feedback  string   `json:"feedback"`
	NextSteps []string `json:"nextSteps"`
}

type refOut struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

type actionOut struct {
	Description string `json:"description"`
	Command     string `json:"command"`
	Risk        string `json:"risk"`
}

type conclusionOut struct {
	Summary            string   `json:"summary"`
	Category           string   `json:"category"`
	Confidence         int      `json:"confidence"`
	Culprit            refOut   `json:"culprit"`
	AffectedObjects    []refOut `json:"affectedObjects"`
	EvidenceIDs        []string `json:"evidenceIds"`
	KnowledgeCitations []string `json:"knowledgeCitations"`
	Chain              []string `json:"chain"`
	Remediation        struct {
		Actions         []actionOut `json:"actions"`
		ValidationSteps []string    `json:"validationSteps"`
	} `json:"remediation"`
}

// noCauseCategories name a conclusion without a culprit.
var noCauseCategories = map[string]bool{"Unknown": true, "NoProblemFound": true, "Inconclusive": true}

// check is the semantic validation of a conclusion: references must exist.
func (c *conclusionOut) check(evidence map[string]bool, citations map[string]bool) error {
	var errs []string
	for _, id := range c.EvidenceIDs {
		if !evidence[id] {
			errs = append(errs, fmt.Sprintf("evidenceIds: %q is not an evidence id of the prompt", text.ClipMarked(id, 60)))
		}
	}
	for _, cit := range c.KnowledgeCitations {
		if !citations[cit] {
			errs = append(errs, fmt.Sprintf("knowledgeCitations: %q is not a citation of the prompt", text.ClipMarked(cit, 80)))
		}
	}
	if !noCauseCategories[c.Category] {
		if strings.TrimSpace(c.Culprit.Kind) == "" || strings.TrimSpace(c.Culprit.Name) == "" {
			errs = append(errs, "culprit: kind and name are required unless the category is Unknown")
		}
		if len(evidence) > 0 && len(c.EvidenceIDs) == 0 {
			errs = append(errs, "evidenceIds: cite at least one evidence id that supports the root cause")
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// check is the semantic validation of a verdict.
func (v *verdictOut) check(fallbackNext bool) error {
	if v.Decision == "refine" && len(v.NextSteps) == 0 && !fallbackNext {
		return errors.New("nextSteps: a refine decision needs at least one next step")
	}
	return nil
}
