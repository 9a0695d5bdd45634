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

	corev1 "k8s.io/api/core/v1"
)

// An error often says which setting governs it in its own words, without quoting it:
// "Ingestion rate limit exceeded" is governed by ingestion_rate_mb, "no pg_hba.conf entry" by
// the pg_hba.conf file a ConfigMap mounts, "too many connections" by max_connections, "request
// body too large" by client_max_body_size. settingEchoed splits the error line into words
// (camelCase, snake_case, dotted names) and matches them against the names of the settings
// of the failing container and of the servers behind the Services it calls; a setting whose
// name the error echoes distinctively is where the fix is, quoted with its value.

var (
	// compoundToken is a setting-like token of an error line: pg_hba.conf, max_connections,
	// authSource, innodb.buffer-pool.
	compoundToken = regexp.MustCompile(`[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]+)+`)
	// limitPhrases say "the maximum" in the words errors use.
	limitPhrases = strings.NewReplacer("too many", "max", "too large", "max", "too big", "max", "too long", "max", "maximum", "max", "exceeds", "max", "exceeded", "max")
)

// echoStopWords are words too common in errors, or about the connection itself (the
// settings they name are the subject of connectionSettings), to tie an error to a setting.
var echoStopWords = map[string]bool{
	"the": true, "and": true, "for": true, "not": true, "with": true, "from": true, "this": true, "that": true, "are": true, "was": true,
	"error": true, "failed": true, "failure": true, "fatal": true, "warn": true, "warning": true, "info": true, "debug": true, "exception": true,
	"host": true, "hostname": true, "port": true, "url": true, "uri": true, "user": true, "username": true, "password": true, "pass": true,
	"name": true, "server": true, "client": true, "address": true, "addr": true, "database": true, "db": true, "connection": true,
	"connect": true, "path": true, "file": true, "dir": true, "enabled": true, "enable": true, "true": true, "false": true, "value": true,
	"level": true, "log": true, "logs": true, "mode": true, "type": true, "default": true, "config": true, "conf": true, "cfg": true,
	"settings": true, "setting": true, "key": true, "keys": true, "http": true, "https": true, "api": true, "app": true, "service": true,
	"request": true, "requests": true, "response": true, "status": true, "code": true, "time": true, "msg": true, "err": true, "caller": true,
	"main": true, "java": true, "org": true, "com": true, "io": true, "net": true, "lang": true, "util": true, "src": true, "lib": true,
}

// echoWeakWords tie an error to a setting only beside a distinctive word.
var echoWeakWords = map[string]bool{"max": true, "min": true, "limit": true, "limits": true, "size": true, "count": true, "number": true,
	"total": true, "per": true, "rate": true, "timeout": true, "sec": true, "seconds": true, "bytes": true, "mb": true, "kb": true}

// echoWords are the words of an error line that may name a setting, with its compound tokens
// normalized as setting names.
func echoWords(line string) (words map[string]bool, compounds []string) {
	words = map[string]bool{}
	for _, w := range nameWordsOf(limitPhrases.Replace(strings.ToLower(line))) {
		if len(w) >= 2 && !echoStopWords[w] && strings.Trim(w, "0123456789") != "" {
			words[w] = true
		}
	}
	for _, t := range compoundToken.FindAllString(line, 20) {
		if n := settingName(t); len(n) >= 6 && !containsStr(compounds, n) {
			compounds = append(compounds, n)
		}
	}
	return words, compounds
}

// echoScore says how distinctively an error's words name setting s (0: not at all).
func echoScore(name string, words map[string]bool, compounds []string) float64 {
	n := settingName(strings.TrimLeft(name, "-"))
	for _, c := range compounds {
		if n == c || strings.HasSuffix(n, "_"+c) {
			return 10
		}
	}
	sw := nameWordsOf(name)
	if len(sw) < 2 {
		return 0
	}
	var score float64
	strong, hits := 0, 0
	for _, w := range sw {
		switch {
		case !words[w]:
		case echoWeakWords[w]:
			score += 0.5
			hits++
		case len(w) >= 4 && !echoStopWords[w]:
			score++
			strong++
			hits++
		}
	}
	if strong == 0 || hits < 2 || score < 1.5 {
		return 0
	}
	return score + float64(hits)/float64(len(sw))
}

// fileSettings are the files the ConfigMaps mounted into container c hold, as settings
// named by their keys (pg_hba.conf, limits.yaml) whose value is their first meaningful lines.
func (e *env) fileSettings(ctx context.Context, p *corev1.Pod, c corev1.Container) []configSetting {
	var out []configSetting
	cm := e.configMapsUpTo(ctx, maxSourceObjects)
	names, paths := mountedConfigMaps(c, p)
	for i, name := range names {
		m := cm(name)
		if m == nil {
			continue
		}
		for _, k := range sortedKeys(m.Data) {
			out = append(out, configSetting{name: k, value: fileGist(m.Data[k]), where: fmt.Sprintf("ConfigMap %s key %s (mounted at %s)", m.Name, k, paths[i]), ref: e.ref("ConfigMap", m.Name)})
		}
	}
	return out
}

// fileGist is a file's first lines that are no comment, joined: what a reader checks.
func fileGist(s string) string {
	var parts []string
	for _, l := range strings.Split(clipBytes(s, 8<<10), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "//") || strings.HasPrefix(l, ";") {
			continue
		}
		if parts = append(parts, l); len(parts) == 4 {
			break
		}
	}
	return strings.Join(parts, " | ")
}

