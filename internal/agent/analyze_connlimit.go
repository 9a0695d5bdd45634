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
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
)

// "Too many connections": the server refuses new clients because its limit is reached. The
// workload's share is its replicas times the connection pool each one opens, when the pool
// size is a setting of the container: that product is the number that explains the error.

// poolSetting is a setting that sizes a client's connection pool.
var poolSetting = regexp.MustCompile(`(?i)(pool[_.-]?(max[_.-]?)?size|max[_.-]?pool|maximum[_.-]?pool[_.-]?size|max[_.-]?(open[_.-]?)?conn(ection)?s|pool[_.-]?max)`)

// connectionLimit reports a connection-limit error with the workload's connection budget;
// a client's own exhausted pool goes to connectionPool (analyze_pool.go).
func (pc *podCheck) connectionLimit(ctx context.Context, d *depCheck) bool {
	if d.clue.Class == ErrPool {
		return pc.connectionPool(ctx, d) || pc.invalidConfigFiles(ctx, d)
	}
	wl := pc.e.workloadOf(ctx, pc.pod)
	if pc.e.inProvider && pc.serverLimit(ctx, d, wl) {
		return true
	}
	replicas := int64(1)
	if wl.Kind == "Deployment" {
		if dep, err := getAs[*appsv1.Deployment](ctx, pc.e, "Deployment", wl.Name); err == nil && dep.Spec.Replicas != nil {
			replicas = int64(*dep.Spec.Replicas)
		}
	} else if wl.Kind == "StatefulSet" {
		if s, err := getAs[*appsv1.StatefulSet](ctx, pc.e, "StatefulSet", wl.Name); err == nil && s.Spec.Replicas != nil {
			replicas = int64(*s.Spec.Replicas)
		}
	}
	facts := map[string]string{"replicas": fmt.Sprint(replicas), "sourceResource": kubectlResource(wl)}
	budget := fmt.Sprintf("%s %s runs %d replica(s)", wl.Kind, wl.Name, replicas)
	for _, ev := range d.spec.Env {
		if ev.ValueFrom != nil || !poolSetting.MatchString(ev.Name) {
			continue
		}
		if n, err := strconv.ParseInt(ev.Value, 10, 32); err == nil && n > 0 {
			facts["poolSetting"], facts["poolSize"] = ev.Name, ev.Value
			budget += fmt.Sprintf(" with %s=%d each, up to %d connections from this workload alone", ev.Name, n, n*replicas)
			break
		}
	}
	d.report(ctx, "dependency-connection-limit", 0, wl, fmt.Sprintf("%s: the server it connects to has reached its connection limit and refuses new clients; %s. Lower the pool size or the replicas, or raise the server's limit (max_connections).",
		d.opening(), budget), nil, nil, facts)
	return true
}

// serverLimitSetting is a server's own cap on client connections (MongoDB
// maxIncomingConnections, PostgreSQL/MySQL max_connections, Redis maxclients, PgBouncer
// max_client_conn, HAProxy maxconn).
var serverLimitSetting = regexp.MustCompile(`(?i)^(--?)?(max[_.-]?(incoming[_.-]?)?conn(ection)?s|maxclients|max[_.-]?client[_.-]?conn(ection)?s?|max[_.-]?user[_.-]?conn(ection)?s|maxconn|conn(ection)?[_.-]?limit)$`)

// serverLimit reports, for a server whose own log says it refuses clients at its connection
// limit, the setting that sets that limit in its configuration (a mounted file, its env or
// its arguments): that is the number to raise, or the clients' pools to lower against.
func (pc *podCheck) serverLimit(ctx context.Context, d *depCheck, wl ObjectRef) bool {
	for _, s := range pc.e.configSettings(ctx, pc.pod, d.spec, wl) {
		if s.secret || !serverLimitSetting.MatchString(s.name) {
			continue
		}
		d.report(ctx, "dependency-connection-limit", 0, s.ref, fmt.Sprintf("%s: the server refuses new clients at its own connection limit, %s. Raise it there (and restart %s %s), or lower the clients' replicas and connection pools to fit under it.",
			d.opening(), s.say(), wl.Kind, wl.Name), nil, []ObjectRef{s.ref, wl}, map[string]string{"key": s.name, "sourceResource": kubectlResource(s.ref)})
		return true
	}
	return false
}
