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

package agent_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// A healthy Service whose name does not resolve from the client: the client's dnsPolicy or
// dnsConfig is the cause, whatever the runtime's words for a failed lookup and whether the
// error quotes the resolver.
func TestPodDNSSettings(t *testing.T) {
	dns := func(policy corev1.DNSPolicy, hostNet bool, cfg *corev1.PodDNSConfig, more func(*corev1.PodSpec)) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) {
			s.DNSPolicy, s.HostNetwork, s.DNSConfig = policy, hostNet, cfg
			if more != nil {
				more(s)
			}
		}
	}
	cluster := func(client, provider string, spec func(*corev1.PodSpec)) func() []runtime.Object {
		return func() []runtime.Object {
			o := app(client, 1, spec, crashing)
			o = append(o, app(provider, 1, nil, nil)...)
			return append(o, svcAt(provider, "10.96.4.4", map[string]string{"app": provider}, 8080), fx.Node("node-1"))
		}
	}
	cases := []depCase{
		{name: "dnsPolicy Default, Go error quoting the node's resolver", problem: "fraud checks fail",
			objs: cluster("scorer", "rules", dns(corev1.DNSDefault, false, nil, withEnv("RULES_URL", "http://rules:8080/v1"))),
			logs: logBook{"scorer-": "INFO boot\nFATAL load rules: Get \"http://rules:8080/v1\": dial tcp: lookup rules on 192.168.10.2:53: no such host\n"},
			rule: "pod-dns-misconfigured", culprit: "Deployment/scorer", terms: []string{"dnsPolicy: Default", "192.168.10.2"}},
		{name: "hostNetwork with ClusterFirst, Java on a full name", problem: "the agent cannot report",
			objs: cluster("node-agent", "collector", dns("", true, nil, nil)),
			logs: logBook{"node-agent-": "Exception in thread \"main\" java.net.UnknownHostException: collector.payments.svc.cluster.local: Name or service not known\n\tat java.base/java.net.Inet6AddressImpl.lookupAllHostAddr(Native Method)\n"},
			rule: "pod-dns-misconfigured", culprit: "Deployment/node-agent", terms: []string{"ClusterFirstWithHostNet"}},
		{name: "dnsPolicy None without the namespace's search domain, libpq", problem: "orders fail",
			objs: cluster("orders", "orders-db", dns(corev1.DNSNone, false, &corev1.PodDNSConfig{Nameservers: []string{"10.96.0.10"}, Searches: []string{"corp.example.com"}}, withEnv("PGHOST", "orders-db"))),
			logs: logBook{"orders-": "psql: error: could not translate host name \"orders-db\" to address: Name or service not known\n"},
			rule: "pod-dns-misconfigured", culprit: "Deployment/orders", terms: []string{"dnsPolicy: None", "corp.example.com"}},
		{name: "dnsPolicy Default, a lookup error naming no host, URL in env", problem: "fraud checks fail",
			objs: cluster("scorer", "rules", dns(corev1.DNSDefault, false, nil, withEnv("RULES_ENDPOINT", "rules.payments:8080"))),
			logs: logBook{"scorer-": "ERROR socket.gaierror: [Errno -3] Temporary failure in name resolution\n"},
			rule: "pod-dns-misconfigured", culprit: "Deployment/scorer", terms: []string{"rules.payments"}},
		{name: "dnsPolicy Default, logs unreachable, configured to call a Service", problem: "fraud checks fail",
			objs: cluster("scorer", "rules", dns(corev1.DNSDefault, false, nil, withEnv("RULES_URL", "http://rules:8080/v1"))),
			logs: nil,
			rule: "pod-dns-misconfigured", culprit: "Deployment/scorer", terms: []string{"dnsPolicy"}},
		{name: "dnsPolicy None whose searches cover the namespace: a missing Service is still the name's fault", problem: "orders fail",
			objs: cluster("orders", "orders-db", dns(corev1.DNSNone, false, &corev1.PodDNSConfig{Nameservers: []string{"10.96.0.10"}, Searches: []string{"payments.svc.cluster.local", "svc.cluster.local"}}, withEnv("DB_HOST", "orders-pg"))),
			logs: logBook{"orders-": "FATAL dial tcp: lookup orders-pg on 10.96.0.10:53: no such host\n"},
			rule: "dependency-host-unknown", culprit: "Deployment/orders", terms: []string{"orders-pg"}},
		{name: "dnsPolicy None sending lookups to a public resolver, search domains right", problem: "orders fail",
			objs: cluster("orders", "orders-db", dns(corev1.DNSNone, false, &corev1.PodDNSConfig{Nameservers: []string{"1.1.1.1", "8.8.8.8"}, Searches: []string{"payments.svc.cluster.local", "svc.cluster.local", "cluster.local"}}, withEnv("PGHOST", "orders-db"))),
			logs: logBook{"orders-": "FATAL dial tcp: lookup orders-db.payments.svc.cluster.local on 1.1.1.1:53: no such host\n"},
			rule: "pod-dns-misconfigured", culprit: "Deployment/orders", terms: []string{"1.1.1.1", "not the cluster DNS"}},
		{name: "ndots:1 and a name.ns the resolver takes as absolute", problem: "fraud checks fail",
			objs: cluster("scorer", "rules", dns(corev1.DNSClusterFirst, false, &corev1.PodDNSConfig{Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: fx.Ptr("1")}}}, withEnv("RULES_ADDR", "rules.payments:8080"))),
			logs: logBook{"scorer-": "Error: getaddrinfo ENOTFOUND rules.payments\n"},
			rule: "pod-dns-misconfigured", culprit: "Deployment/scorer", terms: []string{"ndots:1", "rules.payments.svc.cluster.local"}},
		{name: "ndots:1 is no fault for a short name: the Service's broken backends are", problem: "fraud checks fail",
			objs: func() []runtime.Object {
				o := app("scorer", 1, dns(corev1.DNSClusterFirst, false, &corev1.PodDNSConfig{Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: fx.Ptr("1")}}}, nil), crashing)
				o = append(o, app("rules", 1, nil, nil)...)
				return append(o, svcAt("rules", "10.96.4.4", map[string]string{"app": "rules-engine"}, 8080), fx.Node("node-1"))
			},
			logs: logBook{"scorer-": "FATAL dial tcp 10.96.4.4:8080: connect: connection refused\n"},
			rule: "service-selector-mismatch", culprit: "Service/rules", terms: []string{"app=rules-engine"}},
	}
	runDepCases(t, cases)
}

