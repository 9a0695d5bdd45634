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

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
	"github.com/kubage/kubage/test/vocabulary"
)

// A healthy Deployment whose annotations ask a controller of the namespace to act on it: the
// controller's own trouble is the answer, named with the Deployment, and it outranks an
// unrelated Pending pod next door.
func TestAnnotatedControllerIsRead(t *testing.T) {
	annotated := func(key string) []runtime.Object {
		objs := app("storefront", 2, nil, nil)
		objs[0].(*appsv1.Deployment).Annotations = map[string]string{key: "true"}
		return objs
	}
	withSA := func(name string) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) { s.ServiceAccountName = name }
	}
	noise := app("reindexer", 1, nil, func(p *corev1.Pod) {
		fx.Unschedulable(p, "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.")
	})
	watchDenied := strings.Repeat(`W0305 07:58:13.204118       1 reflector.go:561] failed to watch *v1.ConfigMap: configmaps is forbidden: User "system:serviceaccount:shop:reloader" cannot watch resource "configmaps" in API group "" in the namespace "shop"`+"\n", 4)
	for _, tc := range []struct {
		name, key, problem string
		objs               []runtime.Object
		logs               logBook
		rule, culprit      string
		terms              []string
	}{
		{name: "a reloader that may not watch ConfigMaps", key: "reloader.stakater.com/auto",
			problem: "we changed the storefront flags an hour ago and the storefront pods were never restarted",
			objs: append(append(app("reloader", 1, withSA("reloader"), nil), sa("reloader"),
				role("reloader-role", []string{"get", "list"}, []string{""}, "configmaps", "secrets"),
				binding("reloader-role-binding", "Role", "reloader-role", saSubject("reloader", ns)), fx.Node("node-1")), noise...),
			logs: logBook{"reloader-": watchDenied},
			rule: "rbac-forbidden", culprit: "Role/reloader-role", terms: []string{"watch", "reloader.stakater.com/auto"}},
		{name: "an image updater that lists an API the cluster no longer serves", key: "keel.sh/policy",
			problem: "storefront still runs the old image although a new one was pushed this morning",
			objs:    append(append(app("keel", 1, nil, nil), fx.Node("node-1")), noise...),
			logs:    logBook{"keel-": strings.Repeat(`time="2026-03-04T10:02:14Z" level=error msg="Failed to list *v1beta1.CronJob: the server could not find the requested resource"`+"\n", 5)},
			rule:    "app-error-logged", culprit: "Deployment/keel", terms: []string{"v1beta1", "keel.sh/policy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := append(annotated(tc.key), tc.objs...)
			for _, target := range []*agent.Target{deploy("storefront"), nil} {
				e := agent.NewRuleEngine(fake.NewClientset(objs...))
				e.Now = func() time.Time { return fx.Now }
				e.Logs = tc.logs.source()
				rc := drive(t, e, agent.Session{ID: "t", Problem: tc.problem, Namespace: ns, Target: target}).RootCause
				if got := rc.Culprit.Kind + "/" + rc.Culprit.Name; rc.Rule != tc.rule || got != tc.culprit {
					t.Fatalf("target %v: got %s on %s, want %s on %s\nsummary: %s", target, rc.Rule, got, tc.rule, tc.culprit, rc.Summary)
				}
				var aff []string
				for _, r := range rc.AffectedObjects {
					aff = append(aff, r.Kind+"/"+r.Name)
				}
				if !contains(aff, "Deployment/storefront") {
					t.Errorf("affectedObjects %v lack the Deployment the controller fails to act on", aff)
				}
				for _, w := range tc.terms {
					if !strings.Contains(rc.Summary, w) {
						t.Errorf("summary lacks %q: %s", w, rc.Summary)
					}
				}
			}
		})
	}
}

