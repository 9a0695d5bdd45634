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
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	fx "github.com/kubage/kubage/test/fixtures"
)

// The same fault, spelt the ways clusters we did not write spell an address, must lead to the
// same provider. The fault: the consumer's provider Service has a selector that matches no pod.

// brokenProvider is a crash-looping consumer (configured by spec) and a provider Service
// name:port at ip whose selector misses the provider's pods.
func brokenProvider(consumer, name, ip string, port int32, spec func(*corev1.PodSpec), extra ...runtime.Object) func() []runtime.Object {
	return func() []runtime.Object {
		o := app(consumer, 1, spec, crashing)
		o = append(o, app(name, 1, nil, nil)...)
		return append(append(o, svcAt(name, ip, map[string]string{"app": name + "-primary"}, port), fx.Node("node-1")), extra...)
	}
}

func withArgs(args ...string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) { s.Containers[0].Args = args }
}

func TestAddressFormsInText(t *testing.T) {
	lines := map[string]string{
		"raw ClusterIP in dial":      "ERROR store: dial tcp 10.96.3.7:5432: connect: connection refused",
		"postgres URL with password": `FATAL could not connect to postgres://app:s3cr3t@ledger:5432/ledger?sslmode=disable: connection refused`,
		"jdbc URL":                   "org.postgresql.util.PSQLException: Connection to jdbc:postgresql://ledger.payments.svc.cluster.local:5432/ledger refused. Check that the hostname and port are correct",
		"mysql URL":                  "ERROR dial mysql://root:pw@ledger.payments:5432/app failed: connection refused",
		"mongodb+srv URL":            "MongoServerSelectionError: connect ECONNREFUSED for mongodb+srv://u:p@ledger.payments.svc/?retryWrites=true",
		"FQDN with trailing dot":     "ERROR dial tcp ledger.payments.svc.cluster.local.:5432: connect: connection refused",
		"svc.ns.svc":                 "error: Get \"http://ledger.payments.svc:5432/v1/health\": dial tcp 10.96.3.7:5432: connect: connection refused",
		"kafka broker list":          "ERROR [Producer clientId=app] Connection to node -1 (ledger/10.96.3.7:5432) could not be established. Broker may not be available. bootstrap.servers=ledger:5432,ledger-1.ledger:5432",
		"redis sentinels":            "ERROR redis: all sentinels are unreachable: dial tcp ledger:5432: connect: connection refused",
		"amqp URL":                   "Error: connect ECONNREFUSED amqp://guest:guest@ledger:5432/%2f",
		"IPv6 ClusterIP":             "ERROR store: dial tcp [fd00:10:96::3:7]:5432: connect: connection refused",
		"python refused":             "psycopg2.OperationalError: could not connect to server: Connection refused. Is the server running on host \"ledger\" (10.96.3.7) and accepting TCP/IP connections on port 5432?",
	}
	var cases []depCase
	for name, line := range lines {
		objs := brokenProvider("billing", "ledger", "10.96.3.7", 5432, nil)
		dualStack := func() []runtime.Object {
			o := objs()
			for _, x := range o {
				if s, ok := x.(*corev1.Service); ok {
					s.Spec.ClusterIPs = []string{s.Spec.ClusterIP, "fd00:10:96::3:7"}
				}
			}
			return o
		}
		cases = append(cases, depCase{name: name, problem: "billing keeps crashing",
			objs: dualStack,
			logs: logBook{"billing-": "INFO starting\n" + line + "\nINFO exiting\n"},
			rule: "service-selector-mismatch", culprit: "Service/ledger", affected: []string{"Deployment/billing"},
			terms: []string{"app=ledger-primary"}})
	}
	runDepCases(t, cases)
}

