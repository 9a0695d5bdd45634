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

package agent_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

func envFromSecrets(names ...string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		for _, n := range names {
			s.Containers[0].EnvFrom = append(s.Containers[0].EnvFrom, corev1.EnvFromSource{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: n}}})
		}
	}
}

// Rejected credentials name the Secret whose key names the error speaks of, whichever way it
// is referenced; with none, the setting that configures the rejected connection.
func TestRejectedCredentialsNameTheirSource(t *testing.T) {
	cases := []struct {
		name    string
		objs    func() []runtime.Object
		log     string
		culprit string
		terms   []string
	}{
		{name: "a role the database does not know (SQLSTATE 28000) is the user's Secret, not the session secret",
			objs: func() []runtime.Object {
				o := app("tickets", 1, envFromSecrets("tickets-session", "tickets-db"), crashing)
				return append(o, fx.Secret(ns, "tickets-session", "SESSION_SECRET"), fx.Secret(ns, "tickets-db", "DB_USER", "DB_PASSWORD"), fx.Node("node-1"))
			},
			log:     "INFO starting\nERROR database ping failed: failed to connect to `user=tickets_svc database=tickets`: 10.244.1.19:5432 (tickets-postgres): server error: FATAL: role \"tickets_svc\" does not exist (SQLSTATE 28000)\n",
			culprit: "Secret/tickets-db", terms: []string{"DB_USER", "tickets_svc"}},
		{name: "an unknown AWS access key id is the Secret with the access key, not the database password",
			objs: func() []runtime.Object {
				o := app("backup", 1, envFromSecrets("backup-pg", "backup-s3"), crashing)
				return append(o, fx.Secret(ns, "backup-pg", "PGUSER", "PGPASSWORD"), fx.Secret(ns, "backup-s3", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"), fx.Node("node-1"))
			},
			log:     "dump done\nupload failed: An error occurred (InvalidAccessKeyId) when calling the PutObject operation: The AWS Access Key Id you provided does not exist in our records.\n",
			culprit: "Secret/backup-s3", terms: []string{"AWS_ACCESS_KEY_ID", "InvalidAccessKeyId"}},
		{name: "401 with no credentials in any Secret names the config file that sets the rejected URL",
			objs: func() []runtime.Object {
				o := app("prom", 1, func(s *corev1.PodSpec) {
					s.Volumes = append(s.Volumes, corev1.Volume{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "prom-server"}}}})
					s.Containers[0].VolumeMounts = append(s.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "config", MountPath: "/etc/config"})
					s.Containers[0].Args = []string{"--config.file=/etc/config/prometheus.yml"}
				}, crashing)
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "prom-server", Namespace: ns}, Data: map[string]string{
					"prometheus.yml": "global:\n  scrape_interval: 30s\nremote_write:\n  - url: http://metrics-gateway:8080/api/v1/push\n    name: central\n"}}
				return append(o, cm, fx.ConfigMap(ns, "prom-rules", "alerts.yml"), fx.Node("node-1"))
			},
			log:     "ts=2026-11-29T06:00:00Z level=error component=remote msg=\"non-recoverable error\" url=http://metrics-gateway:8080/api/v1/push err=\"server returned HTTP status 401 Unauthorized: no org id\"\n",
			culprit: "ConfigMap/prom-server", terms: []string{"prometheus.yml", "401"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := agent.NewRuleEngine(fake.NewClientset(tc.objs()...))
			e.Now = func() time.Time { return fx.Now }
			logs := logBook{}
			for _, n := range []string{"tickets-", "backup-", "prom-"} {
				logs[n] = tc.log
			}
			e.Logs = logs.source()
			rc := drive(t, e, agent.Session{ID: "t", Problem: "it keeps restarting", Namespace: ns}).RootCause
			t.Logf("%s on %s/%s: %s", rc.Rule, rc.Culprit.Kind, rc.Culprit.Name, rc.Summary)
			var aff []string
			for _, r := range rc.AffectedObjects {
				aff = append(aff, r.Kind+"/"+r.Name)
			}
			if !contains(aff, tc.culprit) {
				t.Errorf("affectedObjects %v lack %s", aff, tc.culprit)
			}
			for _, term := range tc.terms {
				if !strings.Contains(rc.Summary, term) {
					t.Errorf("summary lacks %q", term)
				}
			}
			if strings.Contains(rc.Summary, "TOPSECRET") {
				t.Errorf("a Secret value leaked: %s", rc.Summary)
			}
		})
	}
}

// A Ready pod restarted twice whose last exit left an RBAC denial in its termination message
// is not healthy: the denial is followed to the Role.
func TestRestartedReadyPodWithDenial(t *testing.T) {
	msg := `error renewing lease ` + ns + `/sweeper-leader: leases.coordination.k8s.io "sweeper-leader" is forbidden: User "system:serviceaccount:` + ns + `:sweeper" cannot update resource "leases" in API group "coordination.k8s.io" in the namespace "` + ns + `"`
	objs := app("sweeper", 1, func(s *corev1.PodSpec) { s.ServiceAccountName = "sweeper" }, func(p *corev1.Pod) {
		fx.CrashLoop(p, 1, "Error", 2)
		cs := &p.Status.ContainerStatuses[0]
		cs.LastTerminationState.Terminated.Message = msg
		cs.LastTerminationState.Terminated.FinishedAt = fx.Ago(10 * time.Second)
		cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: fx.Ago(5 * time.Second)}}
		cs.Ready, cs.Started = true, fx.Ptr(true)
		for i := range p.Status.Conditions {
			p.Status.Conditions[i].Status, p.Status.Conditions[i].Reason, p.Status.Conditions[i].Message = corev1.ConditionTrue, "", ""
		}
	})
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "sweeper-leader-election", Namespace: ns}, Rules: []rbacv1.PolicyRule{{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "list", "watch", "create"}}}}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "sweeper-leader-election", Namespace: ns},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "sweeper-leader-election"}, Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "sweeper", Namespace: ns}}}
	objs = append(objs, role, rb, sa("sweeper"), fx.Node("node-1"))
	for _, target := range []*agent.Target{{Kind: "Deployment", Name: "sweeper"}, nil} {
		e := agent.NewRuleEngine(fake.NewClientset(objs...))
		e.Now = func() time.Time { return fx.Now }
		e.Logs = logBook{"sweeper-": "I1129 leaderelection.go:268] successfully acquired lease sweeper-leader\n"}.source()
		rc := drive(t, e, agent.Session{ID: "t", Problem: "the sweeper restarts every minute", Namespace: ns, Target: target}).RootCause
		if rc.Culprit.Kind != "Role" || rc.Culprit.Name != "sweeper-leader-election" || !strings.Contains(rc.Summary, "update") {
			t.Errorf("target %v: got %s on %v: %s", target, rc.Rule, rc.Culprit, rc.Summary)
		}
	}
}

