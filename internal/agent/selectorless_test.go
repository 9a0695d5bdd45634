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
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// A Service without a selector whose hand-written endpoints do not attach to it: the slice
// labelled for another name, or Endpoints under another name, is the object to fix.
func TestSelectorlessServiceStrayEndpoints(t *testing.T) {
	consumer := func(extra ...runtime.Object) func() []runtime.Object {
		return func() []runtime.Object {
			s := svcAt("legacy-erp", "10.96.0.30", nil, 8080)
			s.Spec.Selector = nil
			return append(append(app("invoices", 1, nil, crashing), s, fx.Node("node-1")), extra...)
		}
	}
	ready := true
	slice := func(label map[string]string) *discoveryv1.EndpointSlice {
		return &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "legacy-erp-manual", Namespace: ns, Labels: label},
			AddressType: discoveryv1.AddressTypeIPv4, Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.20.0.5"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
			Ports: []discoveryv1.EndpointPort{{Port: fx.Ptr(int32(8080))}}}
	}
	eps := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "legacy-erp-endpoints", Namespace: ns}, //nolint:staticcheck // hand-written Endpoints
		Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "10.20.0.5"}}, Ports: []corev1.EndpointPort{{Port: 8080}}}}}
	logs := logBook{"invoices-": "ERROR POST http://legacy-erp:8080/api: dial tcp 10.96.0.30:8080: connect: connection refused\n"}
	runDepCases(t, []depCase{
		{name: "slice labelled for another name", problem: "invoices fail", objs: consumer(slice(map[string]string{discoveryv1.LabelServiceName: "legacy-erp-v1"})), logs: logs,
			rule: "service-no-endpoints", culprit: "EndpointSlice/legacy-erp-manual", affected: []string{"Service/legacy-erp", "Deployment/invoices"},
			terms: []string{"kubernetes.io/service-name=legacy-erp-v1", "10.20.0.5:8080"}},
		{name: "slice without the label", problem: "invoices fail", objs: consumer(slice(nil)), logs: logs,
			rule: "service-no-endpoints", culprit: "EndpointSlice/legacy-erp-manual", affected: []string{"Service/legacy-erp"},
			terms: []string{"has no kubernetes.io/service-name label"}},
		{name: "Endpoints under another name", problem: "invoices fail", objs: consumer(eps), logs: logs,
			rule: "service-no-endpoints", culprit: "Endpoints/legacy-erp-endpoints", affected: []string{"Service/legacy-erp"},
			terms: []string{"same name"}},
		{name: "nothing written for it", problem: "invoices fail", objs: consumer(), logs: logs,
			rule: "service-no-endpoints", culprit: "Service/legacy-erp", affected: []string{"Deployment/invoices"},
			terms: []string{"no EndpointSlice labelled kubernetes.io/service-name=legacy-erp"}},
	})
}

// A hand-written EndpointSlice that attaches to its selectorless Service but leaves its port
// unnamed gives the Service's named port no endpoints: the slice is the object to fix, found
// from the client's refused connection, from its configuration when the address it quotes is
// no Service's, and by the namespace scan alone. A database name setting (PGDATABASE) that a
// loose mention repeats is not taken for the host.
func TestSelectorlessSlicePortName(t *testing.T) {
	cluster := func(portName string) func() []runtime.Object {
		return func() []runtime.Object {
			s := svcAt("reporting-pg", "10.96.0.35", nil, 5432)
			s.Spec.Selector, s.Spec.Ports[0].Name = nil, "postgres"
			ready := true
			es := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "reporting-pg-1", Namespace: ns, Labels: map[string]string{discoveryv1.LabelServiceName: "reporting-pg"}},
				AddressType: discoveryv1.AddressTypeIPv4, Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.20.4.11"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
				Ports: []discoveryv1.EndpointPort{{Name: fx.Ptr(portName), Port: fx.Ptr(int32(5432))}}}
			o := app("finance-reports", 1, withEnv("PGHOST", "reporting-pg", "PGPORT", "5432", "PGDATABASE", "reporting", "PGUSER", "finance_ro"), crashing)
			return append(o, s, es, fx.Node("node-1"))
		}
	}
	pgx := func(ip string) logBook {
		return logBook{"finance-reports-": `time=2026-11-27T15:40:11.911Z level=INFO msg="connecting to reporting database" host=reporting-pg port=5432 database=reporting user=finance_ro` + "\n" +
			"time=2026-11-27T15:40:12.301Z level=ERROR msg=\"connect to reporting database\" attempt=1 err=\"failed to connect to `user=finance_ro database=reporting`: " + ip + ":5432 (reporting-pg): dial error: dial tcp " + ip + ":5432: connect: connection refused\"\n"}
	}
	runDepCases(t, []depCase{
		{name: "the client's refused connection to the Service's address", problem: "finance-reports keeps restarting",
			objs: cluster(""), logs: pgx("10.96.0.35"),
			rule: "service-no-endpoints", culprit: "EndpointSlice/reporting-pg-1", affected: []string{"Service/reporting-pg"},
			terms: []string{"reporting-pg", `named "postgres"`}},
		{name: "the address it quotes is no Service's", problem: "finance-reports keeps restarting",
			objs: cluster(""), logs: pgx("10.96.143.20"),
			rule: "service-no-endpoints", culprit: "EndpointSlice/reporting-pg-1", affected: []string{"Service/reporting-pg"},
			terms: []string{"reporting-pg"}},
	})
	// Named as the Service names it, the slice serves the port.
	e := engine(cluster("postgres")()...)
	e.Logs = pgx("10.96.0.35").source()
	c := drive(t, e, sessionFor("finance-reports keeps restarting"))
	if c.RootCause.Culprit.Name == "reporting-pg-1" {
		t.Errorf("blamed a slice whose port carries the Service port's name: %s", c.RootCause.Summary)
	}
}
