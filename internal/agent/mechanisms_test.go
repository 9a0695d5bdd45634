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
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// certPEM is a self-signed certificate valid from notBefore to notAfter.
func certPEM(t *testing.T, cn string, notBefore, notAfter time.Time) []byte {
	t.Helper()
	return selfSignedPEM(t, &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn}, NotBefore: notBefore, NotAfter: notAfter})
}

// selfSignedPEM signs tmpl with a new key of its own, PEM-encoded.
func selfSignedPEM(t *testing.T, tmpl *x509.Certificate) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// A client failing with "certificate has expired" is explained by the expired certificate the
// server it calls mounts.
func TestExpiredServerCertificate(t *testing.T) {
	objs := app("web", 1, nil, crashing)
	objs = append(objs, app("api", 1, func(s *corev1.PodSpec) {
		s.Volumes = []corev1.Volume{{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "api-tls"}}}}
	}, nil)...)
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "api-tls", Namespace: ns}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{"tls.crt": certPEM(t, "api.payments.svc", fx.Now.Add(-400*24*time.Hour), fx.Now.Add(-48*time.Hour)), "tls.key": []byte("TOPSECRET")}}
	objs = append(objs, sec, svcAt("api", "10.96.0.20", map[string]string{"app": "api"}, 443), fx.Node("node-1"))
	e := agent.NewRuleEngine(fake.NewClientset(objs...))
	e.Now = func() time.Time { return fx.Now }
	e.Logs = logBook{"web-": "ERROR call api: Get \"https://api:443/v1\": tls: failed to verify certificate: x509: certificate has expired or is not yet valid\n"}.source()
	c := drive(t, e, agent.Session{ID: "t", Problem: "web fails", Namespace: ns})
	rc := c.RootCause
	t.Logf("summary: %s", rc.Summary)
	if rc.Rule != "certificate-expired" || rc.Culprit.Kind != "Secret" || rc.Culprit.Name != "api-tls" {
		t.Fatalf("got %s on %s/%s: %s", rc.Rule, rc.Culprit.Kind, rc.Culprit.Name, rc.Summary)
	}
	if !strings.Contains(rc.Summary, "expired") || !strings.Contains(rc.Summary, "Deployment api") || strings.Contains(rc.Summary, "TOPSECRET") {
		t.Errorf("summary: %s", rc.Summary)
	}
}

// A liveness probe that kills a slow-starting application says so with the numbers.
func TestLivenessProbeTiming(t *testing.T) {
	objs := app("web", 1, func(s *corev1.PodSpec) {
		s.Containers[0].LivenessProbe = &corev1.Probe{InitialDelaySeconds: 10, PeriodSeconds: 5, FailureThreshold: 3}
	}, func(p *corev1.Pod) {
		fx.SetNotReady(p)
		cs := &p.Status.ContainerStatuses[0]
		cs.RestartCount = 4
		cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: fx.Ago(10 * time.Second)}}
		cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error", StartedAt: fx.Ago(50 * time.Second), FinishedAt: fx.Ago(24 * time.Second)}}
	})
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok {
			ev := fx.Event(ns, "Pod", p.Name, "Warning", "Unhealthy", "Liveness probe failed: Get \"http://10.244.1.7:8080/healthz\": dial tcp 10.244.1.7:8080: connect: connection refused", 12, time.Minute)
			objs = append(objs, ev)
			break
		}
	}
	objs = append(objs, fx.Node("node-1"))
	e := agent.NewRuleEngine(fake.NewClientset(objs...))
	e.Now = func() time.Time { return fx.Now }
	e.Logs = logBook{"web-": "INFO warming cache (this takes about 60s)\n"}.source()
	c := drive(t, e, agent.Session{ID: "t", Problem: "web restarts", Namespace: ns})
	rc := c.RootCause
	t.Logf("summary: %s", rc.Summary)
	if rc.Rule != "liveness-probe-failing" {
		t.Fatalf("got %s: %s", rc.Rule, rc.Summary)
	}
	for _, w := range []string{"25s", "26s", "startupProbe"} {
		if !strings.Contains(rc.Summary, w) {
			t.Errorf("summary lacks %q: %s", w, rc.Summary)
		}
	}
}