func TestAddressFormsInConfig(t *testing.T) {
	forms := map[string]func(*corev1.PodSpec){
		"postgres URL env":     withEnv("DATABASE_URL", "postgres://app:s3cr3t@quotes:5432/q?sslmode=disable"),
		"jdbc system property": withArgs("-Dspring.datasource.url=jdbc:postgresql://quotes.payments.svc.cluster.local:5432/q"),
		"--db-host= flag":      withArgs("--db-host=quotes", "--db-port=5432"),
		"--db-host flag apart": withArgs("--db-host", "quotes.payments.svc", "--log-level", "debug"),
		"$(VAR) interpolation": func(s *corev1.PodSpec) {
			withEnv("DB_SERVICE", "quotes")(s)
			s.Containers[0].Args = []string{"--dsn=postgres://$(DB_SERVICE):5432/q"}
		},
		"broker list env":       withEnv("KAFKA_BOOTSTRAP_SERVERS", "quotes:5432,quotes.payments:5432"),
		"trailing dot FQDN env": withEnv("DB_HOST", "quotes.payments.svc.cluster.local."),
		"redis URL env":         withEnv("CACHE", "redis://:pw@quotes.payments:5432/0"),
	}
	var cases []depCase
	for name, spec := range forms {
		cases = append(cases, depCase{name: name, problem: "pricing keeps crashing",
			objs: brokenProvider("pricing", "quotes", "10.96.8.8", 5432, spec),
			logs: nil,
			rule: "service-selector-mismatch", culprit: "Service/quotes", affected: []string{"Deployment/pricing"},
			terms: []string{"app=quotes-primary"}})
	}
	cases = append(cases, depCase{name: "envFrom ConfigMap holds the URL", problem: "pricing keeps crashing",
		objs: brokenProvider("pricing", "quotes", "10.96.8.8", 5432, envFrom("pricing-env"), cmWith("pricing-env", "SPRING_DATASOURCE_URL", "jdbc:postgresql://quotes:5432/q")),
		logs: nil, rule: "service-selector-mismatch", culprit: "Service/quotes", affected: []string{"Deployment/pricing"}})
	runDepCases(t, cases)
}

// A healthy provider called on a port its Service does not expose, the port spelt apart from
// the host, composed with $(VAR), or passed as a flag.
func TestPortFormsInConfig(t *testing.T) {
	forms := map[string]func(*corev1.PodSpec){
		"URL":                 withEnv("SEARCH_URL", "http://catalog.payments.svc:9201/_search"),
		"HOST and PORT apart": withEnv("CATALOG_HOST", "catalog", "CATALOG_PORT", "9201"),
		"camelCase pair":      withEnv("catalogHost", "catalog.payments", "catalogPort", "9201"),
		"$(VAR) composition": func(s *corev1.PodSpec) {
			withEnv("ES_PORT", "9201")(s)
			s.Containers[0].Args = []string{"--es=http://catalog:$(ES_PORT)"}
		},
		"flags apart": withArgs("--catalog-host", "catalog", "--catalog-port=9201"),
	}
	var cases []depCase
	for name, spec := range forms {
		cases = append(cases, depCase{name: name, problem: "search keeps crashing",
			objs: func() []runtime.Object {
				o := app("search", 1, spec, crashing)
				o = append(o, app("catalog", 1, nil, nil)...)
				return append(o, svcAt("catalog", "10.96.9.9", map[string]string{"app": "catalog"}, 9200), fx.Node("node-1"))
			},
			logs: nil, rule: "dependency-port-mismatch", culprit: "Deployment/search", affected: []string{"Service/catalog"},
			terms: []string{"9201", "9200"}})
	}
	runDepCases(t, cases)
}