// A controller that logs, at debug level, that it skips the Ingress the user asks about: the
// controller is the culprit, and the value the line quotes that is its own argument is named.
func TestControllerSkipsAskedObject(t *testing.T) {
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "checkout", Namespace: ns},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "checkout.shop.example.com"}}}}
	dns := app("external-dns", 1, func(s *corev1.PodSpec) {
		s.Containers[0].Args = []string{"--source=ingress", "--registry=txt", "--txt-owner-id=prod-eu1-green", "--interval=1m"}
	}, nil)
	skip := `time="2026-03-04T10:02:14Z" level=debug msg="Skipping endpoint checkout.shop.example.com 300 IN CNAME  lb-blue.example.net [] because owner id does not match, found: \"prod-eu1\", required: \"prod-eu1-green\""` + "\n"
	other := `time="2026-03-04T10:02:14Z" level=debug msg="Skipping endpoint returns-old.shop.example.com 300 IN CNAME lb.example.net [] because owner id does not match"` + "\n"
	logs := logBook{"external-dns-": `time="2026-03-04T10:02:11Z" level=info msg="Instantiating new Kubernetes client"` + "\n" + skip + other + skip}
	objs := append(append(dns, app("storefront", 2, nil, nil)...), ing, fx.Node("node-1"))
	for _, s := range []agent.Session{
		{ID: "targeted", Problem: "checkout.shop.example.com still resolves to the old load balancer", Namespace: ns, Target: &agent.Target{Kind: "Ingress", Name: "checkout"}},
		{ID: "target-less", Problem: "after the cut-over checkout.shop.example.com still resolves to the old load balancer", Namespace: ns},
	} {
		t.Run(s.ID, func(t *testing.T) {
			e := agent.NewRuleEngine(fake.NewClientset(objs...))
			e.Now = func() time.Time { return fx.Now }
			e.Logs = logs.source()
			rc := drive(t, e, s).RootCause
			if got := rc.Culprit.Kind + "/" + rc.Culprit.Name; rc.Rule != "controller-skips-object" || got != "Deployment/external-dns" {
				t.Fatalf("got %s on %s, want controller-skips-object on Deployment/external-dns\nsummary: %s", rc.Rule, got, rc.Summary)
			}
			for _, w := range []string{"--txt-owner-id=prod-eu1-green", "Ingress checkout", "owner id does not match"} {
				if !strings.Contains(rc.Summary, w) {
					t.Errorf("summary lacks %q: %s", w, rc.Summary)
				}
			}
			for _, g := range vocabulary.Gaps(rc) {
				t.Errorf("%s: the summary does not name %s: %s", rc.Rule, g, rc.Summary)
			}
		})
	}
}

// A line that skips another object, or a client that cannot reach the asked host, is not a
// controller declining to act on it.
func TestSkipLinesNamingOtherObjects(t *testing.T) {
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "checkout", Namespace: ns},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "checkout.shop.example.com"}}}}
	logs := logBook{"worker-": `level=debug msg="Skipping endpoint checkout.shop.example.com.old 300 IN CNAME because owner id does not match"` + "\n" +
		`level=warn msg="skipping refresh: dial tcp: lookup checkout.shop.example.com: no such host"` + "\n"}
	objs := append(append(app("worker", 1, nil, nil), app("checkout", 1, nil, nil)...), ing, fx.Node("node-1"))
	e := agent.NewRuleEngine(fake.NewClientset(objs...))
	e.Now = func() time.Time { return fx.Now }
	e.Logs = logs.source()
	rc := drive(t, e, agent.Session{ID: "t", Problem: "checkout.shop.example.com is slow", Namespace: ns, Target: &agent.Target{Kind: "Ingress", Name: "checkout"}}).RootCause
	if rc.Rule == "controller-skips-object" {
		t.Fatalf("a skip of another name read as the asked object's: %s", rc.Summary)
	}
}

