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
	"regexp"
	"strings"
)

// The catalogue of well-known errors: what SREs learn once and recognise forever, across
// software. Each entry is data — the error's signature in the software's own words (from its
// documentation and issue trackers), the settings to look for on the consumer and on the
// provider, and the mechanism in one sentence — read by one general mechanism
// (analyze_knownerrors.go) that finds those settings in the cluster (env, ConfigMap keys,
// mounted configuration files, arguments, replica counts, claims, limits) and names the
// object holding them. Entries group into classes; a class is a rule of the catalogue and
// says which object is to blame. RULES.md ("Extending the catalogue of well-known errors")
// says how to add one.

// blameKind is how a class picks the object a user edits.
type blameKind int

const (
	// blameSetting: the object holding the decisive setting (provider's first, then the
	// consumer's); a default that is the fault (an absent setting) blames the consumer's workload.
	blameSetting blameKind = iota
	// blameWriters: the consumer's workload, when several processes write what one may
	// (replicas above 1, or a claim shared read-write).
	blameWriters
	// blameProviderClaim: the claim the provider (or the pod itself) stores its data on.
	blameProviderClaim
	// blameAddress: the object holding the address that points the consumer at a read-only replica.
	blameAddress
)

// knownClass is a class of well-known errors and the rule it reports.
type knownClass struct {
	rule, category, title, signals, action string
	confidence                             int
	blame                                  blameKind
}

// settingSpec asks for a setting: key is a regexp on its normalized name (lower case, "-" and
// "." as "_", a flag's dashes kept), value one on its value (any when empty).
type settingSpec struct {
	key, value string
	// absent, when set, makes the setting's absence the finding: it is what the software does
	// by default ("one process per CPU of the node").
	absent string
}

// knownError is one entry: one software's error of a class.
type knownError struct {
	class    string // rule of the class
	software string
	// signs are regexps on a lower-cased line of the text; one match marks the error.
	signs []string
	// reasons are container termination reasons that mark it instead of text ("OOMKilled").
	reasons []string
	// program is a regexp on the lower-cased command line the container must run ("" any).
	program   string
	mechanism string
	// consumer and provider are the settings to look for; unless rules the entry out.
	consumer, provider, unless []settingSpec
	fix                        string
}

var knownClasses = []knownClass{
	{rule: "single-writer-store-shared", category: "SingleWriterStoreShared", confidence: 84, blame: blameWriters,
		title:   "an embedded single-writer database (SQLite) is written by several processes at once: replicas above 1 or a claim shared read-write",
		signals: "'database is locked' (SQLITE_BUSY) in the log of a workload whose replicas are above 1 or whose pods share a ReadWriteMany claim; its database type setting",
		action:  "Run one replica of {sourceResource}, or move it to a client-server database (type = mysql/postgres)"},
	{rule: "pooler-transaction-mode", category: "PoolerTransactionMode", confidence: 85, blame: blameSetting,
		title:   "a connection pooler in transaction mode hands each transaction another server connection, so session state (prepared statements) is lost or collides",
		signals: "'prepared statement \"S_1\" already exists / does not exist' in the client's log; pool_mode = transaction in the pooler's configuration behind the Service the client calls",
		action:  "Set pool_mode = session in {sourceResource}, or turn server-side prepared statements off in the client (prepareThreshold=0, statement_cache_size=0)"},
	{rule: "write-to-read-replica", category: "WriteToReadReplica", confidence: 84, blame: blameAddress,
		title:   "the application writes to a read-only replica: its connection setting names the replica, not the primary",
		signals: "'cannot execute X in a read-only transaction', '--read-only option', 'READONLY You can't write against a read only replica', 'not primary' in the client's error line; the address setting (env, ConfigMap, Secret key) and the Service it names, whose name, labels or settings say replica",
		action:  "Point {key} in {sourceResource} at the primary"},
	{rule: "disk-watermark-read-only", category: "DiskWatermarkReadOnly", confidence: 82, blame: blameProviderClaim,
		title:   "the data volume of a search server passed its flood-stage disk watermark, so the server made its indices read-only",
		signals: "'flood-stage watermark', 'read-only-allow-delete', 'index read-only / allow delete' in a client's or the server's log; the claims the server's pods store data on, its watermark setting",
		action:  "Grow or free {sourceResource}, then the block lifts (or clear index.blocks.read_only_allow_delete)"},
	{rule: "topic-not-created", category: "TopicNotCreated", confidence: 83, blame: blameSetting,
		title:   "the client uses a topic that does not exist, and the broker does not create topics on first use",
		signals: "'UNKNOWN_TOPIC_OR_PARTITION' / 'This server does not host this topic-partition' in the client's log; auto.create.topics.enable=false in the settings of the broker behind the Service the client calls; the client's topic setting",
		action:  "Create the topic the client names, or set auto.create.topics.enable=true in {sourceResource}"},
	{rule: "worker-pool-by-cpus", category: "WorkerPoolByCPUs", confidence: 83, blame: blameSetting,
		title:   "a worker pool sized by the node's CPU count (not the container's limits) runs more processes than the memory limit holds",
		signals: "OOMKilled container whose command is a pre-forking server (celery worker, gunicorn, uwsgi, pm2) without a pool size, or with one derived from the CPU count; its memory limit and the node's CPUs",
		action:  "Set the pool size explicitly ({key}) in {sourceResource}, sized to the memory limit"},
}