// The same slow start, held to a quarter of a core by a cpu limit the pod template never
// asked for: the namespace's LimitRange default put it there, and it is what to change. With
// the limit written in the template, the workload stays the culprit.
func TestLivenessSlowStartUnderLimitRangeDefault(t *testing.T) {
	lr := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "container-defaults", Namespace: ns},
		Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer,
			Default:        corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("512Mi")},
			DefaultRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("256Mi")}}}}}
	for _, injected := range []bool{true, false} {
		objs := app("sso", 1, func(s *corev1.PodSpec) {
			s.Containers[0].LivenessProbe = &corev1.Probe{InitialDelaySeconds: 60, PeriodSeconds: 10, FailureThreshold: 3}
			if !injected {
				s.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}
			}
		}, func(p *corev1.Pod) {
			fx.SetNotReady(p)
			p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("512Mi")}
			if injected {
				p.Annotations = map[string]string{"kubernetes.io/limit-ranger": "LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app"}
			}
			cs := &p.Status.ContainerStatuses[0]
			cs.RestartCount = 3
			cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: fx.Ago(20 * time.Second)}}
			cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error", StartedAt: fx.Ago(2 * time.Minute), FinishedAt: fx.Ago(25 * time.Second)}}
		})
		for _, o := range objs {
			if p, ok := o.(*corev1.Pod); ok {
				objs = append(objs, fx.Event(ns, "Pod", p.Name, "Warning", "Unhealthy", "Liveness probe failed: Get \"http://10.244.1.7:9000/health/live\": dial tcp 10.244.1.7:9000: connect: connection refused", 9, time.Minute))
				break
			}
		}
		e := agent.NewRuleEngine(fake.NewClientset(append(objs, lr, fx.Node("node-1"))...))
		e.Now = func() time.Time { return fx.Now }
		e.Logs = logBook{"sso-": "INFO  [io.quarkus] (main) starting\n"}.source()
		rc := drive(t, e, agent.Session{ID: "t", Problem: "sso restarts and never comes up", Namespace: ns}).RootCause
		want := "Deployment/sso"
		if injected {
			want = "LimitRange/container-defaults"
		}
		if got := rc.Culprit.Kind + "/" + rc.Culprit.Name; rc.Rule != "liveness-probe-failing" || got != want {
			t.Fatalf("injected=%v: got %s on %s, want liveness-probe-failing on %s: %s", injected, rc.Rule, got, want, rc.Summary)
		}
		if injected && (!strings.Contains(rc.Summary, "250m") || !strings.Contains(rc.Summary, "LimitRange container-defaults")) {
			t.Errorf("summary lacks the default and its LimitRange: %s", rc.Summary)
		}
	}
}

func withEnv(kv ...string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		for i := 0; i+1 < len(kv); i += 2 {
			s.Containers[0].Env = append(s.Containers[0].Env, corev1.EnvVar{Name: kv[i], Value: kv[i+1]})
		}
	}
}

