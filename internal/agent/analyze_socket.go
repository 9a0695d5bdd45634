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
)

// Containers of one pod often talk over a unix socket in a shared volume (nginx to php-fpm,
// a proxy to a uwsgi or gunicorn app, an agent to its daemon). When the client's
// configuration names a socket and the server's configuration, in another container,
// listens on a TCP address (or another path), nothing creates the socket: the client logs
// "connect() to unix:/run/php/php-fpm.sock failed (2: No such file or directory)". Both
// configurations are named, with the two addresses side by side.

var (
	unixSocket    = regexp.MustCompile(`(?:unix:)?(/[A-Za-z0-9_.@-]+(?:/[A-Za-z0-9_.@-]+)*\.sock)\b`)
	listenSetting = regexp.MustCompile(`(?m)^\s*(?:listen|bind|socket)\s*(?:=\s*|\s+)["']?([^\s;"']+)`)
)

// socketMismatch reports a socket the client's mounted configuration names that the other
// containers' configuration does not listen on.
func (pc *podCheck) socketMismatch(ctx context.Context, d *depCheck) bool {
	m := unixSocket.FindStringSubmatch(d.clue.Line)
	if m == nil {
		return false
	}
	sock := m[1]
	cm := pc.configMapReader(ctx)
	names, _ := mountedConfigMaps(d.spec, pc.pod)
	var client ObjectRef
	clientKey := ""
	for _, n := range names {
		if c := cm(n); c != nil {
			for _, k := range sortedKeys(c.Data) {
				if strings.Contains(clipBytes(c.Data[k], maxFileBytes), sock) {
					client, clientKey = pc.e.ref("ConfigMap", c.Name), k
					break
				}
			}
		}
		if clientKey != "" {
			break
		}
	}
	if clientKey == "" {
		return false
	}
	extra := []ObjectRef{client}
	server := ""
	for _, c := range pc.pod.Spec.Containers {
		if c.Name == d.spec.Name || server != "" {
			continue
		}
		ns, _ := mountedConfigMaps(c, pc.pod)
		for _, n := range ns {
			x := cm(n)
			if x == nil {
				continue
			}
			for _, k := range sortedKeys(x.Data) {
				for _, l := range listenSetting.FindAllStringSubmatch(clipBytes(x.Data[k], maxFileBytes), 4) {
					if l[1] != sock && strings.ContainsAny(l[1], ":/") {
						ref := pc.e.ref("ConfigMap", x.Name)
						extra = append(extra, ref)
						server = fmt.Sprintf(" Container %s, which serves it, listens on %s instead (key %s of ConfigMap %s), so nothing creates the socket: make the two agree (point the client at %s, or listen on %s).",
							c.Name, tokenFact(l[1]), k, x.Name, l[1], sock)
						break
					}
				}
				if server != "" {
					break
				}
			}
			if server != "" {
				break
			}
		}
	}
	if server == "" {
		server = " No container of the pod is configured to create it: check the server's listen setting and that both containers mount the volume the socket lives in."
	}
	d.report(ctx, "config-value-rejected", 80, client, fmt.Sprintf("%s: the socket %s the error names comes from key %s of ConfigMap %s.%s",
		d.opening(), sock, clientKey, client.Name, server), nil, extra,
		map[string]string{"token": tokenFact(sock), "key": clientKey, "sourceResource": kubectlResource(client)})
	return true
}
