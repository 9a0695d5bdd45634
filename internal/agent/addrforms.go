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
)

// Addresses are spelt many ways in a container's configuration: a URL in one variable, a host
// and a port in two (DB_HOST and DB_PORT), a command-line flag (--db-host=x, --db-host x,
// -Dspring.datasource.url=jdbc:...), or a value composed from other variables with the
// kubelet's $(VAR) expansion. This file reads them all into "setting = value" pairs, so the
// configured-provider walk sees the same host whichever way it is written.

// setting is one configured name and value.
type setting struct{ key, value string }

// envRef is the kubelet's $(VAR) reference in env values, command and args.
var envRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_.-]{0,80})\)`)

// expandRefs replaces $(VAR) with the value of VAR when it is known, as the kubelet does when
// it starts the container; $$(VAR) is the escape for a literal $(VAR) and unknown ones stay.
func expandRefs(s string, vars map[string]string) string {
	if !strings.Contains(s, "$(") || len(vars) == 0 {
		return s
	}
	s = clipBytes(s, 4096)
	out := envRef.ReplaceAllStringFunc(s, func(m string) string {
		if v, ok := vars[m[2:len(m)-1]]; ok {
			return clipBytes(v, 1024)
		}
		return m
	})
	return strings.ReplaceAll(out, "$$(", "$(")
}

// flagSettings reads the settings a command line passes as options: --name=value,
// -Dname=value, and --name value (the next word when it is not itself an option).
func flagSettings(argv []string) []setting {
	var words []string
	for _, a := range argv {
		if len(words) >= 256 {
			break
		}
		words = append(words, strings.Fields(clipBytes(a, 1024))...)
	}
	var out []setting
	for i, w := range words {
		if !strings.HasPrefix(w, "-") || len(w) < 2 {
			continue
		}
		name := strings.TrimLeft(w, "-")
		if strings.HasPrefix(w, "-D") && !strings.HasPrefix(w, "--") {
			name = w[2:] // a Java system property
		}
		if k, v, ok := strings.Cut(name, "="); ok {
			if k != "" && v != "" {
				out = append(out, setting{k, strings.Trim(v, shellPunct)})
			}
			continue
		}
		if i+1 < len(words) && !strings.HasPrefix(words[i+1], "-") && hostySetting(name) {
			out = append(out, setting{name, strings.Trim(words[i+1], shellPunct)})
		}
	}
	return out
}

// hostPortPairs joins settings that give a host and a port apart (DB_HOST and DB_PORT,
// PGHOST and PGPORT, redis.host and redis.port) into host:port, so the port is checked too.
func hostPortPairs(ss []setting) []setting {
	ports := map[string]string{}
	for _, s := range ss {
		if p, ok := settingStem(s.key, "port"); ok && s.value != "" && strings.Trim(s.value, "0123456789") == "" {
			ports[p] = s.value
		}
	}
	var out []setting
	for _, s := range ss {
		for _, suffix := range []string{"host", "hostname", "server", "addr", "address", "service"} {
			stem, ok := settingStem(s.key, suffix)
			if !ok || ports[stem] == "" || strings.ContainsAny(s.value, ":/,") {
				continue
			}
			out = append(out, setting{s.key, s.value + ":" + ports[stem]})
			break
		}
	}
	return out
}

// settingStem cuts suffix off a setting's name, ignoring case and separators: DB_HOST,
// db-host, dbHost and db.host all have the stem "db".
func settingStem(key, suffix string) (string, bool) {
	k := strings.ToLower(key)
	if !strings.HasSuffix(k, suffix) {
		return "", false
	}
	return strings.TrimRight(k[:len(k)-len(suffix)], "_-."), true
}

// A setting's name says it holds an address when one of its words does (DB_HOST, redisUrl,
// spring.kafka.bootstrap-servers, PGHOST) and its last word does not say it holds something
// else of that server: KC_DB_URL_DATABASE is a database's name, REDIS_PASSWORD a password,
// OTEL_SERVICE_NAME a name, though each has an address word in it.
var (
	// addressWords name an address, alone or ending a word (pghost, dburl, apiserver).
	addressWords = []string{"host", "hostname", "addr", "address", "url", "uri", "server", "endpoint", "dsn", "broker", "bootstrap",
		"upstream", "backend", "peer", "seed", "target", "service", "svc", "api", "conn", "connection", "connect"}
	// serverWords name a kind of server; a word starting with one is about it (postgresql, mongodb).
	serverWords = []string{"redis", "postgres", "mysql", "mariadb", "mongo", "kafka", "amqp", "rabbitmq", "nats", "elastic", "memcache", "smtp", "zookeeper", "etcd", "cassandra"}
	// notAddressWords end the names of settings that hold something else than an address.
	notAddressWords = map[string]bool{"name": true, "names": true, "database": true, "databases": true, "db": true, "dbname": true,
		"user": true, "username": true, "login": true, "password": true, "passwd": true, "pass": true, "pwd": true, "secret": true,
		"key": true, "token": true, "port": true, "ports": true, "timeout": true, "topic": true, "topics": true, "queue": true,
		"path": true, "dir": true, "file": true, "prefix": true, "suffix": true, "version": true, "id": true, "index": true,
		"region": true, "zone": true, "level": true, "mode": true, "enabled": true, "enable": true, "disabled": true, "size": true,
		"count": true, "ttl": true, "interval": true, "retries": true, "retry": true, "namespace": true, "realm": true, "tenant": true,
		"schema": true, "table": true, "collection": true, "exchange": true, "vhost": true, "channel": true, "group": true,
		"max": true, "min": true, "limit": true, "type": true, "scheme": true, "protocol": true, "method": true, "format": true,
		"sslmode": true, "ssl": true, "tls": true, "cert": true, "ca": true, "label": true, "tag": true, "bucket": true, "weight": true}
	// qualifierWords may follow an address word and say which address it is.
	qualifierWords = map[string]bool{"primary": true, "secondary": true, "master": true, "main": true, "replica": true, "replicas": true,
		"read": true, "write": true, "ro": true, "rw": true, "reader": true, "writer": true, "readonly": true, "internal": true,
		"external": true, "public": true, "private": true, "local": true, "remote": true, "override": true, "default": true,
		"list": true, "nodes": true, "http": true, "https": true, "grpc": true, "tcp": true, "v1": true, "v2": true, "v3": true,
		"legacy": true, "new": true, "old": true, "fallback": true, "backup": true, "1": true, "2": true, "3": true, "0": true}
)

// hostySetting reports whether a setting's name says it holds an address.
func hostySetting(name string) bool {
	words := nameWordsOf(name)
	if len(words) == 0 || notAddressWords[words[len(words)-1]] {
		return false
	}
	// The last word that names an address or a server decides; the words after it may only
	// qualify which one (DB_HOST_PRIMARY), else they name something else of that server
	// (ETCD_INITIAL_CLUSTER_STATE, REDIS_SENTINEL_MASTER, API_WORKERS).
	for i := len(words) - 1; i >= 0; i-- {
		if addressWord(words[i]) {
			return true
		}
		if !qualifierWords[words[i]] {
			return false
		}
	}
	return false
}

// addressWord reports a word that names an address or a kind of server.
func addressWord(w string) bool {
	for _, a := range addressWords {
		if w == a || w == a+"s" || len(w) > len(a) && len(a) >= 3 && strings.HasSuffix(w, a) {
			return true
		}
	}
	for _, s := range serverWords {
		if strings.HasPrefix(w, s) {
			return true
		}
	}
	return false
}

// notAddressSetting reports a setting whose name says it holds something other than an
// address: PGDATABASE, DB_NAME, MYSQL_USER, KAFKA_TOPIC (a word of notAddressWords, alone or
// ending a run-together name).
func notAddressSetting(key string) bool {
	words := nameWordsOf(key)
	if len(words) == 0 {
		return false
	}
	last := words[len(words)-1]
	if notAddressWords[last] {
		return true
	}
	for _, w := range []string{"database", "dbname", "user", "username", "password", "schema", "topic", "queue", "bucket", "table"} {
		if len(last) > len(w) && strings.HasSuffix(last, w) {
			return true
		}
	}
	return false
}

// addressSetting reports that the pod's configuration holds host in a setting that may be an
// address (not a database, user or topic name that a loose mention happens to repeat).
func (pc *podCheck) addressSetting(ctx context.Context, d *depCheck, host string) bool {
	src := pc.findValue(ctx, d, host)
	return src != nil && !notAddressSetting(src.key)
}
