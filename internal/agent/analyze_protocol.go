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
	"strings"
)

// A client that speaks TLS to a port serving plain HTTP, or plain HTTP to a TLS port, gets an
// answer it cannot read: "http: server gave HTTP response to HTTPS client", "wrong version
// number", "first record does not look like a TLS handshake", "plain HTTP request was sent to
// HTTPS port". No certificate is at fault; the scheme or port in the client's address is.

// protocolNeedles map the words of each side of the mismatch to what the client did.
var protocolNeedles = []struct{ needle, client string }{
	{"server gave http response to https client", "speaks TLS (https) to a port that serves plain HTTP"},
	{"first record does not look like a tls handshake", "speaks TLS to a port that answers in plain text"},
	{"wrong version number", "speaks TLS to a port that answers in plain text"},
	{"packet length too long", "speaks TLS to a port that answers in plain text"},
	{"plain http request was sent to https port", "speaks plain HTTP to a port that serves HTTPS"},
	{"client sent an http request to an https server", "speaks plain HTTP to a port that serves HTTPS"},
	{"malformed http response", "speaks plain HTTP to a port that answers with TLS or another protocol"},
	{"server gave https response to http client", "speaks plain HTTP to a port that serves HTTPS"},
}

// protocolMismatch reports a scheme that does not match what the port serves.
func (pc *podCheck) protocolMismatch(ctx context.Context, d *depCheck) bool {
	low := strings.ToLower(d.clue.Line)
	what := ""
	for _, n := range protocolNeedles {
		if strings.Contains(low, n.needle) {
			what = n.client
			break
		}
	}
	if what == "" {
		return false
	}
	e := pc.e
	wl := e.workloadOf(ctx, pc.pod)
	var src *valueSource
	addr := ""
	for _, h := range d.clue.Hosts {
		if src = pc.findValue(ctx, d, h.String()); src == nil {
			src = pc.findValue(ctx, d, h.Host)
		}
		if src != nil {
			addr = h.String()
			break
		}
	}
	if src == nil {
		// The text may name no host: the configured addresses with a scheme are the candidates.
		for _, ch := range pc.configuredHosts(ctx, d) {
			if ch.addr {
				if src = pc.findValue(ctx, d, ch.host.Host); src != nil {
					addr = ch.host.String()
					break
				}
			}
		}
	}
	facts := map[string]string{"sourceResource": kubectlResource(wl)}
	culprit := wl
	var extra []ObjectRef
	msg := fmt.Sprintf("%s: the client %s; no certificate is at fault, the scheme or port of the address it calls is", d.opening(), what)
	if src != nil {
		culprit = src.ref
		extra = append(extra, src.ref)
		facts["sourceResource"], facts["source"], facts["key"] = kubectlResource(src.ref), src.where, src.key
		msg += fmt.Sprintf(" (%s, set in %s: %s). Use the scheme the port serves (http:// or https://), or the Service's other port.", addr, src.where, src.value)
		d.evIDs = append(d.evIDs, e.objEvidence(src.ref, fmt.Sprintf("%s: %s", src.where, src.value)))
	} else {
		msg += ". Use the scheme the port serves (http:// or https://), or the Service's other port."
	}
	d.report(ctx, "dependency-protocol-mismatch", 0, culprit, msg, nil, extra, facts)
	return true
}
