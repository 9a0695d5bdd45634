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
	"encoding/pem"
	"math/big"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Builders for wave 19b: tickets from application teams whose service broke after a change by
// them or by someone else (a shared ConfigMap or Secret, a policy, a Role, a LimitRange).

// Outside sources the wave was written from.
const (
	w19bSrcNamedPort     = "https://kubernetes.io/docs/concepts/services-networking/network-policies/ (ports[].port may be a named port, resolved against the selected pods' container ports); https://github.com/ahmetb/kubernetes-network-policy-recipes/issues/33 (refer to the port names)"
	w19bSrcLegacyCN      = "https://go.dev/doc/go1.15#commonname (CommonName no longer treated as a host name without SANs); https://github.com/linkerd/linkerd2/issues/4945 (x509: certificate relies on legacy Common Name field, use SANs)"
	w19bSrcPHPMemory     = "https://dev.acquia.com/blog/conditionally-increase-php-memory-limit-drupal (PHP Fatal error: Allowed memory size of 134217728 bytes exhausted, the php.ini memory_limit of 128M)"
	w19bSrcPrisma        = "https://github.com/prisma/orm/issues/8498 (passwords containing # give 'invalid port number in database URL'); https://github.com/linkwarden/linkwarden/issues/519 (Error: P1013: The provided database string is invalid)"
	w19bSrcResourceNames = "https://github.com/operator-framework/operator-controller/issues/1195 (list requests fail due to resourceNames in the RBAC rule); https://kubernetes.io/docs/reference/access-authn-authz/rbac/#referring-to-resources (list/watch cannot be restricted by resourceNames without a metadata.name field selector)"
	w19bSrcKestrelURLS   = "https://github.com/dotnet/aspnetcore/pull/44194 (warn: Overriding HTTP_PORTS ... Binding to values defined by URLS instead); https://learn.microsoft.com/en-us/dotnet/core/compatibility/containers/8.0/aspnet-port (ASPNETCORE_HTTP_PORTS=8080 in .NET 8 images)"
	w19bSrcCronLabels    = "https://github.com/kokuwaio/helm-charts/issues/173 (CronJob labels not applied to its pods, so no NetworkPolicy matches them; set spec.jobTemplate.spec.template.metadata.labels); https://github.com/kubernetes/kubernetes/issues/80330"
	w19bSrcLimitDefault  = "k8s-docs/concepts/policy/limit-range.md (a LimitRange's default limits are applied to containers that set none); k8s-docs/tasks/configure-pod-container/assign-cpu-resource.md (a CPU limit throttles the container)"
)

// w19bService is w8bService pinned to clusterIP (an address the clients' error texts quote).
func w19bService(name string, sel map[string]string, portName string, number int32, clusterIP string) *corev1.Service {
	s := w8bService(name, sel, portName, number)
	s.Spec.ClusterIP = clusterIP
	return s
}

// w19bNamedPortPolicy is an ingress NetworkPolicy for pods sel admitting pods from on the TCP
// port named portName (resolved against the container ports of the pods sel selects).
func w19bNamedPortPolicy(name string, sel, from map[string]string, portName string) *networkingv1.NetworkPolicy {
	tcp := corev1.ProtocolTCP
	return w13bIngressPolicy(name, sel, networkingv1.NetworkPolicyIngressRule{
		From:  []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: from}}},
		Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: ptr.To(intstr.FromString(portName))}},
	})
}

// w19bCNOnlyCert creates kubernetes.io/tls Secret name with a self-signed certificate whose
// subject CommonName is cn and which carries no subjectAltName (an internal CA's older
// openssl recipe), and ConfigMap caName with that certificate as ca.crt for the clients.
func (e *Env) w19bCNOnlyCert(ctx context.Context, name, caName, cn string) error {
	key, err := newKey()
	if err != nil {
		return err
	}
	now := time.Now()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(now.UnixNano()), Subject: pkix.Name{CommonName: cn, Organization: []string{"Example Retail Internal CA"}},
		NotBefore: now.Add(-30 * 24 * time.Hour), NotAfter: now.Add(335 * 24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	crt, err := selfSignedPEM(tmpl, key)
	if err != nil {
		return err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	_, err = e.Client.CoreV1().Secrets(e.Namespace).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})},
	}, metav1.CreateOptions{})
	if err != nil {
		return wrap("Secret", name, err)
	}
	return e.createConfigMap(ctx, caName, map[string]string{"ca.crt": string(crt)})
}

// w19bLiveness is an HTTP liveness probe on path and a named port, started after delay seconds.
func w19bLiveness(path, portName string, delay, period, failures int32) *corev1.Probe {
	return &corev1.Probe{
		ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString(portName)}},
		InitialDelaySeconds: delay, PeriodSeconds: period, TimeoutSeconds: 1, FailureThreshold: failures,
	}
}

// w19bSubPathConfigMap mounts key of ConfigMap cm as the single file path in the first
// container (a drop-in configuration file).
func w19bSubPathConfigMap(t *corev1.PodTemplateSpec, cm, key, path string) {
	t.Spec.Volumes = append(t.Spec.Volumes, w11bConfigMapVolume(cm))
	c := &t.Spec.Containers[0]
	c.VolumeMounts = append(c.VolumeMounts, w11bMount(cm, path, key))
}

// w19bServeOn creates Deployment d and a Service of the same name on port number, to the
// container port named portName (the nginx sidecar of a php-fpm pod, not the first container).
func (e *Env) w19bServeOn(ctx context.Context, d *appsv1.Deployment, portName string, number int32) error {
	if err := e.createDeployment(ctx, d); err != nil {
		return err
	}
	return e.createService(ctx, w10aServiceTo(d.Name, d.Spec.Template.Labels, portName, number, portName))
}
