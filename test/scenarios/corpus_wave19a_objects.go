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

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Builders for wave 19a: incident tickets as on-call receives them, one production failure
// each, written from a public issue or postmortem. The wave 8 to 18 builders (w8bDeployment,
// w8bStatefulSet, w11bServe, w18cJob, w18aFixedService ...) do the rest.

// Outside sources the wave was written from.
const (
	w19aSrcSSHKey       = "https://github.com/pieterlange/kube-backup/issues/59 (CronJob git push over ssh: 'Permissions 0420 for '/root/.ssh/id_rsa' are too open' with secret defaultMode: 0420)"
	w19aSrcFPMChildren  = "https://github.com/dunglas/symfony-docker/issues/326 ('[pool www] server reached pm.max_children setting (5), consider raising it', then requests hang)"
	w19aSrcEnvOrder     = "https://github.com/kubernetes/kubernetes/issues/90466 (Environment variable interpolation is order dependent: $(var1) stays literal when var1 is defined later)"
	w19aSrcMaxClients   = "https://github.com/redisson/redisson/issues/1708 (RedisException: ERR max number of clients reached; check maxclients in redis.conf)"
	w19aSrcExecString   = "https://github.com/garden-io/garden/issues/918 (migration task: exec: \"rake db:migrate\": executable file not found in $PATH, the command given as one string)"
	w19aSrcRelayDenied  = "https://github.com/shopsys/shopsys/pull/777 (kubernetes: the SMTP relay container refuses mail from pods, 'Relay access denied', until the pod networks are in its relay networks)"
	w19aSrcCPUStartup   = "https://github.com/codecentric/helm-charts/issues/420 (Keycloak pods keep restarting and never come up: with a low CPU limit the pod is not fast enough to start before its probes give up)"
	w19aSrcTokenReview  = "https://github.com/coreos/vault-operator/issues/359 (Vault kubernetes auth login: 'tokenreviews.authentication.k8s.io is forbidden' for Vault's ServiceAccount; bind system:auth-delegator)"
	w19aSrcArchSelector = "https://github.com/Kuadrant/kuadrant-controller/issues/168 (pods Pending with 'node(s) didn't match Pod's node affinity/selector' from a kubernetes.io/arch selector no node satisfies)"
)

// w19aSecretVolume mounts Secret s at path in the first container with the given file mode.
func w19aSecretVolume(t *corev1.PodTemplateSpec, volume, s, path string, mode int32) {
	t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{
		Secret: &corev1.SecretVolumeSource{SecretName: s, DefaultMode: ptr.To(mode)}}})
	c := &t.Spec.Containers[0]
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: volume, MountPath: path, ReadOnly: true})
}

// w19aConfigFile mounts key of ConfigMap cm as the single file path in the first container.
func w19aConfigFile(t *corev1.PodTemplateSpec, cm, key, path string) {
	t.Spec.Volumes = append(t.Spec.Volumes, w11bConfigMapVolume(cm))
	c := &t.Spec.Containers[0]
	c.VolumeMounts = append(c.VolumeMounts, w11bMount(cm, path, key))
}

// w19aManualRun is the Job `kubectl create job NAME --from=cronjob/CJ` makes: the CronJob's
// job template, annotated as a manual run and owned by the CronJob.
func w19aManualRun(cj *batchv1.CronJob, name string) *batchv1.Job {
	j := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Labels: cj.Spec.JobTemplate.Labels,
			Annotations: map[string]string{"cronjob.kubernetes.io/instantiate": "manual"},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "batch/v1", Kind: "CronJob", Name: cj.Name, UID: cj.UID,
			}},
		},
		Spec: *cj.Spec.JobTemplate.Spec.DeepCopy(),
	}
	return j
}

// w19aCreateManualRun creates CronJob cj and then a manual run of it called run.
func (e *Env) w19aCreateManualRun(ctx context.Context, cj *batchv1.CronJob, run string) error {
	created, err := e.Client.BatchV1().CronJobs(e.Namespace).Create(ctx, cj, metav1.CreateOptions{})
	if err != nil {
		return wrap("CronJob", cj.Name, err)
	}
	return e.w18cCreateJob(ctx, w19aManualRun(created, run))
}

// w19aClusterRoleBinding binds the built-in ClusterRole clusterRole to ServiceAccount sa of
// namespace saNamespace (not necessarily the scenario's) as ClusterName(name), removed by
// Cleanup.
func (e *Env) w19aClusterRoleBinding(ctx context.Context, name, clusterRole, sa, saNamespace string) error {
	b := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: e.ClusterName(name), Labels: map[string]string{LabelScenario: e.Namespace, "app.kubernetes.io/name": "vault"}},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa, Namespace: saNamespace}},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: clusterRole},
	}
	if _, err := e.Client.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
		return wrap("ClusterRoleBinding", b.Name, err)
	}
	e.onCleanup(func(ctx context.Context) error {
		return ignoreNotFound(e.Client.RbacV1().ClusterRoleBindings().Delete(ctx, b.Name, metav1.DeleteOptions{}))
	})
	return nil
}

// w19aPostgres creates a one-replica postgres StatefulSet name (container postgres) with its
// Service, whose password comes from key of Secret s.
func (e *Env) w19aPostgres(ctx context.Context, name, db string, lbl, ann map[string]string, s, key string) error {
	st := w8bStatefulSet(name, "docker.io/library/postgres:16.4", name, 1, lbl, ann, "tcp-postgresql", 5432)
	st.Spec.Template.Spec.Containers[0].Name = "postgres"
	w8bEnv(&st.Spec.Template, "POSTGRES_DB", db, "POSTGRES_USER", db, "PGDATA", "/var/lib/postgresql/data/pgdata")
	envKeyFromSecret(&st.Spec.Template, "POSTGRES_PASSWORD", s, key)
	if err := e.createStatefulSet(ctx, st); err != nil {
		return err
	}
	return e.createService(ctx, w8bService(name, lbl, "tcp-postgresql", 5432))
}
