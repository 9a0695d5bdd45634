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
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Builders for wave 8b: teams that label by app.kubernetes.io/* (or by their chart's own
// keys), name their ports, and read their settings from ConfigMaps and Secrets.

// w8bLabels are the recommended labels of one component of an application.
func w8bLabels(name, partOf string, extra ...string) map[string]string {
	l := map[string]string{"app.kubernetes.io/name": name, "app.kubernetes.io/part-of": partOf}
	for i := 0; i+1 < len(extra); i += 2 {
		l[extra[i]] = extra[i+1]
	}
	return l
}

// w8bDeployment is a Deployment of replicas pods labelled lbl, serving portName/portNumber.
func w8bDeployment(name, image string, replicas int32, lbl, ann map[string]string, portName string, portNumber int32) *appsv1.Deployment {
	d := labelledDeployment(name, image, lbl, ann)
	d.Spec.Replicas = ptr.To(replicas)
	if portName == "" {
		d.Spec.Template.Spec.Containers[0].Ports = nil
	} else {
		port(&d.Spec.Template, portName, portNumber)
	}
	return d
}

// w8bStatefulSet is a StatefulSet of replicas pods labelled lbl, governed by Service governing.
func w8bStatefulSet(name, image, governing string, replicas int32, lbl, ann map[string]string, portName string, portNumber int32) *appsv1.StatefulSet {
	t := template(name, image, ann)
	t.Labels = lbl
	port(&t, portName, portNumber)
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbl},
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To(replicas), ServiceName: governing,
			PodManagementPolicy: appsv1.ParallelPodManagement,
			Selector:            &metav1.LabelSelector{MatchLabels: lbl},
			Template:            t,
		},
	}
}

// w8bService is a ClusterIP Service on port, to the named container port, selecting sel.
func w8bService(name string, sel map[string]string, portName string, number int32) *corev1.Service {
	s := service(name, sel, intstr.FromString(portName))
	s.Spec.Ports[0].Name, s.Spec.Ports[0].Port = portName, number
	return s
}

// w8bHeadless is the headless governing Service of a StatefulSet.
func w8bHeadless(name string, sel map[string]string, portName string, number int32) *corev1.Service {
	s := w8bService(name, sel, portName, number)
	s.Spec.ClusterIP = corev1.ClusterIPNone
	s.Spec.PublishNotReadyAddresses = true
	return s
}

// w8bEnv appends plain environment variables (name, value pairs) to the first container.
func w8bEnv(t *corev1.PodTemplateSpec, kv ...string) {
	c := &t.Spec.Containers[0]
	for i := 0; i+1 < len(kv); i += 2 {
		c.Env = append(c.Env, corev1.EnvVar{Name: kv[i], Value: kv[i+1]})
	}
}

// w8bReadiness probes path on the first container's named port every period seconds.
func w8bReadiness(t *corev1.PodTemplateSpec, path, portName string, period int32) {
	t.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: period, FailureThreshold: 3,
		ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString(portName)}}}
}

// w8bClaimTemplate gives a StatefulSet a volume claim template name of size in StorageClass
// "manual" (the class of createStaticPV), mounted at path in the first container.
func w8bClaimTemplate(st *appsv1.StatefulSet, name, size, path string) {
	st.Spec.VolumeClaimTemplates = append(st.Spec.VolumeClaimTemplates, corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: ptr.To("manual"),
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}},
		},
	})
	c := &st.Spec.Template.Spec.Containers[0]
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: name, MountPath: path})
}

// w8bSecretBytes creates Secret name with data exactly as given (a value the way
// `echo ... | base64` wrote it, newline included).
func (e *Env) w8bSecretBytes(ctx context.Context, name string, data map[string]string) error {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}, Type: corev1.SecretTypeOpaque, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	_, err := e.Client.CoreV1().Secrets(e.Namespace).Create(ctx, s, metav1.CreateOptions{})
	return wrap("Secret", name, err)
}

// w8bMismatchedTLSSecret creates a kubernetes.io/tls Secret whose certificate (valid now, for
// host) was issued for one key while tls.key holds another: a renewal that replaced only the
// certificate.
func (e *Env) w8bMismatchedTLSSecret(ctx context.Context, name, host string) error {
	issued, err := newKey()
	if err != nil {
		return err
	}
	stale, err := newKey()
	if err != nil {
		return err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(now.Unix()),
		Subject:      pkix.Name{CommonName: host, Organization: []string{"partners"}},
		DNSNames:     []string{host},
		NotBefore:    now.Add(-24 * time.Hour),
		NotAfter:     now.Add(89 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	return e.createTLSSecret(ctx, name, tmpl, issued, stale)
}

// w8bCAPEM is the PEM of a self-signed root CA named cn, as a team's internal CA bundle holds.
func w8bCAPEM(cn string) (string, error) {
	key, err := newKey()
	if err != nil {
		return "", err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(now.UnixNano()), Subject: pkix.Name{CommonName: cn, Organization: []string{"ACME Corp"}},
		NotBefore: now.Add(-365 * 24 * time.Hour), NotAfter: now.Add(9 * 365 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	cert, err := selfSignedPEM(tmpl, key)
	return string(cert), err
}
