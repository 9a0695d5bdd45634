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
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Builders for wave 21a, "only the log knows": workloads that fail in a generic way (exit 1
// without a termination message, a readiness probe answering 500, Running pods whose requests
// or cluster links fail) and say why only in the text they print, while the value the text
// names comes from an object of the namespace.

// Outside sources the wave was written from: the public issue whose wording each scenario
// reproduces (and the documentation page of the mechanism, where one exists).
const (
	w21aSrcUnknownDB  = "https://github.com/brettwooldridge/HikariCP/issues/1340 (HikariPool-1 - Exception during pool initialization: java.sql.SQLSyntaxErrorException: Unknown database '...'); https://github.com/spring-petclinic/spring-petclinic-cloud/issues/33"
	w21aSrcNodeConfig = "https://github.com/mozilla/addons-frontend/issues/6365 (WARNING: NODE_ENV value of 'prod' did not match any deployment config file names.); node-config: Error: Configuration property \"...\" is not defined"
	w21aSrcAppKey     = "https://github.com/alexjustesen/speedtest-tracker/issues/845 (500 Server Error - No application encryption key has been specified); https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#environment-variables (values defined by an env with a duplicate key take precedence over envFrom)"
	w21aSrcRclone     = "https://github.com/rclone/rclone/issues/5608 (Failed to create file system for \"remote:\": didn't find section in config file)"
	w21aSrcCSRF       = "https://github.com/hartwork/jawanndenn/pull/387 (POSTs fail with 'Origin checking failed - https://jawanndenn.de does not match any trusted origins.'); https://docs.djangoproject.com/en/5.0/ref/settings/#csrf-trusted-origins"
	w21aSrcEnvy       = "https://github.com/allan2/dotenvy/issues/91 (envy: Error: missing value for field REQUIRED_SALEOR_VERSION); https://github.com/softprops/envy/pull/57"
	w21aSrcESIndex    = "https://github.com/SageSeekerSociety/cheese-backend/issues/155 (ResponseError: index_not_found_exception ... no such index [topics])"
	w21aSrcCookie     = "https://github.com/emqx/emqx/issues/6440 (** Connection attempt from node ... rejected. Invalid challenge reply. **: the nodes have different cookies); https://github.com/erlang/otp/issues/5063"
)

// w21aRcloneJob is a Job of one rclone pod (restartPolicy Never) running command, labelled lbl.
func w21aRcloneJob(name, image string, backoff int32, lbl, ann map[string]string, command ...string) *batchv1.Job {
	t := template(name, image, ann)
	t.Labels = lbl
	t.Spec.RestartPolicy = corev1.RestartPolicyNever
	t.Spec.Containers[0].Name = "rclone"
	t.Spec.Containers[0].Ports = nil
	t.Spec.Containers[0].Command = command
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbl},
		Spec:       batchv1.JobSpec{BackoffLimit: ptr.To(backoff), Template: t},
	}
}

// w21aPodIPEnv sets env var name of the first container to the pod's IP (downward API), the way
// an Erlang release names its node.
func w21aPodIPEnv(t *corev1.PodTemplateSpec, name string) {
	c := &t.Spec.Containers[0]
	c.Env = append(c.Env, corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}})
}
