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
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/kubage/kubage/internal/tools"
)

// A database that refuses a logged-in client a privilege ("permission denied for schema
// public", "must be owner of table x", MySQL's "command denied to user") answers from its
// grants, and on Kubernetes those are usually written once by an init script the server's pod
// mounts from a ConfigMap (/docker-entrypoint-initdb.d): that script is where the client's
// user gets (or does not get) what it needs.

var privilegeDenied = regexp.MustCompile(`(?i)permission denied for (schema|table|relation|sequence|database|function|view)\s+"?([A-Za-z0-9_.]{1,100})"?|must be owner of (?:table|schema|database|relation)\s+"?([A-Za-z0-9_.]{1,100})|(?:command|privilege) denied to user|insufficient[_ ]privilege`)

// grantLine is a statement of an init script that gives, creates or owns.
var grantLine = regexp.MustCompile(`(?i)\b(grant|create\s+(?:role|user|database|schema)|alter\s+(?:database|schema)\b[^\n]*\bowner)\b`)

// privilegeGrants names the init script of the server the client is configured to call that
// grants the client's user its privileges.
func (pc *podCheck) privilegeGrants(ctx context.Context, d *depCheck) bool {
	m := privilegeDenied.FindStringSubmatch(d.clue.Line)
	if m == nil {
		return false
	}
	e := pc.e
	user := ""
	for _, s := range e.configSettings(ctx, pc.pod, d.spec, e.workloadOf(ctx, pc.pod)) {
		if !s.secret && isUserKey(s.name) && s.value != "" && !strings.ContainsAny(s.value, " /:") {
			user = s.value
			break
		}
	}
	cm := e.configMapsUpTo(ctx, maxSourceObjects)
	type hit struct {
		ref                  ObjectRef
		key, at, line, owner string
		score                int
	}
	var best *hit
	for _, svc := range pc.configuredServices(ctx, d) {
		p := pc.backendOf(ctx, svc)
		if p == nil {
			continue
		}
		owner := e.workloadOf(ctx, p)
		for _, c := range p.Spec.Containers {
			names, paths := mountedConfigMaps(c, p)
			for i, n := range names {
				m := cm(n)
				if m == nil {
					continue
				}
				for _, k := range sortedKeys(m.Data) {
					h := hit{ref: e.ref("ConfigMap", m.Name), key: k, at: paths[i], owner: owner.Kind + " " + owner.Name}
					var lines []string
					for _, l := range strings.Split(clipBytes(m.Data[k], maxSettingFileKB<<10), "\n") {
						if !grantLine.MatchString(l) {
							continue
						}
						mine := user != "" && hasToken(l, user)
						if mine && h.score < 3 {
							h.score, lines = 3, nil
						}
						if mine || h.score < 3 {
							h.score = max(h.score, 1)
							lines = append(lines, strings.TrimSpace(l))
						}
					}
					h.line = strings.Join(clipList(lines, 3), " ")
					if h.score > 0 && (best == nil || h.score > best.score) {
						best = &h
					}
				}
			}
		}
	}
	if best == nil {
		return false
	}
	what := strings.TrimSpace(strings.Join([]string{m[1], m[2]}, " "))
	if what == "" {
		what = "what it asks"
	}
	note := ""
	if strings.EqualFold(m[1], "schema") && strings.EqualFold(m[2], "public") {
		note = " Since PostgreSQL 15 only the database's owner may create in schema public, so GRANT ALL ON DATABASE is not enough: make the user the owner (CREATE DATABASE … OWNER …) or GRANT CREATE ON SCHEMA public to it."
	}
	who := "the client's user"
	if user != "" {
		who = "user " + tokenFact(user)
	}
	d.evIDs = append(d.evIDs, e.objEvidence(best.ref, fmt.Sprintf("ConfigMap %s key %s: %s", best.ref.Name, best.key, tools.Sanitize(best.line, 160, true))))
	d.report(ctx, "server-access-rule", 0, best.ref, fmt.Sprintf("%s: the database refuses %s %s (no privilege on %s). Its grants come from the init script in ConfigMap %s key %s, mounted at %s by %s, whose statements for it are “%s”.%s Fix the grant there, and apply it to the running server too: an init script runs only on an empty data directory.",
		d.opening(), who, "the privilege", what, best.ref.Name, best.key, best.at, best.owner, tools.Sanitize(best.line, 160, true), note), nil, []ObjectRef{best.ref},
		map[string]string{"key": best.key, "sourceResource": kubectlResource(best.ref)})
	return true
}