// A readiness probe refused on the port the spec names while the container's log announces
// another: that explains the refusal whatever else the log complains about, and the shared
// setting that moved the port is the culprit.
func TestRefusedProbeTakesTheAnnouncedPort(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dotnet-defaults", Namespace: ns},
		Data: map[string]string{"ASPNETCORE_URLS": "http://+:5000", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel-collector:4317", "DOTNET_gcServer": "0"}}
	objs := app("catalog-api", 1, func(s *corev1.PodSpec) {
		envFrom("dotnet-defaults")(s)
		s.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}
		s.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz/ready", Port: intstr.FromString("http")}}, PeriodSeconds: 10}
	}, func(p *corev1.Pod) { fx.SetNotReady(p) })
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok {
			objs = append(objs, fx.Event(ns, "Pod", p.Name, "Warning", "Unhealthy", `Readiness probe failed: Get "http://10.244.1.23:8080/healthz/ready": dial tcp 10.244.1.23:8080: connect: connection refused`, 30, time.Minute))
			break
		}
	}
	logs := logBook{"catalog-api-": "info: Microsoft.Hosting.Lifetime[14]\n      Now listening on: http://[::]:5000\n" +
		strings.Repeat("fail: OpenTelemetry.Exporter[0] Exporter failed to send data to otel-collector:4317: No such host is known. (otel-collector:4317)\n", 3)}
	e := agent.NewRuleEngine(fake.NewClientset(append(objs, cm, fx.Node("node-1"))...))
	e.Now = func() time.Time { return fx.Now }
	e.Logs = logs.source()
	rc := drive(t, e, agent.Session{ID: "t", Problem: "catalog-api never becomes ready", Namespace: ns, Target: deploy("catalog-api")}).RootCause
	if got := rc.Culprit.Kind + "/" + rc.Culprit.Name; rc.Rule != "readiness-probe-failing" || got != "ConfigMap/dotnet-defaults" {
		t.Fatalf("got %s on %s, want readiness-probe-failing on ConfigMap/dotnet-defaults: %s", rc.Rule, got, rc.Summary)
	}
	for _, w := range []string{"ASPNETCORE_URLS", "5000", "8080"} {
		if !strings.Contains(rc.Summary, w) {
			t.Errorf("summary lacks %q: %s", w, rc.Summary)
		}
	}
}

// A run made from a CronJob by hand own-references it without being controlled by it; the
// CronJob's template is what the run copied, so the fix is named there.
func TestManualRunBlamesItsCronJob(t *testing.T) {
	cj := fx.CronJob(ns, "manifest-backup", "15 1 * * *")
	j := fx.Job(ns, "manifest-backup-manual-7xk2p", "registry.example/backup:1")
	j.Annotations = map[string]string{"cronjob.kubernetes.io/instantiate": "manual"}
	j.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "CronJob", Name: cj.Name, UID: cj.UID}}
	vol := corev1.Volume{Name: "sshkey", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "backup-ssh", DefaultMode: fx.Ptr(int32(0o644))}}}
	j.Spec.Template.Spec.Volumes = []corev1.Volume{vol}
	j.Spec.Template.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "sshkey", MountPath: "/backup/.ssh"}}
	j.Spec.BackoffLimit = fx.Ptr(int32(0))
	j.Status.Failed = 1
	j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit", LastTransitionTime: fx.Ago(time.Minute)}}
	p := fx.FailedJobPod(j, "22wbb", 128)
	p.Status.ContainerStatuses[0].State.Terminated.Message = "Permissions 0644 for '/backup/.ssh/id_ed25519' are too open.\nThis private key will be ignored.\ngit@git.example: Permission denied (publickey)."
	e := agent.NewRuleEngine(fake.NewClientset(cj, j, p, fx.Node("node-1")))
	e.Now = func() time.Time { return fx.Now }
	e.Logs = logBook{}.source()
	rc := drive(t, e, agent.Session{ID: "t", Problem: "the manual backup run failed", Namespace: ns}).RootCause
	if got := rc.Culprit.Kind + "/" + rc.Culprit.Name; rc.Rule != "key-file-mode-too-open" || got != "CronJob/manifest-backup" {
		t.Fatalf("got %s on %s, want key-file-mode-too-open on CronJob/manifest-backup: %s", rc.Rule, got, rc.Summary)
	}
}

