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

package alerts

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// selfSigned writes a certificate and key for 127.0.0.1 and returns their paths.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kubage-alerts"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

func TestServerTLS(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t)
	c := fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}).Build()
	proc := NewProcessor(c, c, StaticPolicy{P: mustPolicy(t, DefaultPolicy())}, ProcessorOptions{})
	srv := NewServer(NewHandler(proc, StaticToken(testToken), HandlerOptions{}), ServerOptions{Address: "127.0.0.1:0", CertFile: certFile, KeyFile: keyFile})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	addr := srv.Addr(ctx)
	url := "https://" + addr.String() + Path

	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(string(readTestdata(t, "crashloop_firing.json"))))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+testToken)
	res, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.TLS == nil {
		t.Fatalf("over TLS: %d", res.StatusCode)
	}
	// Go's TLS server answers plain HTTP with a bare 400 before any handler runs.
	if res, err := http.Post("http://"+addr.String()+Path, "application/json", strings.NewReader("{}")); err == nil {
		res.Body.Close()
		if res.StatusCode != http.StatusBadRequest {
			t.Fatalf("plain HTTP on the TLS port: %d", res.StatusCode)
		}
	}
}

func TestServerRefusesHalfTLS(t *testing.T) {
	srv := NewServer(http.NotFoundHandler(), ServerOptions{Address: "127.0.0.1:0", CertFile: "x.crt"})
	if err := srv.Start(context.Background()); err == nil {
		t.Fatal("a certificate without a key was accepted")
	}
}
