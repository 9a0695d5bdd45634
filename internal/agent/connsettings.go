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
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// A client's connection to a dependency is configured by a handful of settings whose
// spelling varies with the language and the library (DATABASE_URL, PGHOST, REDIS_HOST and
// REDIS_PORT, spring.datasource.url, CELERY_BROKER_URL, KAFKA_BOOTSTRAP_SERVERS, a DSN, a
// --db-host flag). connectionSettings picks them out of what configSettings read, for the
// dependency an error names by host and port, so a summary can say which setting to edit.

// portWords are the words setting names and URL schemes use for the server that listens on
// a well-known port: "6379" is what REDIS_HOST configures even when the error names no host.
var portWords = map[string][]string{
	"5432": {"postgres", "postgresql", "pg", "psql", "database", "db", "sql"},
	"3306": {"mysql", "mariadb", "database", "db", "sql", "jdbc"},
	"1433": {"mssql", "sqlserver", "database", "db", "sql", "jdbc"}, "1521": {"oracle", "database", "db", "jdbc"},
	"26257": {"cockroach", "crdb", "database", "db"}, "6379": {"redis", "cache", "valkey", "rediss"},
	"26379": {"sentinel", "redis"}, "27017": {"mongo", "mongodb"}, "5672": {"amqp", "amqps", "rabbit", "rabbitmq", "broker", "celery", "mq"},
	"9092": {"kafka", "bootstrap", "broker", "brokers"}, "4222": {"nats"}, "11211": {"memcache", "memcached", "cache"},
	"9200": {"elastic", "elasticsearch", "opensearch", "es", "search"}, "2181": {"zookeeper", "zk"},
	"9042": {"cassandra", "cql", "scylla"}, "2379": {"etcd"}, "8200": {"vault"}, "7687": {"neo4j", "bolt"},
	"8123": {"clickhouse"}, "9000": {"clickhouse", "minio", "s3"}, "8086": {"influx", "influxdb"},
}

// connSuffixes end the names of settings that hold where a dependency is.
var connSuffixes = []string{"url", "uri", "urls", "host", "hostname", "hosts", "port", "dsn", "addr", "address", "addresses",
	"server", "servers", "broker", "brokers", "endpoint", "endpoints", "bootstrap_servers", "connection_string", "conn", "nodes", "seeds"}

// dataSchemes are URL schemes of datastores and brokers (http is every setting's scheme and
// says nothing about which dependency it configures).
var dataSchemes = []string{"postgres://", "postgresql://", "mysql://", "mariadb://", "jdbc:", "redis://", "rediss://", "amqp://", "amqps://",
	"mongodb://", "mongodb+srv://", "nats://", "kafka://", "memcached://", "sqlserver://", "clickhouse://", "cassandra://", "neo4j://", "bolt://"}

// nameWordsOf splits a setting name into its lower-case words: REDIS_HOST, redisHost,
// spring.datasource.url and --db-host alike.
func nameWordsOf(n string) []string {
	var b strings.Builder
	prev := byte(0)
	for i := 0; i < len(n); i++ {
		c := n[i]
		switch {
		case c >= 'A' && c <= 'Z':
			if prev >= 'a' && prev <= 'z' {
				b.WriteByte(' ')
			}
			b.WriteByte(c + 'a' - 'A')
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			b.WriteByte(c)
		default:
			b.WriteByte(' ')
		}
		prev = c
	}
	return strings.Fields(b.String())
}

// connectionScore says how surely setting s configures the connection to host:port (0: it
// does not). A setting must name the dependency (its host, its port, its kind of server)
// and look like an address (an address-like name or a datastore URL).
func connectionScore(s configSetting, host, port string) int {
	v := strings.ToLower(s.value)
	words := nameWordsOf(s.name)
	kinds := portWords[port]
	named, score := false, 0
	if host != "" && v != "" && containsToken(v, strings.ToLower(host)) {
		named, score = true, score+4
	}
	switch {
	case port == "" || v == "":
	case strings.Contains(v, ":"+port):
		named, score = true, score+3
	case v == port:
		named, score = true, score+1 // every port setting of that server says as much
	}
	for _, w := range words {
		if containsStr(kinds, w) {
			named, score = true, score+2
			break
		}
	}
	for _, sc := range dataSchemes {
		if strings.HasPrefix(v, sc) {
			score += 2
			for _, k := range kinds {
				if strings.HasPrefix(v, k) {
					named, score = true, score+1
					break
				}
			}
			break
		}
	}
	joined := strings.Join(words, "_")
	for _, suf := range connSuffixes {
		if joined == suf || strings.HasSuffix(joined, "_"+suf) {
			// Where the server is (a host, a URL) says more than which port it listens on.
			score += 3
			if suf == "port" {
				score -= 2
			}
			break
		}
	}
	if !named || score < 4 {
		return 0
	}
	return score
}

// connectionSettings are the settings that configure the connection to host:port, surest
// first (at most max).
func connectionSettings(settings []configSetting, host, port string, max int) []configSetting {
	type scored struct {
		s configSetting
		n int
	}
	var l []scored
	for _, s := range settings {
		if n := connectionScore(s, host, port); n > 0 {
			l = append(l, scored{s, n})
		}
	}
	for i := 1; i < len(l); i++ {
		for j := i; j > 0 && l[j].n > l[j-1].n; j-- {
			l[j], l[j-1] = l[j-1], l[j]
		}
	}
	var out []configSetting
	for _, x := range l {
		if len(out) < max {
			out = append(out, x.s)
		}
	}
	return out
}

// saySettings lists settings as a reader checks them.
func saySettings(l []configSetting) string {
	var parts []string
	for _, s := range l {
		parts = append(parts, s.say())
	}
	return strings.Join(parts, "; ")
}

