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

	"github.com/kubage/kubage/internal/tools"
)

// A name a client asks its server for and the server does not have ("vhost orders not
// found", `database "orders" does not exist`, "Unknown database 'orders'") comes from the
// client's connection settings. When no value the engine reads holds it, it comes from a
// Secret the client loads (a connection URL, a DSN): that Secret's key is named, its value
// never read. The server's own configuration often declares the name spelt slightly
// differently ("/orders" for "orders"); the ConfigMap that does is named with it.

var askedUnknown = regexp.MustCompile(`(?i)\bunknown (vhost|virtual host|database|bucket|topic|queue|index|keyspace|exchange|realm|tenant)\s+["'\x60]?([A-Za-z0-9_./-]{1,100})["'\x60]?`)

// AskedName returns what a client asked its server for, and the word for it, or "".
func AskedName(text string) (noun, name string) {
	text = clipBytes(text, maxClueLineLen)
	if m := askedToken.FindStringSubmatch(text); m != nil && distinctive(m[1]) {
		noun = strings.ToLower(strings.Fields(strings.TrimSpace(m[0]))[0])
		return noun, m[1]
	}
	if m := askedUnknown.FindStringSubmatch(text); m != nil && distinctive(m[2]) {
		return strings.ToLower(m[1]), strings.TrimRight(m[2], ".,:;")
	}
	return "", ""
}

// connKey matches the names of settings that carry where and what a client connects to.
var connKey = regexp.MustCompile(`(?i)(URL|URI|DSN|CONN|VHOST|VIRTUAL_HOST|DATABASE|DB_?NAME|BUCKET|TOPIC|QUEUE|INDEX|KEYSPACE|REALM|TENANT)`)

// askedFromSecret names the Secret key the asked name must come from, and the server-side
// ConfigMap that declares a variant of it.
func (pc *podCheck) askedFromSecret(ctx context.Context, d *depCheck) bool {
	noun, name := AskedName(d.clue.Line)
	if name == "" {
		return false
	}
	e := pc.e
	secret, key, via := "", "", ""
	best := 0
	score := func(k string) int {
		switch {
		case strings.Contains(strings.ToUpper(k), strings.ToUpper(strings.ReplaceAll(noun, " ", "_"))):
			return 3
		case connKey.MatchString(k):
			return 2
		}
		return 0
	}
	c := d.spec
	for _, ev := range c.Env {
		if r := ev.ValueFrom; r != nil && r.SecretKeyRef != nil {
			if s := max(score(ev.Name), score(r.SecretKeyRef.Key)); s > best {
				secret, key, via, best = r.SecretKeyRef.Name, r.SecretKeyRef.Key, "env "+ev.Name, s
			}
		}
	}
	for _, ef := range c.EnvFrom {
		if ef.SecretRef == nil {
			continue
		}
		s, err := getAs[*corev1.Secret](ctx, e, "Secret", ef.SecretRef.Name)
		if err != nil {
			continue
		}
		for _, k := range tools.SecretKeys(s) {
			if sc := score(k); sc > best {
				secret, key, via, best = s.Name, k, "envFrom", sc
			}
		}
	}
	if secret == "" {
		return false
	}
	ref := e.ref("Secret", secret)
	extra := []ObjectRef{ref}
	declared := ""
	if cm, variant := pc.declaredVariant(ctx, d, name); cm != "" {
		cref := e.ref("ConfigMap", cm)
		extra = append(extra, cref)
		declared = fmt.Sprintf(" ConfigMap %s, on the server's side, declares %s, not %s: the names differ.", cm, tokenFact(variant), tokenFact(name))
		d.evIDs = append(d.evIDs, e.objEvidence(cref, fmt.Sprintf("ConfigMap %s declares %s", cm, tokenFact(variant))))
	}
	d.report(ctx, "config-value-rejected", 75, ref, fmt.Sprintf("%s: the %s %s the error names is set in none of its ConfigMaps, env values or arguments, so it comes from key %s of Secret %s (%s; Secret values are not read).%s Make the Secret name the %s the server has, or create it there.",
		d.opening(), noun, tokenFact(name), key, secret, via, declared, noun), nil, extra,
		map[string]string{"token": tokenFact(name), "key": key, "sourceResource": kubectlResource(ref)})
	return true
}

// declaredVariant finds a ConfigMap of the namespace, not one the client reads, whose data
// holds name spelt with a leading or trailing slash, or in another case.
func (pc *podCheck) declaredVariant(ctx context.Context, d *depCheck, name string) (string, string) {
	own, _ := d.mountedConfigMapsOf()
	for _, ef := range d.spec.EnvFrom {
		if ef.ConfigMapRef != nil {
			own = append(own, ef.ConfigMapRef.Name)
		}
	}
	bare := strings.Trim(name, "/")
	var variants []string
	for _, v := range []string{"/" + bare, bare + "/", bare, strings.ToLower(bare), strings.ToUpper(bare)} {
		if v != name && !containsStr(variants, v) {
			variants = append(variants, v)
		}
	}
	cms, err := listOnce[*corev1.ConfigMap](ctx, pc.e, "ConfigMap", scanMaxObjects)
	if err != nil {
		return "", ""
	}
	for _, c := range cms {
		if containsStr(own, c.Name) {
			continue
		}
		for _, k := range sortedKeys(c.Data) {
			for _, v := range variants {
				if quotedValue(c.Data[k], v) {
					return c.Name, v
				}
			}
		}
	}
	return "", ""
}

// quotedValue reports v written as a whole quoted value or a whole word after '=' or ':'.
func quotedValue(s, v string) bool {
	s = clipBytes(s, maxFileBytes)
	for _, q := range []string{`"` + v + `"`, `'` + v + `'`, "= " + v + "\n", ": " + v + "\n", "=" + v + "\n"} {
		if strings.Contains(s, q) {
			return true
		}
	}
	return false
}
