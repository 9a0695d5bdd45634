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
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// certFor is a self-signed, currently valid certificate for the DNS names given.
func certFor(t *testing.T, names ...string) []byte {
	t.Helper()
	return selfSignedPEM(t, &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: names[0]}, DNSNames: names,
		NotBefore: fx.Now.Add(-30 * 24 * time.Hour), NotAfter: fx.Now.Add(60 * 24 * time.Hour)})
}

// "x509: certificate is valid for A, not B" is explained by the certificate the server
// behind B mounts, which names only A: found from the client's log or, with the log
// unreadable, from its termination message.
func TestServerCertificateNameMismatch(t *testing.T) {
	cluster := func(names ...string) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("inventory-sync", 1, nil, func(p *corev1.Pod) {
				crashing(p)
				p.Status.ContainerStatuses[0].LastTerminationState.Terminated.Message = `sync failed: Get "https://erp-gateway:8443/api/v2/stock": tls: failed to verify certificate: x509: certificate is valid for erp-gateway.erp-legacy.svc.cluster.local, not erp-gateway`
			})
			o = append(o, app("erp-gateway", 2, func(s *corev1.PodSpec) {
				s.Volumes = []corev1.Volume{{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "erp-gateway-tls"}}}}
			}, nil)...)
			sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "erp-gateway-tls", Namespace: ns}, Type: corev1.SecretTypeTLS,
				Data: map[string][]byte{"tls.crt": certFor(t, names...), "tls.key": []byte("TOPSECRET")}}
			return append(o, sec, svcAt("erp-gateway", "10.96.0.44", map[string]string{"app": "erp-gateway"}, 8443), fx.Node("node-1"))
		}
	}
	runDepCases(t, []depCase{
		{name: "termination message, logs unreadable", problem: "KubeJobFailed: the inventory sync failed",
			objs: cluster("erp-gateway.erp-legacy.svc.cluster.local"),
			rule: "certificate-name-mismatch", culprit: "Secret/erp-gateway-tls", affected: []string{"Deployment/erp-gateway", "Deployment/inventory-sync"},
			terms: []string{"certificate", "valid only for erp-gateway.erp-legacy.svc.cluster.local", "erp-gateway-tls"}},
	})
	// A certificate that does name the host asked for is not blamed for the name.
	c := cluster("erp-gateway", "erp-gateway.payments.svc")
	e := engine(c()...)
	got := drive(t, e, sessionFor("KubeJobFailed: the inventory sync failed"))
	if got.RootCause.Rule == "certificate-name-mismatch" {
		t.Errorf("blamed a certificate that names the host: %s", got.RootCause.Summary)
	}
	if strings.Contains(got.RootCause.Summary, "TOPSECRET") {
		t.Errorf("the key leaked into the summary")
	}
}
