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
	"fmt"
	"math/big"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
)

// Builders for wave 20b: "nothing happens" tickets. The object looks healthy; what should act
// on it (a reloader, a sidecar, a consumer, a CronJob, a controller's update strategy) does not.

// Outside sources the wave was written from.
const (
	w20bSrcReloaderMatch = "https://docs.stakater.com/saap/managed-addons/reloader/tutorial/configure-resources.html (reloader.stakater.com/search on the workload only reacts to ConfigMaps annotated reloader.stakater.com/match: \"true\")"
	w20bSrcNoRoute       = "https://github.com/postwait/node-amqp/issues/50 (basicReturn replyCode 312 NO_ROUTE for a mandatory publish no binding matches); https://www.rabbitmq.com/docs/publishers#unroutable"
	w20bSrcGitSyncRef    = "https://github.com/kubernetes/git-sync/issues/917 (GITSYNC_REF / --ref); https://github.com/jorgicio/jorgicio-gentoo-overlay/issues/261 ('fatal: couldn't find remote ref refs/heads/master' after the branch became main)"
	w20bSrcScaleSubres   = "https://github.com/SREGym/SREGym/issues/633 (kubectl scale: cannot patch resource \"deployments/scale\" while patching deployments works)"
	w20bSrcRuleGlob      = "https://github.com/prometheus/prometheus/issues/899 (rule_files: missing files behind a glob are not an error); https://github.com/prometheus/prometheus/pull/6075"
	w20bSrcReloadPort    = "https://github.com/prometheus-community/helm-charts/issues/3055 (configmap-reload webhook-url on the Service port 80: 'error: Post \"http://127.0.0.1:80/-/reload\": ... connection refused')"
	w20bSrcIngressTLS    = "k8s-docs/concepts/services-networking/ingress.md (TLS: the Ingress names the Secret that holds the certificate it serves)"
	w20bSrcDaemonSetOnDe = "https://kubernetes.io/docs/tasks/manage-daemon/update-daemon-set/ (OnDelete: new DaemonSet pods are only created when you manually delete old DaemonSet pods)"
)

// w20bAnnotate merges annotations (key, value pairs) into the Deployment's own metadata.
func w20bAnnotate(d *appsv1.Deployment, kv ...string) *appsv1.Deployment {
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		d.Annotations[kv[i]] = kv[i+1]
	}
	return d
}

// w20bConfigMap creates ConfigMap name with labels and annotations.
func (e *Env) w20bConfigMap(ctx context.Context, name string, lbl, ann, data map[string]string) error {
	_, err := e.Client.CoreV1().ConfigMaps(e.Namespace).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbl, Annotations: ann}, Data: data}, metav1.CreateOptions{})
	return wrap("ConfigMap", name, err)
}

// w20bEditOnce is the user's edit of key in ConfigMap name (to value), made once when ready
// succeeds, so the ConfigMap changes after the pods that read it have started.
func w20bEditOnce(name, key, value string, ready func(context.Context, *Env) error) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		if e.State["edited-"+name] != "" {
			return nil
		}
		if err := ready(ctx, e); err != nil {
			return err
		}
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cm, err := e.Client.CoreV1().ConfigMaps(e.Namespace).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if cm.Data == nil {
				cm.Data = map[string]string{}
			}
			cm.Data[key] = value
			_, err = e.Client.CoreV1().ConfigMaps(e.Namespace).Update(ctx, cm, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			return err
		}
		e.State["edited-"+name] = "yes"
		return nil
	}
}

// w20bProjected mounts the ConfigMaps cms as one projected volume at path in the first
// container (a rules directory assembled from several ConfigMaps).
func w20bProjected(t *corev1.PodTemplateSpec, volume, path string, cms ...string) {
	var src []corev1.VolumeProjection
	for _, cm := range cms {
		src = append(src, corev1.VolumeProjection{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: cm}}})
	}
	t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: src}}})
	t.Spec.Containers[0].VolumeMounts = append(t.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: volume, MountPath: path, ReadOnly: true})
}

