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

package scenarios

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// newKey is a fresh P-256 key, the kind cert-manager and most internal CAs issue.
func newKey() (*ecdsa.PrivateKey, error) {
	return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
}

// selfSignedPEM signs tmpl with signer (self-signed) and returns the certificate's PEM.
func selfSignedPEM(tmpl *x509.Certificate, signer *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &signer.PublicKey, signer)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

// createTLSSecret creates kubernetes.io/tls Secret name holding tmpl self-signed by signer as
// tls.crt, and stored as tls.key: stored is signer for a consistent pair, another key for a
// renewal that replaced only one half.
func (e *Env) createTLSSecret(ctx context.Context, name string, tmpl *x509.Certificate, signer, stored *ecdsa.PrivateKey) error {
	cert, err := selfSignedPEM(tmpl, signer)
	if err != nil {
		return err
	}
	kder, err := x509.MarshalECPrivateKey(stored)
	if err != nil {
		return err
	}
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Type:       corev1.SecretTypeTLS,
		Data: map[string][]byte{
			corev1.TLSCertKey:       cert,
			corev1.TLSPrivateKeyKey: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}),
		},
	}
	_, err = e.Client.CoreV1().Secrets(e.Namespace).Create(ctx, s, metav1.CreateOptions{})
	return wrap("Secret", name, err)
}
