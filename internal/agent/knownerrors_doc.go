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

import "strings"

// knownErrorsHowTo is how to extend the catalogue of well-known errors (rendered into RULES.md).
const knownErrorsHowTo = `## Well-known errors of common servers and clients

Generated from the tables of ` + "`internal/agent/knownerrors.go`" + `. One mechanism
(` + "`analyze_knownerrors.go`" + `) reads them: a container whose log, termination message
or events carry an entry's signature (in any of the last 200 lines, even at info level when it
repeats), or that ended for an entry's reason (OOMKilled) while running the entry's program, has
the entry's settings looked up on itself (consumer) and on one backend of each Service it is
configured to call (provider): env values, ConfigMap keys it loads, lines of the configuration
files ConfigMaps mount (` + "`key = value`, `key: value`, `key value`" + `), and flags of its
command line, shell scripts included. Secret values are never read: a Secret key is named, not
its value. The entry's class then picks the object to blame and the summary states the
mechanism with the values and numbers found (replicas, claims and sizes, memory limit against
the node's CPUs). When the cluster does not show what the class needs, the entry stays silent
and the other rules decide.

### Adding an entry

1. Take the error's text from the software's documentation or issue tracker, never from a
   scenario of this repository. Write each signature as a regexp on the lower-cased line
   (` + "`signs`" + `), specific enough to name the software's mechanism (not "error", not
   "timeout"); bounded repetition only (lines are clipped to 1000 bytes before matching).
2. Pick its class (` + "`class`" + `): the rule it reports and how it blames. Add a class
   only for a new way of blaming; a class is a rule, so add its words to
   ` + "`test/vocabulary`" + ` and its id to ` + "`auditedElsewhere`" + ` in
   ` + "`test/ruleengine`" + `, then regenerate this file.
3. List the settings to look for: ` + "`consumer`" + ` (the failing container) and
   ` + "`provider`" + ` (the Services it calls), each a regexp on the normalized name (lower
   case, "-" and "." as "_", a flag's dashes kept: ` + "`pool_mode`" + ` reads pool_mode,
   POOL_MODE, PGBOUNCER_POOL_MODE and pool-mode) and on the value; ` + "`absent`" + ` makes a
   missing setting the finding (the default the software falls back to); ` + "`unless`" + `
   rules the entry out.
4. Write the mechanism in one sentence and the fix in a few words, and name the page the
   error's text and mechanism come from (` + "`source`" + `). A setting whose value must
   (not) hold an option takes ` + "`lacks`" + `; ` + "`want`" + ` says what the value must be, so a
   Secret key that holds it (never read) is named with that; ` + "`runs`" + ` keeps a default
   to the pods that run the software (image or command line). A volume's mount path is a
   setting too (` + "`/dev/shm`" + ` = ` + "`emptyDir medium=Memory`" + `). ` + "`overReplicas`" + ` holds a
   replication factor against the replicas of the server's workload; ` + "`name`" + ` is how a
   reader writes a setting whose key pattern does not show it. Several entries may share a
   signature: each is tried in turn until one finds its settings. Put the entry in the data
   file of its domain (` + "`knownerrors_sql.go`, `_kv`, `_msg`, `_web`, `_runtime`, `_obs`" + `).
5. Add a table test in ` + "`knownerrors_test.go`" + ` (or the domain's ` + "`knownerrors_*_test.go`" + `) on at least two differently spelt clusters
   (other names, label keys, where the setting is written) and one where the entry must stay
   silent.

| Class (rule) | Software | Signature or reason | Consumer settings | Provider settings | Source |
|---|---|---|---|---|---|
`

// KnownErrorsMarkdown renders the catalogue of well-known errors and how to extend it.
func KnownErrorsMarkdown() string {
	var b strings.Builder
	b.WriteString(knownErrorsHowTo)
	cell := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
	specs := func(l []settingSpec) string {
		var out []string
		for _, s := range l {
			x := "`" + s.key + "`"
			if s.value != "" {
				x += " = `" + s.value + "`"
			}
			if s.absent != "" {
				x += " (absent: " + s.absent + ")"
			}
			out = append(out, x)
		}
		return cell(strings.Join(out, "; "))
	}
	for _, k := range knownErrors {
		sign := make([]string, 0, len(k.signs)+len(k.reasons))
		for _, s := range k.signs {
			sign = append(sign, "`"+s+"`")
		}
		for _, r := range k.reasons {
			sign = append(sign, "reason "+r+" running `"+k.program+"`")
		}
		b.WriteString("| `" + k.class + "` | " + k.software + " | " + cell(strings.Join(sign, "; ")) + " | " + specs(k.consumer) + " | " + specs(k.provider) + " | " + cell(k.source) + " |\n")
	}
	return b.String()
}