// A publisher whose messages find no queue, and a consumer's binding key a letter away from
// the routing key it quotes: the consumer's ConfigMap holds the typo.
func TestNearValueInAnotherConfigMap(t *testing.T) {
	cm := func(name, key string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Data: map[string]string{"EXCHANGE": "orders", "BINDING_KEY": key, "PREFETCH": "10"}}
	}
	objs := append(app("orders-api", 1, withEnv("ORDERS_EVENTS_EXCHANGE", "orders", "ORDERS_EVENTS_CREATED_KEY", "orders.created"), nil),
		cm("order-mailer-config", "order.created"), cm("invoice-worker-config", "orders.created"), fx.Node("node-1"))
	logs := logBook{"orders-api-": strings.Repeat(`2026-03-09 10:00:01.311  WARN 1 --- [connectionFactory1] c.s.o.events.OrderEventsPublisher : returned by broker: replyCode=312 replyText=NO_ROUTE exchange=orders routingKey=orders.created`+"\n", 4)}
	e := agent.NewRuleEngine(fake.NewClientset(objs...))
	e.Now = func() time.Time { return fx.Now }
	e.Logs = logs.source()
	rc := drive(t, e, agent.Session{ID: "t", Problem: "customers no longer get order confirmation mails", Namespace: ns, Target: deploy("orders-api")}).RootCause
	if got := rc.Culprit.Kind + "/" + rc.Culprit.Name; rc.Rule != "config-value-rejected" || got != "ConfigMap/order-mailer-config" {
		t.Fatalf("got %s on %s, want config-value-rejected on ConfigMap/order-mailer-config: %s", rc.Rule, got, rc.Summary)
	}
	if !strings.Contains(rc.Summary, `"order.created"`) || !strings.Contains(rc.Summary, "BINDING_KEY") {
		t.Errorf("summary: %s", rc.Summary)
	}
}

// An ingress controller's error quotes a name one Ingress's annotation holds: that Ingress
// is where the name is fixed, compared with another Ingress that sets the same annotation.
func TestControllerErrorNamesAnIngressAnnotation(t *testing.T) {
	const mw = "traefik.ingress.kubernetes.io/router.middlewares"
	ingress := func(name, middleware string) *networkingv1.Ingress {
		return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Annotations: map[string]string{mw: middleware}},
			Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "ops.example.com"}}, TLS: []networkingv1.IngressTLS{{Hosts: []string{"ops.example.com"}, SecretName: name + "-tls"}}}}
	}
	line := `2026-11-29T10:02:11Z ERR error="middleware \"strip-admin@kubernetescrd\" does not exist" entryPointName=websecure routerName=admin-ui-ops-example-com-admin@kubernetes` + "\n"
	runDepCases(t, []depCase{
		{name: "Traefik cannot find the middleware the admin-ui Ingress names", problem: "ops.example.com/admin answers 404",
			objs: func() []runtime.Object {
				o := append(app("traefik", 1, nil, nil), app("admin-ui", 1, nil, nil)...)
				return append(o, ingress("admin-ui", "strip-admin@kubernetescrd"), ingress("status-page", "payments-strip-status@kubernetescrd"),
					fx.Secret(ns, "admin-ui-tls", "tls.crt", "tls.key"), fx.Secret(ns, "status-page-tls", "tls.crt", "tls.key"), fx.Node("node-1"))
			},
			logs: logBook{"traefik-": "2026-11-29T10:02:10Z INF Starting provider *ingress.Provider\n" + line + line + line, "admin-ui-": "listening on :8080\n"},
			rule: "config-value-rejected", culprit: "Ingress/admin-ui", terms: []string{"strip-admin@kubernetescrd", mw, "payments-strip-status@kubernetescrd", "admin-ui-tls"}},
	})
}
