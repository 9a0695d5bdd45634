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
	"net"
	"strings"
)

// hostScope says where a host name points.
type hostScope int

const (
	hostInNamespace hostScope = iota // a Service name in the session namespace
	hostOtherNS                      // name.other-namespace[.svc…]
	hostIP
	hostExternal
)

// classifyHost reads a host the way cluster DNS resolves it: name, name.ns, name.ns.svc and
// name.ns.svc.cluster.local are Services; anything else with dots is outside the cluster.
func classifyHost(h, ns string) (string, string, hostScope) {
	if net.ParseIP(h) != nil {
		return h, "", hostIP
	}
	h = strings.TrimSuffix(strings.TrimSuffix(h, "."), ".cluster.local")
	parts := strings.Split(h, ".")
	switch {
	case len(parts) == 1:
		return parts[0], ns, hostInNamespace
	case len(parts) == 3 && parts[2] == "svc", len(parts) == 2 && !looksLikeTLD(parts[1]):
		if parts[1] == ns {
			return parts[0], ns, hostInNamespace
		}
		return parts[0], parts[1], hostOtherNS
	}
	return h, "", hostExternal
}

// looksLikeTLD keeps "example.com" from being read as Service example in namespace com.
func looksLikeTLD(s string) bool {
	switch s {
	case "com", "net", "org", "io", "dev", "cloud", "co", "app", "internal", "local", "localdomain", "lan", "corp", "example", "test", "invalid", "aws", "gov", "edu", "info", "biz", "ai":
		return true
	}
	return len(s) == 2 // country codes
}
