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
	"path"
	"regexp"
	"strings"

	"github.com/kubage/kubage/internal/tools"
)

// Migration tools (Flyway, Liquibase, golang-migrate, Alembic, Rails) refuse to run when
// what they find differs from what the database recorded: an applied migration whose
// checksum changed (the file was edited after it ran), one applied but no longer shipped,
// a database left dirty by a failed one. They name the version. The migrations come from a
// ConfigMap mounted into the container (its key for that version is the culprit) or from
// the image (then the workload is).

// migrationRefs are how the tools name the migration in question; the first group is a
// version, a revision or a changelog file.
var migrationRefs = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\bmigration not (?:applied to database|resolved locally)\s*:\s*v?([0-9][0-9._]{0,40})`),
	regexp.MustCompile(`(?i)\bmigrations?\b.{0,60}?\bversion\s*[:=]?\s*["'\x60]?v?([0-9][0-9._]{0,40})`),
	regexp.MustCompile(`(?i)\bdirty database version\s+(\d{1,20})`),
	regexp.MustCompile(`(?i)\bno migration found for version\s*:?\s*(\d{1,20})`),
	regexp.MustCompile(`(?i)\b(?:can't|cannot|could not) locate revision identified by\s*['"]?([0-9a-f]{4,40})`),
	regexp.MustCompile(`(?i)\bversion number\s+(\d{1,20})`),
	regexp.MustCompile(`(?i)([\w./-]{1,200}\.(?:xml|ya?ml|json|sql))::[^:\s]{1,100}::`),
}

// migrationKey matches a migration file's name and captures its version: V3__x.sql,
// 000003_x.up.sql, 20240101120000_x.rb, 003-x.yaml, ae1027a6acf_x.py.
var migrationKey = regexp.MustCompile(`^(?:[VvUu])?(\d+(?:[._]\d+)*|[0-9a-f]{6,40})(?:__|_|-)[\w.-]*\.(?:sql|py|rb|xml|ya?ml|json|js|ts|go|cql)$`)

// addMigration records the first migration the line names.
func (c *Clue) addMigration(line string) {
	if c.Migration != "" {
		return
	}
	for _, re := range migrationRefs {
		if m := re.FindStringSubmatch(line); m != nil {
			c.Migration = strings.TrimRight(m[1], "._")
			c.MigrationLine = tools.Sanitize(strings.TrimSpace(line), maxClueLine, true)
			return
		}
	}
}

// normVersion writes a version the way every tool compares it: V1_2 and 1.2 and 001.02 alike.
func normVersion(v string) string {
	v = strings.TrimLeft(v, "Vv")
	parts := strings.FieldsFunc(v, func(r rune) bool { return r == '.' || r == '_' })
	for i, p := range parts {
		if t := strings.TrimLeft(p, "0"); t != "" || p == "" {
			parts[i] = t
		} else {
			parts[i] = "0"
		}
	}
	return strings.ToLower(strings.Join(parts, "."))
}

// migrationVerdict says in words what the tool's refusal means.
func migrationVerdict(line, version string) string {
	low := strings.ToLower(line)
	switch {
	case strings.Contains(low, "checksum") || strings.Contains(low, "check sum"):
		return fmt.Sprintf("migration %s was edited after it was applied (its checksum no longer matches the one the database recorded)", version)
	case strings.Contains(low, "dirty"):
		return fmt.Sprintf("migration %s failed half-way and left the database marked dirty", version)
	case strings.Contains(low, "not resolved locally") || strings.Contains(low, "locate revision") || strings.Contains(low, "no migration found"):
		return fmt.Sprintf("the database has migration %s applied, and the migrations shipped no longer contain it (removed or renamed)", version)
	default:
		return fmt.Sprintf("the tool refuses migration %s", version)
	}
}

// migrationRejected reports a migration tool's refusal with the ConfigMap key (or the
// image) that holds the version it names.
func (pc *podCheck) migrationRejected(ctx context.Context, d *depCheck) bool {
	v := d.clue.Migration
	if v == "" {
		return false
	}
	e := pc.e
	line := orDefault(d.clue.MigrationLine, d.clue.Line)
	verdict := migrationVerdict(d.clue.Line+" "+line, v)
	quoted := ""
	if !strings.Contains(line, d.clue.Line) && !strings.Contains(d.clue.Line, line) {
		quoted = " and " + quoteLine(line)
	}
	// Liquibase names a changelog file, the others a version.
	want, file := normVersion(v), strings.Trim(path.Ext(v), ".0123456789") != ""
	cm := pc.configMapReader(ctx)
	names, paths := d.mountedConfigMapsOf()
	for i, n := range names {
		c := cm(n)
		if c == nil {
			continue
		}
		var migrations []string
		hit := ""
		for _, k := range sortedKeys(c.Data) {
			m := migrationKey.FindStringSubmatch(k)
			if m == nil {
				continue
			}
			migrations = append(migrations, k)
			// golang-migrate ships an up and a down file per version: the up one ran.
			if (hit == "" || strings.Contains(hit, ".down.")) && (normVersion(m[1]) == want || file && k == path.Base(v)) {
				hit = k
			}
		}
		if len(migrations) == 0 {
			continue
		}
		ref := e.ref("ConfigMap", c.Name)
		facts := map[string]string{"version": v, "migrationKey": orDefault(hit, "?"), "key": hit, "sourceResource": kubectlResource(ref), "migrationLine": line}
		where := fmt.Sprintf("ConfigMap %s (mounted at %s) holds the migrations", c.Name, paths[i])
		if hit != "" {
			where += fmt.Sprintf("; version %s is its key %s", v, hit)
		} else {
			where += fmt.Sprintf(", and none of its keys (%s) is version %s", strings.Join(clipList(migrations, 6), ", "), v)
		}
		d.report(ctx, "migration-rejected", 0, ref, fmt.Sprintf("%s%s: %s. %s. Restore that migration as it was applied (or repair the schema history once the change is intended), then re-run it.",
			d.opening(), quoted, verdict, where), nil, []ObjectRef{ref}, facts)
		return true
	}
	wl := e.workloadOf(ctx, pc.pod)
	d.report(ctx, "migration-rejected", 70, wl, fmt.Sprintf("%s%s: %s. No mounted ConfigMap holds migrations, so they come with image %s of %s %s.",
		d.opening(), quoted, verdict, tools.Sanitize(d.spec.Image, 200, true), wl.Kind, wl.Name), nil, nil,
		map[string]string{"version": v, "migrationKey": "version " + v, "sourceResource": kubectlResource(wl), "migrationLine": line})
	return true
}
