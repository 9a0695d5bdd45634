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
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/tools"
)

// listenLine is a server announcing its listener: "Now listening on: http://[::]:8080",
// "Listening on port 3000", "server started at 0.0.0.0:9000", "Serving HTTP on :8000".
var listenLine = regexp.MustCompile(`(?i)\b(?:listening|listens|listen|serving|bound|started|running)\b[^\r\n]{0,40}?\b(?:on|at|to)\b[^\r\n]{0,40}?(?:[:\s]|port\s)(\d{2,5})\b`)

// probePort is the port number a probe calls, its name resolved against the container's ports.
func probePort(p *corev1.Probe, c corev1.Container) int32 {
	if p == nil {
		return 0
	}
	var port *int32
	var name string
	switch {
	case p.HTTPGet != nil:
		name, port = p.HTTPGet.Port.StrVal, &p.HTTPGet.Port.IntVal
	case p.TCPSocket != nil:
		name, port = p.TCPSocket.Port.StrVal, &p.TCPSocket.Port.IntVal
	case p.GRPC != nil:
		return p.GRPC.Port
	default:
		return 0
	}
	if name == "" {
		return *port
	}
	for _, cp := range c.Ports {
		if cp.Name == name {
			return cp.ContainerPort
		}
	}
	return 0
}

// probeListenPort says when a probe is refused on a port while the container's own log
// announces it listens on another one: the application moved (a new base image, a changed
// default) and the probe, containerPort and Service still name the old port.
func probeListenPort(p *corev1.Probe, msg string, c corev1.Container, lines []string) string {
	want := probePort(p, c)
	if want == 0 || !strings.Contains(strings.ToLower(msg), "connection refused") {
		return ""
	}
	var ports []string
	quote := ""
	for _, l := range lines {
		m := listenLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil || n <= 0 || n > 65535 {
			continue
		}
		if int32(n) == want {
			return "" // it does listen there: the refusal has another reason
		}
		if !containsStr(ports, m[1]) {
			ports = append(ports, m[1])
			if quote == "" {
				quote = tools.Sanitize(strings.TrimSpace(l), 160, true)
			}
		}
	}
	if len(ports) == 0 {
		return ""
	}
	return fmt.Sprintf(" The container's log says it listens on port %s (“%s”), not on port %d where the probe is refused: point the probe, the containerPort and the Service's targetPort at %s, or make the application listen on %d again.",
		strings.Join(ports, ", "), quote, want, ports[0], want)
}

// portSetting is the setting of the container whose value holds the port its log says it
// listens on (ASPNETCORE_URLS=http://+:5000, PORT=5000, server.port), when exactly one
// setting's name speaks of a port, a URL or an address; nil otherwise.
func (pc *podCheck) portSetting(ctx context.Context, c corev1.Container, lines []string, refused int32) *configSetting {
	var ports []string
	for _, l := range lines {
		if m := listenLine.FindStringSubmatch(l); m != nil && m[1] != strconv.Itoa(int(refused)) && !containsStr(ports, m[1]) {
			ports = append(ports, m[1])
		}
	}
	if len(ports) == 0 {
		return nil
	}
	settings := pc.e.configSettings(ctx, pc.pod, c, pc.e.workloadOf(ctx, pc.pod))
	var found []int
	for i, s := range settings {
		if s.secret || s.value == "" || !portName.MatchString(s.name) {
			continue
		}
		for _, p := range ports {
			if portValue(s.value, p) {
				found = append(found, i)
				break
			}
		}
	}
	if len(found) != 1 {
		return nil
	}
	return &settings[found[0]]
}

// portName is a setting name about where a server listens.
var portName = regexp.MustCompile(`(?i)(port|url|urls|listen|bind|addr|address|endpoint)`)

// portValue reports whether value holds port p as a whole number (":5000", "5000").
func portValue(value, p string) bool {
	for i := 0; ; {
		j := strings.Index(value[i:], p)
		if j < 0 {
			return false
		}
		s, e := i+j, i+j+len(p)
		if (s == 0 || value[s-1] < '0' || value[s-1] > '9') && (e == len(value) || value[e] < '0' || value[e] > '9') {
			return true
		}
		i = s + 1
	}
}
