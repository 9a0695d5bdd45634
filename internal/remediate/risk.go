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

package remediate

import (
	"encoding/json"
	"errors"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// Risk is the least blast radius an action's structure implies. A brain may claim more,
// never less: the model's word never makes an action Low.
type Risk int

const (
	Low Risk = iota
	Medium
	High
)

// String is the API's spelling of the risk.
func (r Risk) String() string {
	switch r {
	case Low:
		return "Low"
	case Medium:
		return "Medium"
	default:
		return "High"
	}
}

// ParseRisk reads the API's spelling; anything else is High, so nothing unknown runs.
func ParseRisk(s string) Risk {
	switch s {
	case "Low":
		return Low
	case "Medium":
		return Medium
	default:
		return High
	}
}

// Max is the greater of two risks.
func Max(a, b Risk) Risk {
	if a > b {
		return a
	}
	return b
}

// sensitiveFields change what a workload runs, as whom, or what it can reach on its node:
// a patch that touches one of them is High, whoever proposed it.
var sensitiveFields = map[string]bool{
	"image": true, "command": true, "args": true, "serviceAccountName": true, "serviceAccount": true,
	"securityContext": true, "volumes": true, "volumeMounts": true, "hostPath": true, "hostNetwork": true,
	"hostPID": true, "hostIPC": true, "hostUsers": true, "privileged": true, "capabilities": true,
	"allowPrivilegeEscalation": true, "runAsUser": true, "runAsGroup": true, "runAsNonRoot": true,
	"automountServiceAccountToken": true, "initContainers": true, "ephemeralContainers": true,
	"nodeName": true, "procMount": true, "seccompProfile": true, "appArmorProfile": true,
	"imagePullSecrets": true, "envFrom": true, "lifecycle": true, "workingDir": true,
}

// benignFields only pause, resume, time, size or annotate what already runs.
var benignFields = map[string]bool{
	"replicas": true, "suspend": true, "paused": true, "schedule": true, "startingDeadlineSeconds": true,
	"activeDeadlineSeconds": true, "backoffLimit": true, "concurrencyPolicy": true,
	"successfulJobsHistoryLimit": true, "failedJobsHistoryLimit": true, "annotations": true,
	"progressDeadlineSeconds": true, "minReadySeconds": true, "revisionHistoryLimit": true,
}

// transparentFields lead to the fields that matter; they carry no risk of their own.
var transparentFields = map[string]bool{
	"spec": true, "template": true, "metadata": true, "containers": true, "jobTemplate": true, "name": true,
}

// PatchRisk classifies a patch document (JSON or YAML; a merge or strategic-merge object,
// or a JSON patch list) by the fields it touches, and names the sensitive ones. A document
// that cannot be read is Medium: nobody can say what it changes.
func PatchRisk(patch string) (Risk, []string) {
	var doc any
	// JSON first: the API server reads JSON that YAML refuses (control characters).
	if err := json.Unmarshal([]byte(patch), &doc); err != nil {
		if err := yaml.Unmarshal([]byte(patch), &doc); err != nil {
			return Medium, nil
		}
	}
	c := &classifier{seen: map[string]bool{}}
	switch d := doc.(type) {
	case map[string]any:
		c.object(d)
	case []any:
		c.jsonPatch(d)
	default:
		c.raise(Medium)
	}
	names := make([]string, 0, len(c.seen))
	for n := range c.seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return c.risk, names
}

// maxDepth bounds the walk of hostile documents.
const maxDepth = 64

type classifier struct {
	risk  Risk
	seen  map[string]bool
	depth int
}

func (c *classifier) raise(r Risk) { c.risk = Max(c.risk, r) }

// key classifies one field name; it reports whether the walk should look inside.
func (c *classifier) key(k string) bool {
	switch {
	case sensitiveFields[k]:
		c.raise(High)
		c.seen[k] = true
		return false
	case benignFields[k]:
		return false
	case transparentFields[k]:
		return true
	case strings.HasPrefix(k, "$"):
		// Strategic-merge directives ($patch: replace, $retainKeys...) may drop anything.
		c.raise(Medium)
		return true
	default:
		c.raise(Medium)
		return true
	}
}

func (c *classifier) value(v any) {
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > maxDepth {
		c.raise(Medium)
		return
	}
	switch x := v.(type) {
	case map[string]any:
		c.object(x)
	case []any:
		for _, e := range x {
			c.value(e)
		}
	}
}

func (c *classifier) object(m map[string]any) {
	for k, v := range m {
		if c.key(k) {
			c.value(v)
		}
	}
}

// jsonPatch classifies RFC 6902 operations by every segment of their paths and by the
// values they add.
func (c *classifier) jsonPatch(ops []any) {
	if len(ops) == 0 {
		return
	}
	for _, o := range ops {
		op, ok := o.(map[string]any)
		if !ok {
			c.raise(Medium)
			continue
		}
		for _, field := range []string{"path", "from"} {
			p, _ := op[field].(string)
			if field == "path" && p == "" {
				c.raise(Medium)
			}
			look := true
			for _, seg := range strings.Split(strings.Trim(p, "/"), "/") {
				seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
				if seg == "" || isIndex(seg) {
					continue
				}
				if !c.key(seg) {
					look = false
					break
				}
			}
			if look && field == "path" {
				if v, ok := op["value"]; ok {
					c.value(v)
				}
			}
		}
		if kind, _ := op["op"].(string); kind == "remove" || kind == "move" {
			// Removing a field may drop a limit or a probe the workload relies on.
			c.raise(Medium)
		}
	}
}

func isIndex(s string) bool {
	if s == "-" {
		return true
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// readOnlyVerbs are kubectl commands that change nothing.
var readOnlyVerbs = map[string]bool{
	"get": true, "describe": true, "logs": true, "top": true, "explain": true, "events": true,
	"api-resources": true, "api-versions": true, "version": true, "cluster-info": true, "diff": true,
}

// highVerbs run code in the cluster, open a way into it, or evict a node's workloads.
var highVerbs = map[string]bool{
	"exec": true, "debug": true, "cp": true, "run": true, "attach": true, "port-forward": true,
	"proxy": true, "drain": true, "replace": true,
}

// highSetters are the `kubectl set` forms that change what or as whom a workload runs.
var highSetters = map[string]bool{
	"image": true, "serviceaccount": true, "sa": true, "subject": true, "volume": true, "volumes": true,
}

// CommandRisk classifies a command line by what it would do. The few commands the operator
// runs itself get the risk of their operation; read-only kubectl commands are Low; a
// kubectl patch is as risky as the fields it touches; anything else is at least Medium.
func CommandRisk(namespace, command string) Risk {
	if op, err := ParseCommand(namespace, command); err == nil {
		if op.Verb == Scale && op.Replicas == 0 {
			return Medium // stops every pod of the workload
		}
		return Low
	}
	words, err := splitWords(command)
	floor := Low
	if err != nil {
		// Shell syntax hides what runs; placeholders only leave blanks for a human.
		if !errors.Is(err, errPlaceholder) {
			floor = Medium
		}
		words = strings.Fields(command)
	}
	if len(words) == 0 || words[0] != "kubectl" {
		return Max(floor, Medium)
	}
	args, patches := kubectlArgs(words[1:])
	if len(args) == 0 {
		return Max(floor, Medium)
	}
	verb := args[0]
	sub := ""
	if len(args) > 1 {
		sub = args[1]
	}
	switch {
	case readOnlyVerbs[verb],
		verb == "auth" && sub == "can-i",
		verb == "rollout" && (sub == "status" || sub == "history"):
		return floor
	case highVerbs[verb], verb == "set" && highSetters[sub]:
		return High
	case verb == "create" && strings.Contains(sub, "binding"), verb == "create" && (sub == "role" || sub == "clusterrole" || sub == "token" || sub == "secret"):
		return High
	case verb == "patch":
		if len(patches) == 0 {
			return Max(floor, Medium) // --patch-file or a body a human fills in
		}
		r := floor
		for _, p := range patches {
			pr, _ := PatchRisk(p)
			r = Max(r, pr)
		}
		return r
	default:
		return Max(floor, Medium)
	}
}

// kubectlArgs returns the positional words of a kubectl command line and the bodies of
// its -p/--patch flags, skipping the values of the flags that take one.
func kubectlArgs(words []string) ([]string, []string) {
	var args, patches []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "-p" || w == "--patch":
			if i+1 < len(words) {
				i++
				patches = append(patches, words[i])
			}
		case strings.HasPrefix(w, "--patch="):
			patches = append(patches, strings.TrimPrefix(w, "--patch="))
		case w == "-n" || w == "--namespace" || w == "--type" || w == "--context" || w == "-l" || w == "--selector" || w == "-o" || w == "--output" || w == "-c" || w == "--container":
			i++
		case strings.HasPrefix(w, "-"):
		default:
			args = append(args, w)
		}
	}
	return args, patches
}

// Permission is what a user must be allowed to do to run an operation themselves.
type Permission struct {
	Verb, Group, Resource, Namespace, Name string
}

// String names the permission the way RBAC reads: verb resource.group "name" in namespace.
func (p Permission) String() string {
	res := p.Resource
	if p.Group != "" {
		res += "." + p.Group
	}
	out := p.Verb + " " + res
	if p.Name != "" {
		out += " " + strconvQuote(p.Name)
	}
	if p.Namespace != "" {
		out += " in namespace " + strconvQuote(p.Namespace)
	}
	return out
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// kindResources maps the kinds an Op touches to their group and resource.
var kindResources = map[string][2]string{
	"Deployment": {"apps", "deployments"}, "StatefulSet": {"apps", "statefulsets"},
	"DaemonSet": {"apps", "daemonsets"}, "Pod": {"", "pods"}, "ConfigMap": {"", "configmaps"},
}

// Permission is the right the operator exercises when it runs op: whoever approves op
// must hold it too, so an approval never does more than its author could.
func (o Op) Permission() Permission {
	gr := kindResources[o.Kind]
	verb := "patch"
	if o.Verb == DeletePod {
		verb = "delete"
	}
	return Permission{Verb: verb, Group: gr[0], Resource: gr[1], Namespace: o.Namespace, Name: o.Name}
}