// A healthy Service whose name does not resolve from a pod with sound DNS settings is not said
// to answer with errors: the cluster DNS is.
func TestHealthyServiceUnresolvable(t *testing.T) {
	runDepCases(t, []depCase{{name: "ClusterFirst, healthy Service, lookup fails", problem: "fraud checks fail",
		objs: func() []runtime.Object {
			o := app("scorer", 1, withEnv("RULES_URL", "http://rules:8080"), crashing)
			o = append(o, app("rules", 1, nil, nil)...)
			return append(o, svcAt("rules", "10.96.4.4", map[string]string{"app": "rules"}, 8080), fx.Node("node-1"))
		},
		logs: logBook{"scorer-": "FATAL dial tcp: lookup rules on 10.96.0.10:53: server misbehaving\n"},
		rule: "dependency-unreachable", culprit: "Service/rules", affected: []string{"Deployment/scorer"}, terms: []string{"cluster DNS", "ClusterFirst"}}})
}

// An outside name captured by a search domain with a wildcard record: the certificate the
// client gets is valid for that domain, not for the name it asked for.
func TestSearchDomainCapturesOutsideNames(t *testing.T) {
	bot := func(name string, cfg *corev1.PodDNSConfig) func() []runtime.Object {
		return func() []runtime.Object {
			return append(app(name, 1, func(s *corev1.PodSpec) { s.DNSConfig = cfg }, nil), fx.Node("node-1"))
		}
	}
	cases := []depCase{
		{name: "Go x509, default ndots 5", problem: "the bot posts nothing",
			objs: bot("release-bot", &corev1.PodDNSConfig{Searches: []string{"corp.example.com"}}),
			logs: logBook{"release-bot-": "INFO sync\nERROR sync failed: Get \"https://api.github.com/repos\": x509: certificate is valid for *.corp.example.com, corp.example.com, not api.github.com\nINFO sync\nERROR sync failed: Get \"https://api.github.com/repos\": x509: certificate is valid for *.corp.example.com, corp.example.com, not api.github.com\n"},
			rule: "pod-dns-misconfigured", culprit: "Deployment/release-bot", terms: []string{"corp.example.com", "ndots:5", "dnsConfig"}},
		{name: "ndots 3 and another domain", problem: "alerts do not reach chat",
			objs: bot("notifier", &corev1.PodDNSConfig{Searches: []string{"intra.acme.net"}, Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: fx.Ptr("3")}}}),
			logs: logBook{"notifier-": "ERROR post failed: tls: failed to verify certificate: x509: certificate is valid for *.intra.acme.net, not hooks.slack.com\nERROR post failed: tls: failed to verify certificate: x509: certificate is valid for *.intra.acme.net, not hooks.slack.com\n"},
			rule: "pod-dns-misconfigured", culprit: "Deployment/notifier", terms: []string{"intra.acme.net", "ndots:3"}},
	}
	runDepCases(t, cases)
}