// genericServerWords name no one kind of server ("database is locked" says nothing of Postgres).
var genericServerWords = map[string]bool{"database": true, "db": true, "sql": true, "cache": true, "search": true, "es": true,
	"mq": true, "s3": true, "broker": true, "brokers": true, "bootstrap": true}

// serverPortsIn are the well-known ports of the servers a line names by word or URL scheme
// ("sqlalchemy.dialects:postgres", "amqp://", "MongoServerError", "jdbc:mysql").
func serverPortsIn(line string) []string {
	words := map[string]bool{}
	for _, w := range nameWordsOf(line) {
		words[w] = true
	}
	var out []string
	for _, port := range sortedKeys(portWords) {
		for _, w := range portWords[port] {
			if !genericServerWords[w] && words[w] {
				out = append(out, port)
				break
			}
		}
	}
	return out
}

// dependencyClass reports an error about talking to another server: the connection, its
// credentials, its TLS, its limits, or a line that names a kind of server.
func dependencyClass(c Clue) bool {
	switch {
	case !c.IsError():
		return false
	case networkClass(c.Class), c.Class == ErrAuth, c.Class == ErrTLS, c.Class == ErrLimit:
		return true
	}
	return len(serverPortsIn(c.Line)) > 0
}

// maxNotedSummary bounds a summary that gets a connection note: the note must not push the
// mechanism's words out of the clipped conclusion.
const maxNotedSummary = 850

// connectionNote is the sentence that names the client's settings for the dependency its error
// is about (by host, port and kind of server), for a summary that does not name them yet:
// they are where a wrong address, scheme, option or user is fixed, and naming their object
// puts it among the affected objects (summaryrefs.go).
func (pc *podCheck) connectionNote(ctx context.Context, spec corev1.Container, clue Clue, summary string) string {
	if !clue.IsError() || len(summary) > maxNotedSummary {
		return ""
	}
	under := strings.Join(linesAfter(pc.lines[spec.Name], clue.Line, 4), " ")
	if !dependencyClass(clue) && len(serverPortsIn(under)) == 0 && !connHintSign(clue.Line+" "+under) {
		return ""
	}
	// The frames under the line name the driver ("at com.mysql.cj.jdbc...", "File
	// \".../psycopg2/...\"") when the line itself only says what went wrong.
	ports := serverPortsIn(clue.Line + " " + under)
	host := ""
	for _, h := range clue.Hosts {
		if !h.Weak && host == "" {
			host = h.Host
		}
		if h.Port != "" && !containsStr(ports, h.Port) {
			ports = append(ports, h.Port)
		}
	}
	if len(ports) == 0 {
		ports = []string{""}
	}
	wl := pc.e.workloadOf(ctx, pc.pod)
	settings := pc.e.configSettings(ctx, pc.pod, spec, wl)
	hint := connectionHint(clue.Line+" "+under, settings)
	if host == "" && ports[0] == "" {
		if hint == "" {
			return ""
		}
		return " " + upperFirst(hint) + "."
	}
	best, top := 0, []configSetting(nil)
	for _, port := range ports {
		l := connectionSettings(settings, host, port, 2)
		if len(l) > 0 && connectionScore(l[0], host, port) > best {
			best, top = connectionScore(l[0], host, port), l
		}
	}
	var named []configSetting
	for _, s := range top {
		if !strings.Contains(summary, s.name) {
			named = append(named, s)
		}
	}
	note := ""
	if best >= 5 && len(named) > 0 {
		note = " The client's settings for that connection: " + saySettings(named) + "."
	}
	if hint != "" {
		note += " " + upperFirst(hint) + "."
	}
	if note == "" {
		return ""
	}
	if len(summary)+len(note) > maxNotedSummary+150 {
		return ""
	}
	return note
}

// linesAfter are up to n lines that follow line in lines (its stack frames, its causes).
func linesAfter(lines []string, line string, n int) []string {
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i] == line || strings.Contains(line, lines[i]) && len(lines[i]) > 20 {
			return lines[i+1 : min(len(lines), i+1+n)]
		}
	}
	return nil
}

// urlUser is the user of a URL's user info ("amqp://guest:guest@mq:5672").
var urlUser = regexp.MustCompile(`^[a-z][a-z0-9+.-]*://([^:/@\s]+)(?::[^@/\s]*)?@`)

// credentialSetting is the setting, other than a Secret, that gives the client the user it
// logs in with to the dependency its error names: a connection URL with user info, or a
// plain user setting of that server.
func (pc *podCheck) credentialSetting(ctx context.Context, d *depCheck, wl ObjectRef) (*configSetting, string) {
	settings := pc.e.configSettings(ctx, pc.pod, d.spec, wl)
	host, port := "", ""
	for _, h := range d.clue.Hosts {
		if host == "" {
			host, port = h.Host, h.Port
		}
	}
	for _, cs := range connectionSettings(settings, host, port, 4) {
		if m := urlUser.FindStringSubmatch(strings.ToLower(cs.value)); m != nil && !cs.secret {
			return &cs, m[1]
		}
	}
	for _, cs := range settings {
		w := nameWordsOf(cs.name)
		if !cs.secret && cs.value != "" && len(w) > 1 && (w[len(w)-1] == "user" || w[len(w)-1] == "username") && connectionScore(configSetting{name: strings.Join(w[:len(w)-1], "_") + "_host"}, host, port) > 0 {
			return &cs, cs.value
		}
	}
	return nil, ""
}

// connHintSign reports a line that carries a connection hint's signature.
func connHintSign(text string) bool {
	low := strings.ToLower(text)
	for _, h := range connHints {
		if h.sign.MatchString(low) {
			return true
		}
	}
	return false
}
