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
	"sort"

	corev1 "k8s.io/api/core/v1"
)

// credential is one place a container takes credentials from: a Secret key by env, a
// whole Secret by envFrom, or a Secret volume.
type credential struct {
	name, key, via string
	// keys are the names the Secret gives the container (its env names, or its keys for
	// envFrom); base ranks the kind of reference when the error's words decide nothing.
	keys []string
	base int
}

// credentials handles rejected credentials: the Secret the container takes them from. With
// several, the one whose key names share words with the error wins ("The AWS Access Key Id
// you provided does not exist" → AWS_ACCESS_KEY_ID; "role ... does not exist", user=... →
// DB_USER), ahead of how the Secret is referenced. Secret values are never read.
func (pc *podCheck) credentials(ctx context.Context, d *depCheck) bool {
	if pc.keyDrift(ctx, d) {
		return true
	}
	e := pc.e
	var cands []credential
	for _, ev := range d.spec.Env {
		if ev.ValueFrom != nil && ev.ValueFrom.SecretKeyRef != nil {
			base := 1
			if secretLike(ev.Name) || secretLike(ev.ValueFrom.SecretKeyRef.Key) {
				base = 3
			}
			ref := ev.ValueFrom.SecretKeyRef
			cands = append(cands, credential{name: ref.Name, key: ref.Key, via: "env " + ev.Name, keys: []string{ev.Name, ref.Key}, base: base})
		}
	}
	for _, ef := range d.spec.EnvFrom {
		if ef.SecretRef != nil {
			c := credential{name: ef.SecretRef.Name, via: "envFrom", base: 2}
			if s, err := getAs[*corev1.Secret](ctx, e, "Secret", c.name); err == nil {
				for k := range s.Data {
					c.keys = append(c.keys, ef.Prefix+k)
				}
				for k := range s.StringData {
					c.keys = append(c.keys, ef.Prefix+k)
				}
				sort.Strings(c.keys)
			}
			cands = append(cands, c)
		}
	}
	for _, v := range pc.pod.Spec.Volumes {
		if v.Secret != nil {
			cands = append(cands, credential{name: v.Secret.SecretName, via: "volume " + v.Name, base: 0})
		}
	}
	wl := e.workloadOf(ctx, pc.pod)
	target := ""
	if len(d.clue.Hosts) > 0 {
		target = " by " + d.clue.Hosts[0].String()
	}
	best, bestKey := bestCredential(cands, d.clue.Line+" "+d.clue.Also)
	if best == nil {
		if s, user := pc.credentialSetting(ctx, d, wl); s != nil {
			d.report(ctx, "dependency-auth-failed", 0, s.ref, fmt.Sprintf("%s: its credentials are rejected%s; it takes none from a Secret, and logs in as user %s, which %s gives it. Fix the user and password there (or the server's users for it), then restart %s %s.",
				d.opening(), target, user, s.say(), wl.Kind, wl.Name), nil, []ObjectRef{s.ref}, map[string]string{"key": s.name, "sourceResource": kubectlResource(s.ref)})
			return true
		}
		if pc.connectionConfig(ctx, d, wl, target) {
			return true
		}
		d.report(ctx, "dependency-auth-failed", 60, wl, fmt.Sprintf("%s: its credentials are rejected%s, and it takes none from a Secret; check the credentials configured in %s %s.", d.opening(), target, wl.Kind, wl.Name),
			nil, nil, map[string]string{"sourceResource": kubectlResource(wl)})
		return true
	}
	ref := e.ref("Secret", best.name)
	key := orDefault(best.key, orDefault(bestKey, "its keys"))
	d.report(ctx, "dependency-auth-failed", 0, ref, fmt.Sprintf("%s: its credentials are rejected%s; it reads them from Secret %s (%s, %s), which holds a wrong or stale value. Update the Secret (or the server's side) and restart %s %s.",
		d.opening(), target, best.name, key, best.via, wl.Kind, wl.Name), nil, []ObjectRef{ref}, map[string]string{"secret": best.name, "key": key, "sourceResource": kubectlResource(ref)})
	return true
}

// connectionConfig names, for rejected credentials the client takes from no Secret, the
// setting that configures the connection the server rejected (a mounted config file's
// remote_write url, an env URL): that is where the missing credentials, token or tenant
// header belong.
func (pc *podCheck) connectionConfig(ctx context.Context, d *depCheck, wl ObjectRef, target string) bool {
	if len(d.clue.Hosts) == 0 {
		return false
	}
	h := d.clue.Hosts[0]
	settings := pc.e.configSettings(ctx, pc.pod, d.spec, wl)
	l := connectionSettings(settings, h.Host, h.Port, 1)
	if len(l) == 0 || l[0].secret || l[0].ref.IsZero() || l[0].ref.Key() == wl.Key() {
		return false
	}
	s := l[0]
	d.report(ctx, "dependency-auth-failed", 0, s.ref, fmt.Sprintf("%s: its credentials are rejected%s, and it takes none from a Secret: the connection is configured in %s, with nothing the server accepts as credentials. Add what the server expects there (a user and password, a token, a tenant or org header), from a Secret, then reload or restart %s %s.",
		d.opening(), target, s.where, wl.Kind, wl.Name), nil, []ObjectRef{s.ref}, map[string]string{"key": s.name, "sourceResource": kubectlResource(s.ref)})
	return true
}

// bestCredential ranks the candidates by the words their key names share with the error
// text, then by the kind of reference; it returns the winner and its best-matching key.
func bestCredential(cands []credential, text string) (*credential, string) {
	words := map[string]bool{}
	for _, w := range nameWordsOf(text) {
		words[w] = true
	}
	var best *credential
	bestKey, bestScore := "", -1
	for i := range cands {
		c := &cands[i]
		overlap, key := 0, ""
		for _, k := range c.keys {
			n := 0
			for _, w := range nameWordsOf(k) {
				if words[w] && !credentialFiller[w] {
					n++
				}
			}
			if n > overlap {
				overlap, key = n, k
			}
		}
		if score := overlap*10 + c.base; score > bestScore {
			best, bestKey, bestScore = c, key, score
		}
	}
	if overlap := bestScore / 10; overlap == 0 {
		bestKey = ""
	}
	return best, bestKey
}

// credentialFiller are words that key names and errors share without saying which
// credential is meant.
var credentialFiller = map[string]bool{"id": true, "the": true, "url": true, "uri": true, "host": true, "port": true}
