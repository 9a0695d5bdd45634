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
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Builders for wave 13a: the decisive clue is what an application prints in its log (a
// driver's error, a framework's health line, a broker's refusal, a server's own note about a
// client it dropped), while the fix lives in a Kubernetes object the text points at.

// Outside sources the wave was written from.
const (
	w13aSrcPgRole        = "PostgreSQL docs, 22.1 Database Roles; docker-library postgres image docs (POSTGRES_USER creates the only role: FATAL: role \"x\" does not exist otherwise)"
	w13aSrcRedisSelect   = "Redis docs, SELECT command and redis.conf 'databases 16' (ERR DB index is out of range)"
	w13aSrcBoot3Redis    = "Spring Boot 3.0 Migration Guide, github.com/spring-projects/spring-boot/wiki/Spring-Boot-3.0-Migration-Guide (spring.redis.* moved to spring.data.redis.*)"
	w13aSrcKafkaSASL     = "https://github.com/lectra-tech/kapoeira/issues/13 (UnsupportedSaslMechanismException: Client SASL mechanism ... not enabled in the server, enabled mechanisms are [...])"
	w13aSrcESBootstrap   = "https://github.com/elastic/elasticsearch/issues/50733 (master not discovered yet ... must discover master-eligible nodes [...] to bootstrap a cluster); Elasticsearch docs, cluster.initial_master_nodes"
	w13aSrcDiskSpace     = "Spring Boot docs, Actuator: DiskSpaceHealthIndicator (management.health.diskspace.threshold; Free disk space below threshold); k8s-docs/concepts/storage/persistent-volumes.md"
	w13aSrcLogstash      = "Logstash docs, Elasticsearch output plugin: hosts (Elasticsearch Unreachable ... Manticore::ResolutionFailure); k8s-docs/concepts/services-networking/dns-pod-service.md"
	w13aSrcMimirOrgID    = "https://github.com/grafana/loki/issues/7081 and https://github.com/cortexproject/cortex/issues/1479 (server returned HTTP status 401 Unauthorized: no org id; set the X-Scope-OrgID header)"
	w13aSrcSelector      = "k8s-docs/concepts/services-networking/service.md (a Service selects pods by label; without matching pods it has no endpoints)"
	w13aSrcGrafanaPort   = "k8s-docs/concepts/services-networking/service.md (port vs targetPort); prometheus-community/prometheus chart: server Service listens on port 80"
	w13aSrcKafkaRF       = "Apache Kafka docs, kafka-topics.sh (InvalidReplicationFactorException: Replication factor: 3 larger than available brokers: 1)"
	w13aSrcS3Keys        = "AWS CLI docs, Configuration and credential file settings (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY; InvalidAccessKeyId: The AWS Access Key Id you provided does not exist in our records)"
	w13aSrcMaxPacket     = "https://dba.stackexchange.com/questions/19135/mysql-error-reading-communication-packets (Aborted connection ... max_allowed_packet; the server closes the connection)"
	w13aSrcMongoMaxConns = "MongoDB docs, Configuration File Options: net.maxIncomingConnections (Connection refused because there are too many open connections)"
	w13aSrcKeycloakPath  = "https://github.com/oauth2-proxy/oauth2-proxy/pull/1661 and /pull/1758 (Keycloak 17+ dropped /auth: failed to discover OIDC configuration: unexpected status \"404\")"
	w13aSrcNodeENOENT    = "k8s-docs/concepts/configuration/secret.md (each key of a Secret volume becomes a file named after the key)"
)

// w13aClaim creates PersistentVolumeClaim name of size bound in advance to a static volume of
// the scenario (a provisioner's volume), in StorageClass "manual".
func (e *Env) w13aClaim(ctx context.Context, name, size string) error {
	if err := e.createStaticPV(ctx, name, name, size, corev1.ReadWriteOnce); err != nil {
		return err
	}
	return e.createPVC(ctx, pvc(name, "manual", size, corev1.ReadWriteOnce))
}

// w13aCronJob is a CronJob running every minute whose pods fail with annotations ann, one
// attempt per run (backoffLimit 0), the way a nightly job fails after a change.
func w13aCronJob(name, image string, lbl, ann map[string]string, args ...string) *batchv1.CronJob {
	c := w11aCronJob(name, image, "* * * * *", false, lbl, args...)
	c.Spec.JobTemplate.Spec.BackoffLimit = ptr.To[int32](0)
	c.Spec.JobTemplate.Spec.Template.Annotations = ann
	c.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	return c
}

// w13aAnyJobFailed succeeds once some Job of the namespace has failed (a CronJob's run).
func w13aAnyJobFailed(ctx context.Context, e *Env) error {
	l, err := e.Client.BatchV1().Jobs(e.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, j := range l.Items {
		for _, c := range j.Status.Conditions {
			if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
				return nil
			}
		}
	}
	return fmt.Errorf("no failed Job yet among %d", len(l.Items))
}