// A client whose text names nothing is followed to what its env says it calls; a provider
// is blamed only when it is broken.
func TestConfiguredProviders(t *testing.T) {
	cases := []struct {
		name, rule, culprit string
		objs                func() []runtime.Object
		affected, terms     []string
	}{
		{name: "a URL in env → Service whose selector matches nothing", rule: "service-selector-mismatch", culprit: "Service/payments",
			objs: func() []runtime.Object {
				o := app("checkout", 1, withEnv("LOG_LEVEL", "info", "PAYMENTS_URL", "http://payments:8080/v1"), crashing)
				o = append(o, app("payments", 1, nil, nil)...)
				return append(o, svcAt("payments", "10.96.1.1", map[string]string{"app": "payments-api"}, 8080), fx.Node("node-1"))
			}, affected: []string{"Deployment/checkout"}},
		{name: "host:port in env → the Deployment behind it scaled to zero", rule: "deployment-scaled-to-zero", culprit: "Deployment/redis",
			objs: func() []runtime.Object {
				o := app("cart", 1, withEnv("REDIS_ADDR", "redis:6379"), crashing)
				r := fx.Deployment(ns, "redis", 0, "redis:7")
				return append(o, r, svcAt("redis", "10.96.1.2", map[string]string{"app": "redis"}, 6379), fx.Node("node-1"))
			}, affected: []string{"Service/redis", "Deployment/cart"}},
		{name: "pod.service of a headless Service → its crashing pods, quoting their own error", rule: "crash-loop", culprit: "Deployment/postgres",
			objs: func() []runtime.Object {
				o := app("accounts", 1, withEnv("DATABASE_URL", "postgres://accounts@postgres-0.postgres:5432/accounts"), crashing)
				o = append(o, app("postgres", 1, nil, func(p *corev1.Pod) {
					fx.CrashLoop(p, 1, "Error", 4)
					p.Status.ContainerStatuses[0].LastTerminationState.Terminated.Message = `FATAL:  data directory "/var/lib/postgresql/data" has wrong ownership`
				})...)
				svc := svcAt("postgres", "None", map[string]string{"app": "postgres"}, 5432)
				return append(o, svc, fx.Node("node-1"))
			}, affected: []string{"Deployment/accounts", "Service/postgres"}, terms: []string{"wrong ownership"}},
		{name: "a healthy configured provider is not blamed", rule: "crash-loop", culprit: "Deployment/web",
			objs: func() []runtime.Object {
				o := app("web", 1, withEnv("API_URL", "http://api"), crashing)
				o = append(o, app("api", 1, nil, nil)...)
				return append(o, svcAt("api", "10.96.1.3", map[string]string{"app": "api"}, 80), fx.Node("node-1"))
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := agent.NewRuleEngine(fake.NewClientset(tc.objs()...))
			e.Now = func() time.Time { return fx.Now }
			e.Logs = logBook(nil).source()
			c := drive(t, e, agent.Session{ID: "t", Problem: "the shop is broken", Namespace: ns})
			rc := c.RootCause
			t.Logf("summary: %s", rc.Summary)
			if got := rc.Culprit.Kind + "/" + rc.Culprit.Name; rc.Rule != tc.rule || got != tc.culprit {
				t.Fatalf("got %s on %s, want %s on %s: %s", rc.Rule, got, tc.rule, tc.culprit, rc.Summary)
			}
			var aff []string
			for _, r := range rc.AffectedObjects {
				aff = append(aff, r.Kind+"/"+r.Name)
			}
			for _, w := range tc.affected {
				if !contains(aff, w) {
					t.Errorf("affectedObjects %v lack %s", aff, w)
				}
			}
			for _, w := range tc.terms {
				if !strings.Contains(rc.Summary, w) {
					t.Errorf("summary lacks %q", w)
				}
			}
		})
	}
}