// echoed is a setting an error names, on the client itself or on a server it calls.
type echoed struct {
	s     configSetting
	score float64
	svc   string // the Service in front of the server holding it; "" for the client's own
}

// settingEchoed handles an error whose words name a setting of the failing container or of
// the server behind a Service it calls.
// With strong set, only a token of the error spelt as the setting's whole name counts, and
// only the servers' settings are read (the check that runs before the error's class is
// followed).
func (pc *podCheck) settingEchoed(ctx context.Context, d *depCheck, strong bool) bool {
	if !d.clue.IsError() || networkClass(d.clue.Class) && d.clue.Class != ErrUnavail {
		return false // a connection that fails says nothing of a setting's value
	}
	words, compounds := echoWords(d.clue.Line)
	if len(words) < 2 && len(compounds) == 0 {
		return false
	}
	e := pc.e
	var best *echoed
	urls := errorURLs.FindAllString(d.clue.Line, 4)
	consider := func(l []configSetting, svc string) {
		for _, s := range l {
			n := echoScore(s.name, words, compounds)
			if s.secret && n < 10 {
				// A Secret's key is named only when the error spells it whole: its value is
				// never read, so nothing else ties it to the error.
				continue
			}
			if !s.secret && svc == "" && urlPrefixed(s.value, urls) {
				// The URL the error quotes starts with this setting's value: the request was
				// built from it (an issuer, a base URL with a path the server does not serve).
				n = 20
			}
			if n > 0 && (!strong || n >= 10) && (best == nil || n > best.score) {
				best = &echoed{s: s, score: n, svc: svc}
			}
		}
	}
	wl := e.workloadOf(ctx, pc.pod)
	if !strong {
		// The client's own settings come last: its configuration's own errors (a file that
		// does not parse, a key it lacks, a value it rejects) have their own checks first.
		// Its own files, named by their keys, are the named-file check's (reportNamedConfigFile).
		consider(e.configSettings(ctx, pc.pod, d.spec, wl), "")
	}
	for i, s := range pc.echoServices(ctx, d) {
		p := pc.backendOf(ctx, s)
		if p == nil || i >= 3 || len(p.Spec.Containers) == 0 {
			continue
		}
		c := p.Spec.Containers[0]
		pwl := e.workloadOf(ctx, p)
		consider(append(e.configSettings(ctx, p, c, pwl), e.fileSettings(ctx, p, c)...), s.Name)
	}
	if best == nil {
		return false
	}
	s := best.s
	d.evIDs = append(d.evIDs, e.objEvidence(s.ref, s.where+": "+s.value))
	facts := map[string]string{"key": s.name, "sourceResource": kubectlResource(s.ref)}
	if best.svc != "" {
		sref := e.ref("Service", best.svc)
		facts["service"] = best.svc
		d.report(ctx, "provider-setting-limit", 0, s.ref, fmt.Sprintf("%s: the error names a setting of the server behind Service %s, which the client calls: %s. Change %s there, then restart (or reload) the server.",
			d.opening(), best.svc, s.say(), s.name), nil, []ObjectRef{s.ref, sref}, facts)
		return true
	}
	d.report(ctx, "config-setting-named", 0, s.ref, fmt.Sprintf("%s: the error names a setting of its own configuration: %s. Change %s there, then restart %s %s.%s",
		d.opening(), s.say(), s.name, wl.Kind, wl.Name, e.othersSet(ctx, s.name, s.value, wl)), nil, []ObjectRef{s.ref}, facts)
	return true
}

// echoServices are the Services the client calls: those its configuration names, then those
// its error line names by name or cluster IP (a DSN kept in a Secret is never read, but the
// driver's error says "10.96.212.40:5432 (ledger-db)").
func (pc *podCheck) echoServices(ctx context.Context, d *depCheck) []*corev1.Service {
	configured := pc.configuredServices(ctx, d)
	svcs, err := listOnce[*corev1.Service](ctx, pc.e, "Service", maxServiceList)
	if err != nil {
		return configured
	}
	// An error that names the server it talked to (a URL, host:port) is about that server:
	// the other servers the client is configured for are not read for its words.
	var out []*corev1.Service
	for _, h := range d.clue.Hosts {
		name, _, scope := classifyHost(h.Host, pc.e.s.Namespace)
		for _, s := range svcs {
			named := scope == hostInNamespace && s.Name == name || s.Spec.ClusterIP != "" && s.Spec.ClusterIP != corev1.ClusterIPNone && s.Spec.ClusterIP == h.Host
			if named && len(s.Spec.Selector) > 0 && !containsSvc(out, s) {
				out = append(out, s)
			}
		}
	}
	if len(out) == 0 {
		return configured
	}
	return out
}

// errorURLs are the http(s) URLs an error line quotes.
var errorURLs = regexp.MustCompile(`https?://[^\s"'<>\\]{3,300}`)

// urlPrefixed reports a setting value that is an http(s) URL with a path, of which one of the
// error's URLs is the same URL or a longer one.
func urlPrefixed(value string, urls []string) bool {
	v := strings.TrimRight(strings.ToLower(value), "/")
	if !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://") {
		return false
	}
	if rest := v[strings.Index(v, "://")+3:]; !strings.Contains(rest, "/") {
		return false // a bare host says nothing the connection checks do not
	}
	for _, u := range urls {
		u = strings.ToLower(u)
		if u == v || strings.HasPrefix(u, v+"/") {
			return true
		}
	}
	return false
}
