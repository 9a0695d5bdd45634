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
	"strings"
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