// numericValue is a whole number (a pool size someone set).
const numericValue = `^\d{1,5}$`

var knownErrors = []knownError{
	{class: "single-writer-store-shared", software: "SQLite",
		signs:     []string{`database is locked`, `database table is locked`, `sqlite_busy`},
		mechanism: "SQLite lets one process write its database file at a time, so several processes on one file lock each other out",
		consumer:  []settingSpec{{key: `(^|_)(type|engine|driver|dialect|db_type|database_type|database_url|db_url)$`, value: `sqlite`}},
		fix:       "run a single replica, or use a client-server database"},
	{class: "pooler-transaction-mode", software: "PgBouncer",
		signs: []string{`prepared statement "?[^" ]{1,64}"? (already exists|does not exist)`, `prepared statement name is already in use`,
			`invalidsqlstatementnameerror`, `duplicatepreparedstatementerror`},
		mechanism: "in transaction pooling (pool_mode = transaction) each transaction may run on another server connection, but a prepared statement lives on the connection that prepared it",
		provider:  []settingSpec{{key: `(^|_)pool_mode$`, value: `transaction|statement`}},
		consumer:  []settingSpec{{key: `preparethreshold|statement_cache_size|prepared_statements`}},
		fix:       "use pool_mode = session, or disable server-side prepared statements in the client"},
	{class: "write-to-read-replica", software: "PostgreSQL",
		signs:     []string{`cannot execute [a-z_ ()]{1,40} in a read-only transaction`, `read_only_sql_transaction`, `readonlysqltransaction`},
		mechanism: "a hot standby (read replica) runs every transaction read-only, so any write sent to it fails",
		provider:  []settingSpec{{key: `default_transaction_read_only$`, value: `on|true|1`}, {key: `(^|_)(replication_mode|role)$`, value: `slave|replica|standby|secondary`}, {key: `(^|_)primary_conninfo$`}},
		fix:       "point the application at the primary"},
	{class: "write-to-read-replica", software: "MySQL",
		signs:     []string{`running with the --(super-)?read-only option`, `er_option_prevents_statement`},
		mechanism: "a replica runs with read_only, so statements that write are refused",
		provider:  []settingSpec{{key: `(^|_)(super_)?read_only$`, value: `on|true|1`}, {key: `(^|_)(replication_mode|role)$`, value: `slave|replica|secondary`}},
		fix:       "point the application at the primary"},
	{class: "write-to-read-replica", software: "Redis",
		signs:     []string{`you can't write against a read only (replica|slave)`},
		mechanism: "a Redis replica is read-only (replica-read-only yes), so every write command is refused",
		provider:  []settingSpec{{key: `^(replicaof|slaveof)$`}, {key: `(^|_)(replication_mode|role)$`, value: `slave|replica`}},
		fix:       "point the application at the master (or at Sentinel)"},
	{class: "write-to-read-replica", software: "MongoDB",
		signs:     []string{`notwritableprimary`, `not primary and secondaryok=false`, `not master and slaveok=false`, `\bnot primary\b`},
		mechanism: "only the primary of a replica set accepts writes; a client pinned to a secondary (directConnection) is refused",
		fix:       "connect with the replica set's seed list and replicaSet option, not a single secondary"},
	{class: "disk-watermark-read-only", software: "Elasticsearch",
		signs:     []string{`flood[- ]stage (disk )?watermark`, `read-only-allow-delete`, `index read-only / allow delete`, `read_only_allow_delete`},
		mechanism: "past the flood-stage disk watermark (95% of the disk by default) it puts a read-only-allow-delete block on every index with a shard on that node, and writes fail until usage drops",
		provider:  []settingSpec{{key: `cluster_routing_allocation_disk_watermark_flood_stage$`, absent: "95% by default"}},
		fix:       "grow the data volume or delete old indices"},
	{class: "topic-not-created", software: "Kafka",
		signs:     []string{`unknown_topic_or_part`, `unknowntopicorpartitionexception`, `unknown topic or partition`, `this server does not host this topic-partition`},
		mechanism: "the broker answers UNKNOWN_TOPIC_OR_PARTITION for a topic nobody created, and with auto.create.topics.enable=false it never creates one on first use",
		provider:  []settingSpec{{key: `(^|_)auto_create_topics_enable$`, value: `false`}},
		consumer:  []settingSpec{{key: `(^|_)topics?(_name)?$`}},
		fix:       "create the topic, or let the broker create topics on first use"},
	{class: "worker-pool-by-cpus", software: "Celery",
		reasons: []string{"OOMKilled"}, program: `\bcelery\b.*\bworker\b`,
		mechanism: "the celery worker starts one prefork child process per CPU it sees when --concurrency is not set, and a container sees all the node's CPUs",
		consumer:  []settingSpec{{key: `^(-c|--concurrency|celery_worker_concurrency|celeryd_concurrency|worker_concurrency)$`, value: numericValue, absent: "one process per CPU of the node"}},
		unless:    []settingSpec{{key: `^(-p|--pool|celery_worker_pool|worker_pool)$`, value: `solo|threads|gevent|eventlet`}},
		fix:       "set --concurrency"},
	{class: "worker-pool-by-cpus", software: "Gunicorn",
		reasons: []string{"OOMKilled"}, program: `\bgunicorn\b`,
		mechanism: "gunicorn forks as many workers as its setting says, and a count derived from the CPU count (cpu_count() * 2 + 1, nproc) follows the node's CPUs, not the container's limits",
		consumer:  []settingSpec{{key: `^(-w|--workers|workers|web_concurrency|gunicorn_workers)$`, value: `cpu_count|nproc|processor`}},
		fix:       "set workers to a fixed number"},
	{class: "worker-pool-by-cpus", software: "uWSGI",
		reasons: []string{"OOMKilled"}, program: `\buwsgi\b`,
		mechanism: "uWSGI's %k is the number of CPU cores of the node, so processes = %k forks one worker per node CPU",
		consumer:  []settingSpec{{key: `^(-p|--processes|--workers|processes|workers)$`, value: `%k`}},
		fix:       "set processes to a fixed number"},
	{class: "worker-pool-by-cpus", software: "PM2",
		reasons: []string{"OOMKilled"}, program: `\bpm2(-runtime|-docker)?\b`,
		mechanism: "pm2 in cluster mode with instances max (or 0) starts one Node.js process per CPU of the node",
		consumer:  []settingSpec{{key: `^(-i|--instances|instances|pm2_instances)$`, value: `^(max|0|-1)$`}},
		fix:       "set instances to a fixed number"},
}

