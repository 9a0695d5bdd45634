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
	// memory, when set, states the container's memory limit and request in the summary.
	memory bool
	// claimSays is what a blamed claim's volume does wrong (blameProviderClaim).
	claimSays string
}

// settingSpec asks for a setting: key is a regexp on its normalized name (lower case, "-" and
// "." as "_", a flag's dashes kept), value one on its value (any when empty).
type settingSpec struct {
	key, value string
	// absent, when set, makes the setting's absence the finding: it is what the software does
	// by default ("one process per CPU of the node").
	absent string
	// lacks is a regexp the value must not match: a connection URL without the option the
	// server needs ("authsource=").
	lacks string
	// want says what the value must be, for a setting whose value cannot be read (a Secret
	// key): the key is named with it ("must start with postgresql://").
	want string
	// name is the setting as a reader writes it ("spring.datasource.url"), when the key
	// pattern does not show it plainly.
	name string
	// overReplicas marks a count of copies the server keeps (a replication factor): it is
	// the fault only above the replicas of the server's workload; an absent one's default is
	// the first number of absent.
	overReplicas bool
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
	// runs is a regexp on the lower-cased image and command line of the pod whose absent
	// setting is blamed ("nginx"): a default is the software's, not any server's.
	runs string
	// source is where the error's text and mechanism come from (documentation, issue).
	source string
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
		action:  "Grow or free {sourceResource}, then the block lifts (or clear index.blocks.read_only_allow_delete)", claimSays: "that volume is past the watermark"},
	{rule: "server-volume-unwritable", category: "ServerVolumeUnwritable", confidence: 80, blame: blameProviderClaim,
		title:   "a server refuses writes because it cannot persist to its data volume: the volume is full, or the server's user cannot write it",
		signals: "Redis 'MISCONF ... not able to persist on disk' in a client's or the server's log; the claim the server's pods store data on, its size, and the server's persistence settings",
		action:  "Grow or free {sourceResource}, or make it writable by the server's user (fsGroup)", claimSays: "full, or not writable by its user (runAsUser without fsGroup)"},
	{rule: "topic-not-created", category: "TopicNotCreated", confidence: 83, blame: blameSetting,
		title:   "the client uses a topic that does not exist, and the broker does not create topics on first use",
		signals: "'UNKNOWN_TOPIC_OR_PARTITION' / 'This server does not host this topic-partition' in the client's log; auto.create.topics.enable=false in the settings of the broker behind the Service the client calls; the client's topic setting",
		action:  "Create the topic the client names, or set auto.create.topics.enable=true in {sourceResource}"},
	{rule: "server-limit-reached", category: "ServerLimitReached", confidence: 82, blame: blameSetting,
		title:   "a server refuses work past a limit its own configuration sets, or its default when none is set (memory, message or body size, ingestion rate, parts, storage quota)",
		signals: "the server's own limit error in the client's or the server's log (Redis 'OOM command not allowed', Kafka RecordTooLargeException, nginx 'client intended to send too large body', Loki 'Ingestion rate limit exceeded', etcd 'mvcc: database space exceeded'); the limit's setting in the server's env, arguments or configuration files, or its absence",
		action:  "Raise {key} in {sourceResource}, or send the server less"},
	{rule: "client-connection-setting", category: "ClientConnectionSetting", confidence: 84, blame: blameSetting,
		title:   "the client's connection settings lack what the server or its driver requires (an auth database, a URL scheme, a TLS mode, a key-retrieval option, a cluster mode, a mechanism)",
		signals: "the driver's own error ('Public Key Retrieval is not allowed', \"Can't load plugin: sqlalchemy.dialects:postgres\", MongoDB 'Authentication failed', 'server does not support SSL', 'MOVED') in the client's log; the connection URL or option in its env, ConfigMaps, mounted files or arguments, or the Secret key it comes from",
		action:  "Fix {key} in {sourceResource}"},
	{rule: "server-access-rule", category: "ServerAccessRule", confidence: 84, blame: blameSetting,
		title:   "the server's own access rules refuse the client before any work: its address, host name or user is not admitted",
		signals: "'no pg_hba.conf entry for host', \"Host 'x' is not allowed to connect\", 'DENIED Redis is running in protected mode', RabbitMQ's guest user 'can only connect via localhost', Django DisallowedHost; the access setting in the server's configuration (pg_hba.conf lines, protected-mode, ALLOWED_HOSTS) or the client's user",
		action:  "Admit the client in {key} of {sourceResource}"},
	{rule: "runtime-memory-setting", category: "RuntimeMemorySetting", confidence: 82, blame: blameSetting, memory: true,
		title:   "a language runtime's own memory cap (JVM heap, Metaspace, V8 old space) is too small for the work, whatever the container's memory limit",
		signals: "'java.lang.OutOfMemoryError: Java heap space', 'OutOfMemoryError: Metaspace', 'JavaScript heap out of memory' in the container's log; -Xmx, MaxRAMPercentage, MaxMetaspaceSize, --max-old-space-size in its env, ConfigMaps or arguments, against the container's memory limit",
		action:  "Size {key} in {sourceResource} to the work, within the container's memory limit"},
	{rule: "request-timeout-setting", category: "RequestTimeoutSetting", confidence: 80, blame: blameSetting,
		title:   "a timeout setting (or its default) cuts off work that takes longer: a proxy's read timeout, a worker timeout, a statement timeout, a consumer's poll interval",
		signals: "'upstream timed out ... while reading response header', gunicorn 'WORKER TIMEOUT', 'canceling statement due to statement timeout', Kafka CommitFailedException (max.poll.interval.ms); the timeout in the env, arguments or configuration files, or its absence",
		action:  "Raise {key} in {sourceResource}, or make the work shorter"},
	{rule: "data-directory-setting", category: "DataDirectorySetting", confidence: 82, blame: blameSetting,
		title:   "a database refuses to initialize its data directory because that directory is a volume's mount point, which is not empty (lost+found)",
		signals: "initdb 'directory ... exists but is not empty' (lost+found, mount point), mysqld '--initialize specified but the data directory has files in it'; the data directory setting (PGDATA, --datadir) against the container's volume mounts",
		action:  "Point {key} in {sourceResource} at a subdirectory of the mount (or mount the volume with subPath)"},
	{rule: "process-os-limit", category: "ProcessOSLimit", confidence: 80, blame: blameSetting,
		title:   "the process needs more of an operating-system resource than its container or node gives it (vm.max_map_count, /dev/shm)",
		signals: "Elasticsearch 'max virtual memory areas vm.max_map_count [65530] is too low', PostgreSQL 'could not resize shared memory segment'; the node's kernel setting, the pod's /dev/shm volume",
		action:  "Give {sourceResource} what it needs (a sysctl init container, an emptyDir with medium Memory at /dev/shm)"},
	{rule: "worker-pool-by-cpus", category: "WorkerPoolByCPUs", confidence: 83, blame: blameSetting,
		title:   "a worker pool sized by the node's CPU count (not the container's limits) runs more processes than the memory limit holds",
		signals: "OOMKilled container whose command is a pre-forking server (celery worker, gunicorn, uwsgi, pm2) without a pool size, or with one derived from the CPU count; its memory limit and the node's CPUs",
		action:  "Set the pool size explicitly ({key}) in {sourceResource}, sized to the memory limit"},
}

// numericValue is a whole number (a pool size someone set).
const numericValue = `^\d{1,5}$`

// knownErrors is the catalogue, by domain (knownerrors_*.go); the first entry whose
// signature a line carries wins, so a more specific signature goes in an earlier domain.
var knownErrors = concatKnown(sqlErrors, keyValueErrors, messagingErrors, webErrors, runtimeErrors, observabilityErrors, moreKnownErrors)

func concatKnown(lists ...[]knownError) []knownError {
	var out []knownError
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// Compiled forms, built once from the tables above.
var (
	knownSigns   = map[*knownError][]*regexp.Regexp{}
	knownProgram = map[*knownError]*regexp.Regexp{}
	knownRuns    = map[*knownError]*regexp.Regexp{}
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
		if k.runs != "" {
			knownRuns[k] = compile(k.runs)
		}
		for _, s := range append(append(append([]settingSpec(nil), k.consumer...), k.provider...), k.unless...) {
			for _, p := range []string{s.key, s.value, s.lacks} {
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
	if s.value == "" {
		return true
	}
	return !c.secret && specKey[s.value].MatchString(c.value) && (s.lacks == "" || !specKey[s.lacks].MatchString(c.value))
}