// w20bTLSSecret creates a kubernetes.io/tls Secret for hosts valid from notBefore to
// notAfter (self-signed; only the dates and names matter here), with annotations ann.
func (e *Env) w20bTLSSecret(ctx context.Context, name string, notBefore, notAfter time.Time, ann map[string]string, hosts ...string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(notBefore.UnixNano()), Subject: pkix.Name{CommonName: hosts[0]},
		Issuer: pkix.Name{CommonName: "R11", Organization: []string{"Let's Encrypt"}}, DNSNames: hosts,
		NotBefore: notBefore, NotAfter: notAfter,
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
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: ann}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{
			corev1.TLSCertKey:       pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
			corev1.TLSPrivateKeyKey: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}),
		},
	}, metav1.CreateOptions{})
	return wrap("Secret", name, err)
}

// w20bTLSIngress is an Ingress of class nginx for host to service:port, terminating TLS with
// Secret secret.
func w20bTLSIngress(name, host, service string, port int32, secret string) *networkingv1.Ingress {
	i := ingress(name, service, port)
	i.Spec.IngressClassName = ptr.To("nginx")
	i.Spec.Rules[0].Host = host
	i.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{host}, SecretName: secret}}
	return i
}

// w20bManualJob creates Job name from CronJob cron's job template the way `kubectl create job
// --from=cronjob/<cron>` does (owned by the CronJob, annotated as a manual instantiation),
// with the pod template's annotations replaced by ann.
func (e *Env) w20bManualJob(ctx context.Context, cron, name string, ann map[string]string) error {
	c, err := e.Client.BatchV1().CronJobs(e.Namespace).Get(ctx, cron, metav1.GetOptions{})
	if err != nil {
		return err
	}
	spec := *c.Spec.JobTemplate.Spec.DeepCopy()
	spec.Template.Annotations = ann
	j := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Labels: c.Spec.JobTemplate.Labels,
			Annotations: map[string]string{"cronjob.kubernetes.io/instantiate": "manual"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "CronJob", Name: c.Name, UID: c.UID,
				Controller: ptr.To(true)}},
		},
		Spec: spec,
	}
	_, err = e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
	return wrap("Job", name, err)
}

// w20bDaemonSetReady succeeds once DaemonSet name has ready pods on every shared node.
func w20bDaemonSetReady(ctx context.Context, e *Env, name string) error {
	d, err := e.Client.AppsV1().DaemonSets(e.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if d.Status.NumberReady < min(d.Status.DesiredNumberScheduled, 3) || d.Status.NumberReady == 0 {
		return fmt.Errorf("daemonset %s: %d of %d ready", name, d.Status.NumberReady, d.Status.DesiredNumberScheduled)
	}
	return nil
}

// w20bSetDaemonSetImage sets the first container's image of DaemonSet name.
func (e *Env) w20bSetDaemonSetImage(ctx context.Context, name, image string) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d, err := e.Client.AppsV1().DaemonSets(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		d.Spec.Template.Spec.Containers[0].Image = image
		_, err = e.Client.AppsV1().DaemonSets(e.Namespace).Update(ctx, d, metav1.UpdateOptions{})
		return err
	})
}

// w20bImageBumped moves DaemonSet name to image once all its pods are ready (the release), and
// succeeds once the controller has observed that template and wantUpdated of its scheduled
// pods run it (0: none was replaced; -1: at least one was, and the pods are ready again).
func w20bImageBumped(name, image string, wantUpdated int32) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		if e.State["bumped-"+name] == "" {
			if err := w20bDaemonSetReady(ctx, e, name); err != nil {
				return err
			}
			if err := e.w20bSetDaemonSetImage(ctx, name, image); err != nil {
				return err
			}
			e.State["bumped-"+name] = "yes"
		}
		d, err := e.Client.AppsV1().DaemonSets(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if d.Status.ObservedGeneration < d.Generation {
			return fmt.Errorf("daemonset %s: generation %d not observed yet", name, d.Generation)
		}
		if wantUpdated < 0 {
			if d.Status.UpdatedNumberScheduled == 0 {
				return fmt.Errorf("daemonset %s: no pod updated yet", name)
			}
			return w20bDaemonSetReady(ctx, e, name)
		}
		if d.Status.UpdatedNumberScheduled != wantUpdated {
			return fmt.Errorf("daemonset %s: %d pods updated, waiting for %d", name, d.Status.UpdatedNumberScheduled, wantUpdated)
		}
		return nil
	}
}

// w20bOnDelete gives a DaemonSet the OnDelete update strategy.
func w20bOnDelete(d *appsv1.DaemonSet) *appsv1.DaemonSet {
	d.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
	return d
}