// A pod IP in the text (client-side balancing, a headless Service) leads to the Service that
// selects the pod holding it, and on to what is wrong on the way.
func TestPodIPInText(t *testing.T) {
	withIP := func(ip string) func(*corev1.Pod) { return func(p *corev1.Pod) { p.Status.PodIP = ip } }
	provider := func(clusterIP string, pod func(*corev1.Pod)) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("risk", 1, nil, func(p *corev1.Pod) { crashing(p); p.Status.PodIP = "10.244.2.2" })
			o = append(o, app("scores", 1, func(s *corev1.PodSpec) {
				s.Containers[0].Ports = []corev1.ContainerPort{{Name: "grpc", ContainerPort: 50051}}
			}, pod)...)
			svc := svcAt("scores", clusterIP, map[string]string{"app": "scores"}, 443)
			svc.Spec.Ports[0].TargetPort = intstr.FromString("grpc")
			pol := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "scores-ingress", Namespace: ns},
				Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "scores"}},
					Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "gateway"}}}}}}}}
			return append(o, svc, pol, fx.Node("node-1"))
		}
	}
	lines := []string{
		`ERROR rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial tcp 10.244.7.3:50051: i/o timeout"`,
		"WARN [Consumer clientId=risk] Connection to node 2 (/10.244.7.3:50051) could not be established. Node may not be available. timed out",
		"Error: connect ETIMEDOUT 10.244.7.3:50051",
	}
	var cases []depCase
	for i, l := range lines {
		for _, cip := range []string{"None", "10.96.5.5"} {
			cases = append(cases, depCase{name: fmt.Sprintf("line %d clusterIP %s", i, cip), problem: "risk keeps restarting",
				objs: provider(cip, withIP("10.244.7.3")), logs: logBook{"risk-": l + "\n"},
				rule: "networkpolicy-deny-ingress", culprit: "NetworkPolicy/scores-ingress", affected: []string{"Deployment/risk", "Service/scores"},
				terms: []string{"scores-ingress"}})
		}
	}
	runDepCases(t, cases)
}

// An address of the cluster's ranges written into the configuration that nothing holds any
// more (a Service recreated with a new ClusterIP), and a bare name the application completes
// with the namespace's domain: the setting is the culprit.
func TestStaleAndCompletedAddresses(t *testing.T) {
	ledger := func(client string, spec func(*corev1.PodSpec), extra ...runtime.Object) func() []runtime.Object {
		return func() []runtime.Object {
			o := app(client, 1, spec, func(p *corev1.Pod) { crashing(p); p.Status.PodIP = "10.244.1.30" })
			o = append(o, app("ledger", 1, nil, nil)...)
			return append(append(o, svcAt("ledger", "10.96.3.99", map[string]string{"app": "ledger"}, 5432), fx.Node("node-1")), extra...)
		}
	}
	cases := []depCase{
		{name: "old ClusterIP in env, Go timeout", problem: "billing keeps crashing",
			objs: ledger("billing", withEnv("DB_ADDR", "10.96.3.7:5432")),
			logs: logBook{"billing-": "FATAL ping db: dial tcp 10.96.3.7:5432: i/o timeout\n"},
			rule: "dependency-host-unknown", culprit: "Deployment/billing", affected: []string{"Service/ledger"}, terms: []string{"10.96.3.7", "ledger:5432", "DB_ADDR"}},
		{name: "old ClusterIP in a ConfigMap URL, Node refused", problem: "billing keeps crashing",
			objs: ledger("billing", envFrom("billing-env"), cmWith("billing-env", "DATABASE_URL", "postgres://billing@10.96.3.7:5432/billing")),
			logs: logBook{"billing-": "Error: connect ECONNREFUSED 10.96.3.7:5432\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)\n"},
			rule: "dependency-host-unknown", culprit: "ConfigMap/billing-env", affected: []string{"Deployment/billing"}, terms: []string{"10.96.3.7", "DATABASE_URL"}},
		{name: "old ClusterIP in a ConfigMap, logs unreachable", problem: "billing keeps crashing",
			objs: ledger("billing", envFrom("billing-env"), cmWith("billing-env", "DATABASE_URL", "postgres://billing@10.96.3.7:5432/billing")),
			logs: nil,
			rule: "dependency-host-unknown", culprit: "ConfigMap/billing-env", affected: []string{"Deployment/billing"}, terms: []string{"10.96.3.7"}},
		{name: "an address outside the cluster is not called stale", problem: "billing keeps crashing",
			objs: ledger("billing", withEnv("DB_ADDR", "203.0.113.5:5432")),
			logs: logBook{"billing-": "FATAL ping db: dial tcp 203.0.113.5:5432: i/o timeout\n"},
			rule: "crash-loop", culprit: "Deployment/billing", terms: []string{"203.0.113.5"}},
		{name: "a bare name the application completes with the domain", problem: "billing keeps crashing",
			objs: ledger("billing", envFrom("billing-env"), cmWith("billing-env", "DB_NAME_HOST", "ledger-pg")),
			logs: logBook{"billing-": "FATAL dial tcp: lookup ledger-pg.payments.svc.cluster.local on 10.96.0.10:53: no such host\n"},
			rule: "dependency-host-unknown", culprit: "ConfigMap/billing-env", affected: []string{"Deployment/billing"}, terms: []string{"ledger-pg", "billing-env"}},
	}
	runDepCases(t, cases)
}

