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
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Builders for wave 10b: small pieces the scenarios of this wave share (nodes of a pool with
// their own labels and taints, downward-API env vars, pod security contexts).

// w10bNode registers a kwok node of the scenario with extra labels and taints (besides the
// scenario's dedicated taint and pool label).
func (e *Env) w10bNode(ctx context.Context, name string, lbl map[string]string, taints ...corev1.Taint) (string, error) {
	n, err := e.createNode(ctx, nodeSpec{name: name, kwok: true, taints: taints})
	if err != nil || len(lbl) == 0 {
		return n, err
	}
	return n, e.labelScenarioNode(ctx, n, lbl)
}

// w10bFieldEnv appends env vars whose values come from the downward API (name, fieldPath pairs).
func w10bFieldEnv(t *corev1.PodTemplateSpec, kv ...string) {
	c := &t.Spec.Containers[0]
	for i := 0; i+1 < len(kv); i += 2 {
		c.Env = append(c.Env, corev1.EnvVar{Name: kv[i], ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: kv[i+1]}}})
	}
}

// w10bRestricted is the pod and container security context the "restricted" Pod Security
// Standard asks for: a non-root user (uid when > 0), no privilege escalation, every capability dropped.
func w10bRestricted(t *corev1.PodTemplateSpec, uid int64) {
	t.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
	if uid > 0 {
		t.Spec.SecurityContext.RunAsUser, t.Spec.SecurityContext.RunAsGroup, t.Spec.SecurityContext.FSGroup = ptr.To(uid), ptr.To(uid), ptr.To(uid)
	}
	for i := range t.Spec.Containers {
		t.Spec.Containers[i].SecurityContext = &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		}
	}
}

// w10bPriorityClass creates PriorityClass ClusterName(name) with its preemption policy,
// removed by Cleanup.
func (e *Env) w10bPriorityClass(ctx context.Context, name string, value int32, policy corev1.PreemptionPolicy, description string) error {
	pc := &schedulingv1.PriorityClass{
		ObjectMeta: metav1.ObjectMeta{Name: e.ClusterName(name), Labels: map[string]string{LabelScenario: e.Namespace}},
		Value:      value, PreemptionPolicy: ptr.To(policy), Description: description,
	}
	if _, err := e.Client.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil {
		return wrap("PriorityClass", pc.Name, err)
	}
	e.onCleanup(func(ctx context.Context) error {
		return ignoreNotFound(e.Client.SchedulingV1().PriorityClasses().Delete(ctx, pc.Name, metav1.DeleteOptions{}))
	})
	return nil
}

// w10bCPU sets the first container's CPU request (and memory request) without limits.
func w10bCPU(t *corev1.PodTemplateSpec, cpu, memory string) {
	t.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}
}

// w10bTLSSecret creates a kubernetes.io/tls Secret with a self-signed certificate for host and
// its matching key (what cert-manager's self-signed issuer would leave).
func (e *Env) w10bTLSSecret(ctx context.Context, name, host string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(now.UnixNano()), Subject: pkix.Name{CommonName: host},
		DNSNames: []string{host, host + "." + e.Namespace + ".svc"}, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(90 * 24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	_, err = e.Client.CoreV1().Secrets(e.Namespace).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{
			corev1.TLSCertKey:       pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
			corev1.TLSPrivateKeyKey: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}),
		},
	}, metav1.CreateOptions{})
	return wrap("Secret", name, err)
}
