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

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Builders for wave 9a: the namespaces of teams that run widely deployed charts and
// operators themselves (ingress-nginx, cert-manager, external-dns, Argo CD, Loki, Velero,
// a Patroni cluster), with the charts' own labels and the objects those charts create.

// w9aIngress routes host (path) to svc's named port under IngressClass class, with the
// team's annotations and, when tlsSecret is set, TLS from that Secret.
func w9aIngress(name, class, host, path, svc, portName string, ann map[string]string, tlsSecret string) *networkingv1.Ingress {
	i := &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: ann},
		Spec: networkingv1.IngressSpec{
			IngressClassName: ptr.To(class),
			Rules: []networkingv1.IngressRule{{
				Host: host,
				IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
					Paths: []networkingv1.HTTPIngressPath{{
						Path: path, PathType: ptr.To(networkingv1.PathTypePrefix),
						Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
							Name: svc, Port: networkingv1.ServiceBackendPort{Name: portName},
						}},
					}},
				}},
			}},
		},
	}
	if tlsSecret != "" {
		i.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{host}, SecretName: tlsSecret}}
	}
	return i
}

// w9aClusterRoleBinding binds the scenario's ClusterRole clusterRole (ClusterName) to
// ServiceAccount sa of the namespace, removed by Cleanup.
func (e *Env) w9aClusterRoleBinding(ctx context.Context, name, clusterRole, sa string) error {
	b := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: e.ClusterName(name), Labels: map[string]string{LabelScenario: e.Namespace}},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa, Namespace: e.Namespace}},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: e.ClusterName(clusterRole)},
	}
	if _, err := e.Client.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
		return wrap("ClusterRoleBinding", b.Name, err)
	}
	e.onCleanup(func(ctx context.Context) error {
		return ignoreNotFound(e.Client.RbacV1().ClusterRoleBindings().Delete(ctx, b.Name, metav1.DeleteOptions{}))
	})
	return nil
}

// w9aIngressNginx installs a namespaced ingress-nginx controller (the chart's Deployment,
// Service and ConfigMap ingress-nginx-controller, and IngressClass class as ClusterName)
// serving logs/<logs>.log, and returns the IngressClass name Ingresses must use.
func (e *Env) w9aIngressNginx(ctx context.Context, class, version, logs string, config map[string]string) (string, error) {
	ctrl := w8cLabels("app.kubernetes.io/name", "ingress-nginx", "app.kubernetes.io/instance", "ingress-nginx", "app.kubernetes.io/component", "controller")
	className := e.ClusterName(class)
	err := steps(
		func() error { return e.createIngressClassNamed(ctx, class, "k8s.io/ingress-nginx-"+class) },
		func() error { return e.createConfigMap(ctx, "ingress-nginx-controller", config) },
		func() error {
			d := w8bDeployment("ingress-nginx-controller", "registry.k8s.io/ingress-nginx/controller:"+version, 2, ctrl, running(logs), "http", 80)
			d.Spec.Template.Spec.Containers[0].Ports = append(d.Spec.Template.Spec.Containers[0].Ports,
				corev1.ContainerPort{Name: "https", ContainerPort: 443}, corev1.ContainerPort{Name: "metrics", ContainerPort: 10254})
			w8cArgs(&d.Spec.Template, "/nginx-ingress-controller", "--election-id=ingress-nginx-leader",
				"--controller-class=k8s.io/ingress-nginx-"+class, "--ingress-class="+className,
				"--configmap=$(POD_NAMESPACE)/ingress-nginx-controller", "--watch-namespace=$(POD_NAMESPACE)")
			d.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "POD_NAMESPACE", ValueFrom: &corev1.EnvVarSource{
				FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}}}
			d.Spec.Template.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 10,
				ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt(10254)}}}
			return e.createDeployment(ctx, d)
		},
		func() error {
			s := w8bService("ingress-nginx-controller", ctrl, "http", 80)
			s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: "https", Port: 443, TargetPort: intstr.FromString("https")})
			return e.createService(ctx, s)
		},
	)
	return className, err
}

// w9aJob creates Job j in the namespace.
func (e *Env) w9aJob(ctx context.Context, j *batchv1.Job) error {
	_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
	return wrap("Job", j.Name, err)
}

// w9aEnvFromSecretKey points env var name of every container of t at key of Secret s (the
// way a chart wires one shared password into all its components).
func w9aEnvFromSecretKey(t *corev1.PodTemplateSpec, name, s, key string) {
	for i := range t.Spec.Containers {
		t.Spec.Containers[i].Env = append(t.Spec.Containers[i].Env, corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{
			SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: s}, Key: key}}})
	}
}

// w9aEmptyDir mounts an emptyDir name at path in the first container.
func w9aEmptyDir(t *corev1.PodTemplateSpec, name, path string) {
	t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	t.Spec.Containers[0].VolumeMounts = append(t.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: name, MountPath: path})
}

// w9aTLSSecret creates a kubernetes.io/tls Secret valid now for host, as cert-manager
// leaves one after issuing (self-signed here: nothing in the scenarios checks the chain).
func (e *Env) w9aTLSSecret(ctx context.Context, name, host string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(now.UnixNano()), Subject: pkix.Name{CommonName: host},
		DNSNames: []string{host}, NotBefore: now.Add(-30 * 24 * time.Hour), NotAfter: now.Add(60 * 24 * time.Hour),
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
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{
			"cert-manager.io/certificate-name": name, "cert-manager.io/issuer-kind": "ClusterIssuer", "cert-manager.io/issuer-name": "letsencrypt-production"}},
		Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{
			corev1.TLSCertKey:       pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
			corev1.TLSPrivateKeyKey: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}),
		},
	}
	_, err = e.Client.CoreV1().Secrets(e.Namespace).Create(ctx, s, metav1.CreateOptions{})
	return wrap("Secret", name, err)
}