// A Ready pod restarted twice with no termination message is read by its log: an error there
// makes it a crash loop between restarts, followed like any other.
func TestRestartedReadyPodWithLoggedError(t *testing.T) {
	objs := app("reviews", 1, func(s *corev1.PodSpec) {
		s.Volumes = append(s.Volumes, corev1.Volume{Name: "mongo-tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "reviews-mongo-tls"}}})
		s.Containers[0].VolumeMounts = append(s.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "mongo-tls", MountPath: "/etc/ssl/mongo", ReadOnly: true})
		s.Containers[0].Env = append(s.Containers[0].Env, corev1.EnvVar{Name: "MONGO_TLS_CA_FILE", Value: "/etc/ssl/mongo/ca.pem"})
	}, func(p *corev1.Pod) {
		fx.CrashLoop(p, 1, "Error", 2)
		cs := &p.Status.ContainerStatuses[0]
		cs.LastTerminationState.Terminated.FinishedAt = fx.Ago(10 * time.Second)
		cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: fx.Ago(5 * time.Second)}}
		cs.Ready, cs.Started = true, fx.Ptr(true)
		for i := range p.Status.Conditions {
			p.Status.Conditions[i].Status, p.Status.Conditions[i].Reason, p.Status.Conditions[i].Message = corev1.ConditionTrue, "", ""
		}
	})
	objs = append(objs, fx.Secret(ns, "reviews-mongo-tls", "ca.crt", "tls.crt", "tls.key"), fx.Node("node-1"))
	e := agent.NewRuleEngine(fake.NewClientset(objs...))
	e.Now = func() time.Time { return fx.Now }
	e.Logs = logBook{"reviews-": "Server listening on :3000\nError: ENOENT: no such file or directory, open '/etc/ssl/mongo/ca.pem'\n    at Object.openSync (node:fs:573:18)\n"}.source()
	rc := drive(t, e, agent.Session{ID: "t", Problem: "reviews keeps restarting", Namespace: ns, Target: &agent.Target{Kind: "Deployment", Name: "reviews"}}).RootCause
	if !strings.Contains(rc.Summary, "ca.pem") || rc.Rule == "workload-pods-unhealthy" {
		t.Errorf("got %s on %v: %s", rc.Rule, rc.Culprit, rc.Summary)
	}
}

// A registry that refuses the pull Secret's credentials names that Secret; one that rate-limits
// pulls says so.
func TestImagePullCredentialsAndRateLimit(t *testing.T) {
	for _, tc := range []struct {
		name, msg, rule, term, affected string
		secret                          bool
	}{
		{name: "refused credentials name the pull Secret", secret: true, rule: "image-pull-auth", term: "imagePullSecrets harbor-pull", affected: "Secret/harbor-pull",
			msg: `Failed to pull image "harbor.corp.example/pay/api:3.8.0": failed to resolve reference: pull access denied, repository does not exist or may require authorization: authorization failed: 401 Unauthorized: unauthorized: unauthorized to access repository`},
		{name: "Docker Hub's rate limit", rule: "image-pull-error", term: "rate-limits",
			msg: `Failed to pull image "docker.io/library/nginx:1.27.2": failed to copy: httpReadSeeker: failed open: unexpected status code https://registry-1.docker.io/v2/library/nginx/manifests/sha256:2840: 429 Too Many Requests - Server message: toomanyrequests: You have reached your pull rate limit. You may increase the limit by authenticating and upgrading: https://www.docker.com/increase-rate-limit`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := app("api", 1, func(s *corev1.PodSpec) {
				if tc.secret {
					s.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "harbor-pull"}}
				}
			}, func(p *corev1.Pod) { fx.Waiting(p, "ErrImagePull", tc.msg) })
			if tc.secret {
				objs = append(objs, fx.PullSecret(ns, "harbor-pull"))
			}
			e := agent.NewRuleEngine(fake.NewClientset(append(objs, fx.Node("node-1"))...))
			e.Now = func() time.Time { return fx.Now }
			rc := drive(t, e, agent.Session{ID: "t", Problem: "api pods do not start", Namespace: ns, Target: &agent.Target{Kind: "Deployment", Name: "api"}}).RootCause
			var aff []string
			for _, r := range rc.AffectedObjects {
				aff = append(aff, r.Kind+"/"+r.Name)
			}
			if rc.Rule != tc.rule || !strings.Contains(rc.Summary, tc.term) || tc.affected != "" && !contains(aff, tc.affected) {
				t.Errorf("got %s %v: %s", rc.Rule, aff, rc.Summary)
			}
		})
	}
}
