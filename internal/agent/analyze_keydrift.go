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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A server that rejects a user no setting of the client names is told a default: the
// application does not read the key it is given (DB_USER where the framework reads
// DB_USERNAME, a misspelt key) and falls back to its built-in user ("forge", "root",
// "postgres"). Another workload that reaches the same server and works shows the key the
// application reads: the key it sets that this one lacks, named like one this one has.

// rejectedUser is the user a server names in its refusal.
var rejectedUser = regexp.MustCompile(`(?i)(?:for user|user|role|login for user|login failed for user)\s+["'\x60]([A-Za-z0-9_.@-]{1,64})["'\x60@]`)

// userWords mark a setting that names the user a client logs in as.
var userWords = map[string]bool{"user": true, "username": true, "usr": true, "login": true, "uid": true}

// keyDrift reports a rejected default user with the key a working sibling sets instead.
func (pc *podCheck) keyDrift(ctx context.Context, d *depCheck) bool {
	m := rejectedUser.FindStringSubmatch(d.clue.Line)
	if m == nil {
		return false
	}
	user := m[1]
	e := pc.e
	wl := e.workloadOf(ctx, pc.pod)
	mine := e.configSettings(ctx, pc.pod, d.spec, wl)
	var userKey *configSetting
	values := map[string]bool{}
	for i, s := range mine {
		if s.value == user || strings.Contains(s.value, user+"@") || strings.Contains(s.value, "//"+user+":") {
			return false // the client is given this user: a password or grant matter, not a key
		}
		if len(s.value) >= 3 && !s.secret {
			values[s.value] = true
		}
		if userKey == nil && !s.secret && isUserKey(s.name) && s.ref.Kind == "ConfigMap" {
			userKey = &mine[i]
		}
	}
	if userKey == nil {
		return false
	}
	sib, key := pc.siblingUserKey(ctx, wl, mine, values, userKey.name)
	if key == "" {
		return false
	}
	summary := fmt.Sprintf("%s: the server rejects user %s, which no setting of the container gives, so the application is not reading %s (= %s in %s) and falls back to a default user. %s %s, which reaches the same server, sets %s instead, and this container does not: rename %s to %s in %s.",
		d.opening(), tokenFact(user), userKey.name, userKey.value, userKey.where, sib.Kind, sib.Name, key, userKey.name, key, userKey.ref.Kind+" "+userKey.ref.Name)
	d.evIDs = append(d.evIDs, e.objEvidence(userKey.ref, userKey.where+": "+userKey.value))
	d.report(ctx, "dependency-auth-failed", 0, userKey.ref, summary, nil, []ObjectRef{userKey.ref, sib},
		map[string]string{"key": userKey.name, "sourceResource": kubectlResource(userKey.ref)})
	return true
}

func isUserKey(name string) bool {
	for _, w := range nameWordsOf(name) {
		if userWords[w] {
			return true
		}
	}
	return false
}

// siblingUserKey finds another workload whose settings share a connection value with the
// client's (the same host) and name the user with a key the client lacks.
func (pc *podCheck) siblingUserKey(ctx context.Context, self ObjectRef, mine []configSetting, values map[string]bool, have string) (ObjectRef, string) {
	e := pc.e
	deps, err := listOnce[*appsv1.Deployment](ctx, e, "Deployment", scanMaxObjects)
	if err != nil {
		return ObjectRef{}, ""
	}
	names := map[string]bool{}
	for _, s := range mine {
		names[s.name] = true
	}
	for _, dep := range deps {
		ref := e.ref("Deployment", dep.Name)
		if ref.Key() == self.Key() {
			continue
		}
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: dep.Name, Namespace: dep.Namespace, Labels: dep.Spec.Template.Labels}, Spec: dep.Spec.Template.Spec}
		for _, c := range dep.Spec.Template.Spec.Containers {
			theirs := e.configSettings(ctx, p, c, ref)
			shared := false
			for _, s := range theirs {
				if !s.secret && values[s.value] && !isUserKey(s.name) && strings.ContainsAny(s.value, ".-:") {
					shared = true
					break
				}
			}
			if !shared {
				continue
			}
			for _, s := range theirs {
				if !s.secret && isUserKey(s.name) && !names[s.name] && s.name != have && sharesWord(s.name, have) {
					return ref, s.name
				}
			}
		}
	}
	return ObjectRef{}, ""
}

// sharesWord reports two setting names with a word in common besides the user words
// (DB_USER and DB_USERNAME share DB).
func sharesWord(a, b string) bool {
	bw := map[string]bool{}
	for _, w := range nameWordsOf(b) {
		bw[w] = true
	}
	for _, w := range nameWordsOf(a) {
		if bw[w] && !userWords[w] {
			return true
		}
	}
	return false
}