// A name no Service has, in the words of each runtime's resolver: the setting holding it is
// the culprit every time.
func TestUnknownHostForms(t *testing.T) {
	lines := map[string]string{
		"go":            `dial tcp: lookup pg-primary on 10.96.0.10:53: no such host`,
		"go FQDN dot":   `dial tcp: lookup pg-primary.payments.svc.cluster.local.: no such host`,
		"node":          `Error: getaddrinfo ENOTFOUND pg-primary`,
		"node again":    `Error: getaddrinfo EAI_AGAIN pg-primary:5432`,
		"java":          `java.net.UnknownHostException: pg-primary: Name or service not known`,
		"libpq":         `psql: error: could not translate host name "pg-primary" to address: Name or service not known`,
		"php":           `PDOException: SQLSTATE[08006] [7] php_network_getaddresses: getaddrinfo for pg-primary failed: Name or service not known`,
		"python urllib": `urllib3.exceptions.NameResolutionError: Failed to resolve 'pg-primary' ([Errno -2] Name or service not known)`,
		"curl":          `curl: (6) Could not resolve host: pg-primary`,
		"dotnet":        `System.Net.Sockets.SocketException (00000001, 11): No such host is known. (pg-primary:5432)`,
		"kafka":         `Couldn't resolve server pg-primary:5432 from bootstrap.servers as DNS resolution failed for pg-primary`,
	}
	var cases []depCase
	for name, line := range lines {
		cases = append(cases, depCase{name: name, problem: "web keeps crashing",
			objs: func() []runtime.Object {
				o := app("web", 1, envFrom("web-config"), crashing)
				return append(o, cmWith("web-config", "DB_HOST", "pg-primary", "DB_PORT", "5432"), svcAt("postgres", "10.96.3.3", map[string]string{"app": "postgres"}, 5432), fx.Node("node-1"))
			},
			logs: logBook{"web-": "INFO boot\nERROR " + line + "\nINFO exiting\n"},
			rule: "dependency-host-unknown", culprit: "ConfigMap/web-config", affected: []string{"Deployment/web"},
			terms: []string{"pg-primary", "DB_HOST"}})
	}
	runDepCases(t, cases)
}

// A StatefulSet pod's DNS name, in its short and long spellings, leads through its headless
// Service to the pod's own failure.
func TestPodDNSNameForms(t *testing.T) {
	forms := []string{"ledger-0.ledger", "ledger-0.ledger.payments", "ledger-0.ledger.payments.svc", "ledger-0.ledger.payments.svc.cluster.local", "ledger-0.ledger.payments.svc.cluster.local."}
	var cases []depCase
	for _, f := range forms {
		objs := func() []runtime.Object {
			o := app("billing", 1, withEnv("LEDGER_DSN", "postgres://billing@"+f+":5432/ledger"), crashing)
			o = append(o, app("ledger", 1, nil, func(p *corev1.Pod) {
				fx.CrashLoop(p, 1, "Error", 4)
				p.Status.ContainerStatuses[0].LastTerminationState.Terminated.Message = `FATAL:  could not open file "global/pg_filenode.map": Permission denied`
			})...)
			return append(o, svcAt("ledger", "None", map[string]string{"app": "ledger"}, 5432), fx.Node("node-1"))
		}
		cases = append(cases,
			depCase{name: f + " in text", problem: "billing keeps crashing", objs: objs,
				logs: logBook{"billing-": "FATAL dial tcp " + f + ":5432: connect: connection refused\n", "ledger-": "INFO\n"},
				rule: "crash-loop", culprit: "Deployment/ledger", affected: []string{"Service/ledger"}, terms: []string{"pg_filenode.map"}},
			depCase{name: f + " in config", problem: "billing keeps crashing", objs: objs, logs: nil,
				rule: "crash-loop", culprit: "Deployment/ledger", affected: []string{"Service/ledger"}, terms: []string{"pg_filenode.map"}})
	}
	runDepCases(t, cases)
}