// Compiled forms, built once from the tables above.
var (
	knownSigns   = map[*knownError][]*regexp.Regexp{}
	knownProgram = map[*knownError]*regexp.Regexp{}
	specKey      = map[string]*regexp.Regexp{}
)

func init() {
	for _, c := range knownClasses {
		rule(Rule{ID: c.rule, Category: c.category, Confidence: c.confidence, Title: c.title, Signals: c.signals,
			Actions:    []ActionTemplate{{Description: c.action, Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskMedium}},
			Validation: []string{verifyPods}})
	}
	compile := func(p string) *regexp.Regexp { return regexp.MustCompile(`(?i)` + p) }
	for i := range knownErrors {
		k := &knownErrors[i]
		for _, s := range k.signs {
			knownSigns[k] = append(knownSigns[k], compile(s))
		}
		if k.program != "" {
			knownProgram[k] = compile(k.program)
		}
		for _, s := range append(append(append([]settingSpec(nil), k.consumer...), k.provider...), k.unless...) {
			for _, p := range []string{s.key, s.value} {
				if p != "" && specKey[p] == nil {
					specKey[p] = compile(p)
				}
			}
		}
	}
}

// classOf is the class an entry belongs to.
func classOf(k *knownError) *knownClass {
	for i := range knownClasses {
		if knownClasses[i].rule == k.class {
			return &knownClasses[i]
		}
	}
	return nil
}

// knownIn finds the first line of lines that carries a well-known error's signature: the
// entry's index (-1 for none), the part of the line around the signature (at most
// maxClueLine bytes, not yet sanitized) and how many lines carry the same entry's signature.
func knownIn(lines []string) (int, string, int) {
	count, first, idx := 0, "", -1
	if len(lines) > maxClueLines {
		lines = lines[len(lines)-maxClueLines:]
	}
	for _, l := range lines {
		l = clipBytes(l, maxClueLineLen)
		low := strings.ToLower(l)
		for i := range knownErrors {
			if idx >= 0 && i != idx {
				continue
			}
			for _, re := range knownSigns[&knownErrors[i]] {
				loc := re.FindStringIndex(low)
				if loc == nil {
					continue
				}
				if idx < 0 {
					idx, first = i, signWindow(l, loc[0], loc[1])
				}
				count++
				break
			}
		}
	}
	return idx, first, count
}

// signWindow is the part of line around the signature at [from, to), at most maxClueLine bytes.
func signWindow(line string, from, to int) string {
	if len(line) <= maxClueLine {
		return line
	}
	start := max(0, from-(maxClueLine-(to-from))/2)
	end := min(len(line), start+maxClueLine)
	return strings.TrimSpace(line[start:end])
}

// matches reports whether a setting answers spec s.
func (s settingSpec) matches(c configSetting) bool {
	// A long flag ("--replicaof") answers the setting's file name too; "-c" stays a flag.
	n := settingName(c.name)
	if !specKey[s.key].MatchString(n) && !(strings.HasPrefix(n, "--") && specKey[s.key].MatchString(n[2:])) {
		return false
	}
	return s.value == "" || (!c.secret && specKey[s.value].MatchString(c.value))
}