// Target-less, the namespace scan finds faults that make nothing crash.
func TestScanFindsQuietFaults(t *testing.T) {
	cases := []struct {
		name, rule, culprit string
		objs                func() []runtime.Object
	}{
		{name: "a suspended Job", rule: "job-suspended", culprit: "Job/backfill", objs: func() []runtime.Object {
			j := fx.Job(ns, "backfill", "busybox")
			j.Spec.Suspend = fx.Ptr(true)
			return []runtime.Object{j}
		}},
		{name: "a CronJob whose jobTemplate suspends every run", rule: "job-suspended", culprit: "CronJob/reconcile", objs: func() []runtime.Object {
			cj := fx.CronJob(ns, "reconcile", "0 2 * * *")
			cj.Spec.JobTemplate.Spec.Suspend = fx.Ptr(true)
			cj.Spec.ConcurrencyPolicy = batchv1.ForbidConcurrent
			j := fx.Job(ns, "reconcile-29933280", "busybox")
			j.Spec.Suspend = fx.Ptr(true)
			j.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "CronJob", Name: "reconcile", UID: cj.UID, Controller: fx.Ptr(true)}}
			return []runtime.Object{cj, j}
		}},
		{name: "a suspended CronJob", rule: "cronjob-suspended", culprit: "CronJob/cleanup", objs: func() []runtime.Object {
			cj := fx.CronJob(ns, "cleanup", "0 * * * *")
			cj.Spec.Suspend = fx.Ptr(true)
			return []runtime.Object{cj}
		}},
		{name: "a deny-all ingress policy over a Service's pods", rule: "networkpolicy-deny-ingress", culprit: "NetworkPolicy/deny-all", objs: func() []runtime.Object {
			o := app("ledger", 1, nil, nil)
			pol := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "deny-all", Namespace: ns},
				Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}}}
			return append(o, pol, svcAt("ledger", "10.96.2.2", map[string]string{"app": "ledger"}, 80))
		}},
		{name: "an Ingress whose TLS Secret is missing", rule: "ingress-tls-secret-missing", culprit: "Secret/shop-tls", objs: func() []runtime.Object {
			o := app("shop", 1, nil, nil)
			ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: ns}, Spec: networkingv1.IngressSpec{
				TLS:            []networkingv1.IngressTLS{{Hosts: []string{"shop.example.com"}, SecretName: "shop-tls"}},
				DefaultBackend: &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "shop", Port: networkingv1.ServiceBackendPort{Number: 80}}}}}
			return append(o, ing, svcAt("shop", "10.96.2.3", map[string]string{"app": "shop"}, 80))
		}},
		{name: "a StatefulSet whose governing Service is missing", rule: "statefulset-service-missing", culprit: "Service/cassandra", objs: func() []runtime.Object {
			d := fx.Deployment(ns, "cassandra", 1, "cassandra:4")
			sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "cassandra", Namespace: ns}, Spec: appsv1.StatefulSetSpec{Replicas: fx.Ptr(int32(1)),
				ServiceName: "cassandra", Selector: d.Spec.Selector, Template: d.Spec.Template}, Status: appsv1.StatefulSetStatus{Replicas: 1, ReadyReplicas: 1}}
			return []runtime.Object{sts}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := agent.NewRuleEngine(fake.NewClientset(append(tc.objs(), fx.Node("node-1"))...))
			e.Now = func() time.Time { return fx.Now }
			e.Logs = logBook{}.source()
			c := drive(t, e, agent.Session{ID: "t", Problem: "something is off", Namespace: ns})
			rc := c.RootCause
			if got := rc.Culprit.Kind + "/" + rc.Culprit.Name; rc.Rule != tc.rule || got != tc.culprit {
				t.Fatalf("got %s on %s, want %s on %s: %s", rc.Rule, got, tc.rule, tc.culprit, rc.Summary)
			}
		})
	}
}

// A probe that times out is explained by its timeoutSeconds against the latency the log shows.
func TestProbeTimeoutAgainstLatency(t *testing.T) {
	objs := app("keycloak", 1, func(s *corev1.PodSpec) {
		s.Containers[0].LivenessProbe = &corev1.Probe{PeriodSeconds: 10, TimeoutSeconds: 1, FailureThreshold: 3}
	}, func(p *corev1.Pod) {
		fx.SetNotReady(p)
		cs := &p.Status.ContainerStatuses[0]
		cs.RestartCount = 3
		cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error", StartedAt: fx.Ago(10 * time.Minute), FinishedAt: fx.Ago(2 * time.Minute)}}
	})
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok {
			objs = append(objs, fx.Event(ns, "Pod", p.Name, "Warning", "Unhealthy", "Liveness probe failed: Get \"http://10.244.1.7:8080/health\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)", 9, time.Minute))
			break
		}
	}
	e := agent.NewRuleEngine(fake.NewClientset(append(objs, fx.Node("node-1"))...))
	e.Now = func() time.Time { return fx.Now }
	e.Logs = logBook{"keycloak-": "INFO GET /health 200 took 2.8s\nINFO GET /health 200 took 3450ms\n"}.source()
	c := drive(t, e, agent.Session{ID: "t", Problem: "keycloak restarts", Namespace: ns})
	rc := c.RootCause
	t.Logf("summary: %s", rc.Summary)
	if rc.Rule != "liveness-probe-failing" || !strings.Contains(rc.Summary, "timeoutSeconds 1") || !strings.Contains(rc.Summary, "3.45s") {
		t.Fatalf("got %s: %s", rc.Rule, rc.Summary)
	}
}

// A probe that times out on a container held to a small CPU quota: the limit is stated, on a
// readiness probe (a JVM warming up) and a liveness probe (a Node.js server); a generous limit
// and a probe that fails for another reason say nothing about CPU.
func TestProbeTimeoutUnderSmallCPULimit(t *testing.T) {
	for _, tc := range []struct {
		name, kind, msg, cpu string
		ready                bool
		want                 []string
		not                  []string
	}{
		{name: "readiness, 200m", kind: "Readiness", cpu: "200m", ready: true,
			msg:  `Readiness probe failed: Get "http://10.244.2.9:8081/actuator/health/readiness": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
			want: []string{"cpu limit 200m", "throttled", "readiness-probe-failing"}},
		{name: "liveness, half a core", kind: "Liveness", cpu: "0.5",
			msg:  `Liveness probe failed: Get "http://10.244.0.31:3000/healthz": net/http: request canceled (Client.Timeout exceeded while awaiting headers)`,
			want: []string{"cpu limit 500m", "throttled", "liveness-probe-failing"}},
		{name: "two cores is not small", kind: "Readiness", cpu: "2", ready: true,
			msg:  `Readiness probe failed: Get "http://10.244.2.9:8081/ready": context deadline exceeded`,
			want: []string{"readiness-probe-failing"}, not: []string{"throttled"}},
		{name: "a 503 is no timeout", kind: "Readiness", cpu: "100m", ready: true,
			msg:  "Readiness probe failed: HTTP probe failed with statuscode: 503",
			want: []string{"readiness-probe-failing"}, not: []string{"throttled"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := app("quotes", 1, func(s *corev1.PodSpec) {
				pr := &corev1.Probe{PeriodSeconds: 10, TimeoutSeconds: 1, FailureThreshold: 3}
				if tc.ready {
					s.Containers[0].ReadinessProbe = pr
				} else {
					s.Containers[0].LivenessProbe = pr
				}
				s.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(tc.cpu)}
			}, func(p *corev1.Pod) {
				fx.SetNotReady(p)
				if !tc.ready {
					cs := &p.Status.ContainerStatuses[0]
					cs.RestartCount = 4
					cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error", StartedAt: fx.Ago(5 * time.Minute), FinishedAt: fx.Ago(4 * time.Minute)}}
				}
			})
			for _, o := range objs {
				if p, ok := o.(*corev1.Pod); ok {
					objs = append(objs, fx.Event(ns, "Pod", p.Name, "Warning", "Unhealthy", tc.msg, 12, time.Minute))
					break
				}
			}
			e := agent.NewRuleEngine(fake.NewClientset(append(objs, fx.Node("node-1"))...))
			e.Now = func() time.Time { return fx.Now }
			e.Logs = logBook{"quotes-": "INFO started in 41.2 seconds\nINFO GET /ready\n"}.source()
			rc := drive(t, e, agent.Session{ID: "t", Problem: "quotes is flapping", Namespace: ns}).RootCause
			text := rc.Rule + " " + rc.Summary
			t.Logf("%s", text)
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("lacks %q: %s", w, text)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(text, w) {
					t.Errorf("has %q: %s", w, text)
				}
			}
		})
	}
}

// With no text at all, a configured in-cluster URL that no Service answers to is the lead.
func TestConfiguredAddressWithoutService(t *testing.T) {
	objs := app("web", 1, envFrom("web-settings"), func(p *corev1.Pod) { fx.CrashLoop(p, 1, "Error", 3) })
	objs = append(objs, cmWith("web-settings", "FLAGS_URL", "http://feature-flags:8080/flags", "LOG_LEVEL", "debug"), svcAt("flags", "10.96.3.1", map[string]string{"app": "flags"}, 8080), fx.Node("node-1"))
	e := agent.NewRuleEngine(fake.NewClientset(objs...))
	e.Now = func() time.Time { return fx.Now }
	e.Logs = logBook(nil).source()
	c := drive(t, e, agent.Session{ID: "t", Problem: "web is down", Namespace: ns})
	rc := c.RootCause
	t.Logf("summary: %s", rc.Summary)
	if rc.Rule != "dependency-host-unknown" || rc.Culprit.Kind != "ConfigMap" || rc.Culprit.Name != "web-settings" || !strings.Contains(rc.Summary, "feature-flags") {
		t.Fatalf("got %s on %v: %s", rc.Rule, rc.Culprit, rc.Summary)
	}
}

// Targeted at a healthy-looking Deployment, the engine reads one of its pods' logs.
func TestTargetedHealthyWorkloadReadsLogs(t *testing.T) {
	objs := append(app("sync", 2, nil, nil), fx.Node("node-1"))
	e := agent.NewRuleEngine(fake.NewClientset(objs...))
	e.Now = func() time.Time { return fx.Now }
	e.Logs = logBook{"sync-": "INFO run\nERROR upload failed: AccessDenied: Access Denied (Service: S3, Status Code: 403)\nINFO retry\nERROR upload failed: AccessDenied: Access Denied (Service: S3, Status Code: 403)\n"}.source()
	c := drive(t, e, agent.Session{ID: "t", Problem: "media is not synced", Namespace: ns, Target: &agent.Target{Kind: "Deployment", Name: "sync"}})
	rc := c.RootCause
	if rc.Rule != "app-error-logged" || rc.Culprit.Name != "sync" || !strings.Contains(rc.Summary, "AccessDenied") {
		t.Fatalf("got %s on %v: %s", rc.Rule, rc.Culprit, rc.Summary)
	}
}

// Nodes the pod may use refuse it for CPU while other pools' nodes refuse it for taints: its
// requests are the cause, stated against the largest allocatable.
func TestRequestsOutweighOtherPoolsTaints(t *testing.T) {
	objs := app("transcoder", 1, func(s *corev1.PodSpec) {
		s.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("1500m")
	}, func(p *corev1.Pod) {
		fx.Unschedulable(p, "0/5 nodes are available: 3 node(s) had untolerated taint(s), 2 Insufficient cpu. preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.")
	})
	for i, name := range []string{"gpu-1", "gpu-2", "mem", "a", "b"} {
		n := fx.Node(name)
		if i < 3 {
			n.Spec.Taints = []corev1.Taint{{Key: "pool", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
		}
		objs = append(objs, n)
	}
	e := agent.NewRuleEngine(fake.NewClientset(objs...))
	e.Now = func() time.Time { return fx.Now }
	e.Logs = logBook{}.source()
	c := drive(t, e, agent.Session{ID: "t", Problem: "transcoder pods stay Pending", Namespace: ns})
	rc := c.RootCause
	t.Logf("summary: %s", rc.Summary)
	if rc.Rule != "unschedulable-insufficient-resources" || !strings.Contains(rc.Summary, "1500m") || !strings.Contains(rc.Summary, "allocatable") {
		t.Fatalf("got %s: %s", rc.Rule, rc.Summary)
	}
}

// A pod pinned to a one-node pool that lacks CPU, with no tainted or cordoned node in the
// cluster: "1 Insufficient cpu, 3 didn't match the selector" is still its requests, not its
// selector (the verdict must not depend on whether other nodes happen to be tainted).
func TestRequestsOutweighOtherPoolsSelector(t *testing.T) {
	objs := app("transcoder", 1, func(s *corev1.PodSpec) {
		s.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("1500m")
		s.NodeSelector = map[string]string{"pool": "media"}
	}, func(p *corev1.Pod) {
		fx.Unschedulable(p, "0/4 nodes are available: 1 Insufficient cpu, 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling.")
	})
	for i, name := range []string{"media", "a", "b", "c"} {
		n := fx.Node(name)
		if i == 0 {
			n.Labels["pool"] = "media"
		}
		objs = append(objs, n)
	}
	e := agent.NewRuleEngine(fake.NewClientset(objs...))
	e.Now = func() time.Time { return fx.Now }
	e.Logs = logBook{}.source()
	rc := drive(t, e, agent.Session{ID: "t", Problem: "transcoder runs fewer replicas than configured", Namespace: ns}).RootCause
	t.Logf("summary: %s", rc.Summary)
	if rc.Rule != "unschedulable-insufficient-resources" || !strings.Contains(rc.Summary, "1500m") {
		t.Fatalf("got %s: %s", rc.Rule, rc.Summary)
	}
}

// An Ingress serving an expired certificate: its Secret is renewed, or, when the renewal was
// written to another Secret, the Ingress is pointed at it.
func TestIngressCertificateExpired(t *testing.T) {
	cert := func(name string, notAfter time.Time) *corev1.Secret {
		pemb := selfSignedPEM(t, &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "shop.example.com"}, DNSNames: []string{"shop.example.com"},
			NotBefore: notAfter.Add(-90 * 24 * time.Hour), NotAfter: notAfter})
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Type: corev1.SecretTypeTLS, Data: map[string][]byte{"tls.crt": pemb, "tls.key": []byte("TOPSECRET")}}
	}
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: ns}, Spec: networkingv1.IngressSpec{
		TLS:   []networkingv1.IngressTLS{{Hosts: []string{"shop.example.com"}, SecretName: "shop-tls-2024"}},
		Rules: []networkingv1.IngressRule{{Host: "shop.example.com"}}}}
	for _, renewed := range []bool{true, false} {
		objs := []runtime.Object{ing, cert("shop-tls-2024", fx.Now.Add(-72*time.Hour)), fx.Node("node-1")}
		want := "Secret/shop-tls-2024"
		if renewed {
			objs = append(objs, cert("shop-tls", fx.Now.Add(60*24*time.Hour)))
			want = "Ingress/shop"
		}
		e := agent.NewRuleEngine(fake.NewClientset(objs...))
		e.Now = func() time.Time { return fx.Now }
		e.Logs = logBook{}.source()
		rc := drive(t, e, agent.Session{ID: "t", Problem: "browsers warn that shop.example.com's certificate expired", Namespace: ns, Target: &agent.Target{Kind: "Ingress", Name: "shop"}}).RootCause
		if got := rc.Culprit.Kind + "/" + rc.Culprit.Name; rc.Rule != "certificate-expired" || got != want {
			t.Fatalf("renewed=%v: got %s on %s, want certificate-expired on %s: %s", renewed, rc.Rule, got, want, rc.Summary)
		}
		if !strings.Contains(rc.Summary, "shop-tls-2024") || renewed && !strings.Contains(rc.Summary, "Secret shop-tls ") || strings.Contains(rc.Summary, "TOPSECRET") {
			t.Errorf("renewed=%v: summary: %s", renewed, rc.Summary)
		}
	}
}

// A quota that refuses a workload's pods, whose requests a LimitRange default wrote in (the
// template asks for none): the default is what counts against the quota, and is named.
func TestQuotaFilledByALimitRangeDefault(t *testing.T) {
	objs := func(injected bool) []runtime.Object {
		o := app("thumbnailer", 3, func(s *corev1.PodSpec) {
			if !injected {
				s.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}
			}
		}, func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}
			if injected {
				p.Annotations = map[string]string{"kubernetes.io/limit-ranger": "LimitRanger plugin set: cpu request for container app"}
			}
		})
		d, rs := o[0].(*appsv1.Deployment), o[1].(*appsv1.ReplicaSet)
		d.Spec.Replicas, rs.Spec.Replicas = fx.Ptr(int32(6)), fx.Ptr(int32(6))
		d.Status.Replicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.UnavailableReplicas = 3, 3, 3, 3
		msg := `pods "thumbnailer-x" is forbidden: exceeded quota: team-compute, requested: requests.cpu=500m, used: requests.cpu=1700m, limited: requests.cpu=2`
		d.Status.Conditions = append(d.Status.Conditions, appsv1.DeploymentCondition{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: msg})
		q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "team-compute", Namespace: ns},
			Spec:   corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourceRequestsCPU: resource.MustParse("2")}},
			Status: corev1.ResourceQuotaStatus{Hard: corev1.ResourceList{corev1.ResourceRequestsCPU: resource.MustParse("2")}, Used: corev1.ResourceList{corev1.ResourceRequestsCPU: resource.MustParse("1700m")}}}
		lr := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "team-defaults", Namespace: ns}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer,
			DefaultRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}}}}
		ev := fx.Event(ns, "ReplicaSet", rs.Name, "Warning", "FailedCreate", "Error creating: "+msg, 12, time.Minute)
		return append(o, q, lr, ev, fx.Node("node-1"))
	}
	for _, injected := range []bool{true, false} {
		rc := drive(t, engine(objs(injected)...), sessionFor("thumbnailer runs 3 of 6 replicas")).RootCause
		want := "ResourceQuota/team-compute"
		if injected {
			want = "LimitRange/team-defaults"
		}
		if got := rc.Culprit.Kind + "/" + rc.Culprit.Name; rc.Rule != "quota-exceeded" || got != want {
			t.Errorf("injected=%v: got %s on %s, want quota-exceeded on %s: %s", injected, rc.Rule, got, want, rc.Summary)
		}
		if injected && !strings.Contains(rc.Summary, "defaultRequest cpu=500m") {
			t.Errorf("summary does not name the default: %s", rc.Summary)
		}
	}
}
