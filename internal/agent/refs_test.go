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
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
	"github.com/kubage/kubage/test/vocabulary"
)

// refCase is one namespace whose fault is a reference between objects; the session runs
// target-less (only a problem text), the way an alert without labels creates one.
type refCase struct {
	name    string
	problem string
	target  *agent.Target
	objs    func() []runtime.Object
	rule    string
	culprit agent.ObjectRef
	// also are further objects affectedObjects must name (the referencing workload).
	also  []agent.ObjectRef
	terms []string
}

func ref(kind, name string) agent.ObjectRef { return agent.ObjectRef{Kind: kind, Name: name} }

func statefulSet(name string, replicas, ready int32, mutate func(*appsv1.StatefulSet)) *appsv1.StatefulSet {
	lbls := map[string]string{"app": name}
	s := &appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{Kind: "StatefulSet", APIVersion: "apps/v1"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: fx.UID("StatefulSet", name), CreationTimestamp: fx.Ago(time.Hour)},
		Spec: appsv1.StatefulSetSpec{Replicas: &replicas, ServiceName: name, Selector: &metav1.LabelSelector{MatchLabels: lbls},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: lbls}, Spec: corev1.PodSpec{Containers: []corev1.Container{fx.Container("app", "registry.example/"+name+":1")}}}},
		Status: appsv1.StatefulSetStatus{Replicas: replicas, ReadyReplicas: ready, ObservedGeneration: 1},
	}
	if mutate != nil {
		mutate(s)
	}
	return s
}

func daemonSet(name string, mutate func(*appsv1.DaemonSet)) *appsv1.DaemonSet {
	lbls := map[string]string{"app": name}
	d := &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{Kind: "DaemonSet", APIVersion: "apps/v1"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: fx.UID("DaemonSet", name), CreationTimestamp: fx.Ago(time.Hour), Generation: 1},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: lbls},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: lbls}, Spec: corev1.PodSpec{Containers: []corev1.Container{fx.Container("agent", "registry.example/"+name+":1")}}}},
		Status: appsv1.DaemonSetStatus{ObservedGeneration: 1},
	}
	if mutate != nil {
		mutate(d)
	}
	return d
}

func refCases() []refCase {
	return []refCase{
		{
			name: "job mounts a claim that does not exist", problem: "the monthly export is stuck",
			objs: func() []runtime.Object {
				j := fx.Job(ns, "export", "registry.example/export:1")
				j.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "out", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "exports"}}}}
				p := fx.Pod(ns, "export-abcde", j.Spec.Template.Labels, j.Spec.Template.Spec, j, "Job")
				fx.Unschedulable(p, `0/3 nodes are available: persistentvolumeclaim "exports" not found.`)
				return []runtime.Object{j, p, fx.Node("node-1")}
			},
			rule: "pvc-missing", culprit: ref("PersistentVolumeClaim", "exports"), also: []agent.ObjectRef{ref("Job", "export")}, terms: []string{"exports"},
		},
		{
			name: "statefulset claim template names a StorageClass that does not exist", problem: "postgres-0 never starts",
			objs: func() []runtime.Object {
				sc := "gp3-encrypted"
				s := statefulSet("postgres", 1, 0, func(s *appsv1.StatefulSet) {
					s.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"},
						Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &sc, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}}}}
				})
				return []runtime.Object{s, fx.PVC(ns, "data-postgres-0", &sc, corev1.ClaimPending), svcAt("postgres", "None", map[string]string{"app": "postgres"}, 5432),
					fx.StorageClass("standard", "rancher.io/local-path", true, storagev1.VolumeBindingWaitForFirstConsumer), fx.Node("node-1")}
			},
			rule: "pvc-storageclass-missing", culprit: agent.ObjectRef{Kind: "StorageClass", Name: "gp3-encrypted"}, also: []agent.ObjectRef{ref("StatefulSet", "postgres")}, terms: []string{"gp3-encrypted"},
		},
		{
			name: "deployment env loads a ConfigMap that was deleted after its pods started", problem: "something is off with web",
			objs: func() []runtime.Object {
				return append(app("web", 2, envFrom("web-settings"), nil), fx.Node("node-1"))
			},
			rule: "configmap-missing", culprit: ref("ConfigMap", "web-settings"), also: []agent.ObjectRef{ref("Deployment", "web")}, terms: []string{"new pods will fail"},
		},
		{
			name: "secret key renamed, a typo nearby", problem: "fluent-bit does not start",
			objs: func() []runtime.Object {
				objs := app("shipper", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Env = []corev1.EnvVar{{Name: "ES_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
						LocalObjectReference: corev1.LocalObjectReference{Name: "es-credentials"}, Key: "password"}}}}
				}, func(p *corev1.Pod) {
					fx.Waiting(p, "CreateContainerConfigError", "couldn't find key password in Secret payments/es-credentials")
				})
				return append(objs, fx.Secret(ns, "es-credentials", "passwd"), fx.Node("node-1"))
			},
			rule: "secret-key-missing", culprit: ref("Secret", "es-credentials"), also: []agent.ObjectRef{ref("Deployment", "shipper")}, terms: []string{"password"},
		},
		{
			name: "imagePullSecret typo", problem: "ledger cannot pull its image",
			objs: func() []runtime.Object {
				objs := app("ledger", 1, func(s *corev1.PodSpec) {
					s.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
				}, func(p *corev1.Pod) {
					fx.Waiting(p, "ImagePullBackOff", `Back-off pulling image "registry.private.example/ledger:1": unauthorized: authentication required`)
				})
				return append(objs, fx.Secret(ns, "reg-cred", ".dockerconfigjson"), fx.Node("node-1"))
			},
			culprit: ref("Secret", "regcred"), also: []agent.ObjectRef{ref("Deployment", "ledger")}, terms: []string{"regcred"},
		},
		{
			name: "pods name a RuntimeClass that does not exist", problem: "sandboxed-api has zero pods",
			objs: func() []runtime.Object {
				d := fx.Deployment(ns, "sandboxed-api", 1, "registry.example/sandboxed-api:1")
				d.Spec.Template.Spec.RuntimeClassName = fx.Ptr("gvisor")
				d.Status = appsv1.DeploymentStatus{}
				rs := fx.ReplicaSet(d, 1, 1, "registry.example/sandboxed-api:1")
				rs.Status = appsv1.ReplicaSetStatus{}
				ev := fx.Event(ns, "ReplicaSet", rs.Name, "Warning", "FailedCreate", `Error creating: pods "sandboxed-api-5d8f9-" is forbidden: pod rejected: RuntimeClass "gvisor" not found`, 9, time.Minute)
				return []runtime.Object{d, rs, ev, fx.Node("node-1")}
			},
			rule: "runtimeclass-missing", culprit: agent.ObjectRef{Kind: "RuntimeClass", Name: "gvisor"}, also: []agent.ObjectRef{ref("Deployment", "sandboxed-api")}, terms: []string{"gvisor"},
		},
	}
}

func TestDanglingReferencesTargetLess(t *testing.T) {
	for _, tc := range refCases() {
		t.Run(tc.name, func(t *testing.T) {
			e := agent.NewRuleEngine(fake.NewClientset(tc.objs()...))
			e.Now = func() time.Time { return fx.Now }
			e.Logs = logBook{}.source()
			c := drive(t, e, agent.Session{ID: "t", Problem: tc.problem, Namespace: ns, Target: tc.target})
			rc := c.RootCause
			t.Logf("%s on %s: %s (affected %v)", rc.Rule, rc.Culprit, rc.Summary, rc.AffectedObjects)
			if tc.rule != "" && rc.Rule != tc.rule {
				t.Errorf("rule %s, want %s", rc.Rule, tc.rule)
			}
			if rc.Culprit.Kind != tc.culprit.Kind || rc.Culprit.Name != tc.culprit.Name {
				t.Errorf("culprit %s, want %s", rc.Culprit, tc.culprit)
			}
			for _, want := range append([]agent.ObjectRef{tc.culprit}, tc.also...) {
				found := false
				for _, a := range rc.AffectedObjects {
					found = found || a.Kind == want.Kind && a.Name == want.Name
				}
				if !found {
					t.Errorf("affectedObjects %v lack %s", rc.AffectedObjects, want)
				}
			}
			for _, term := range tc.terms {
				if !strings.Contains(strings.ToLower(rc.Summary), strings.ToLower(term)) {
					t.Errorf("summary lacks %q", term)
				}
			}
			if strings.Contains(rc.Summary, "TOPSECRET") {
				t.Errorf("summary leaks a secret value")
			}
			for _, g := range vocabulary.Gaps(rc) {
				t.Errorf("%s: the summary does not name %s: %s", rc.Rule, g, rc.Summary)
			}
		})
	}
}

// A cluster-scoped culprit named by a message carries no namespace.
func TestRuntimeClassCulpritIsClusterScoped(t *testing.T) {
	for _, tc := range refCases() {
		if tc.rule != "runtimeclass-missing" {
			continue
		}
		c := conclude(t, tc.objs()...)
		if c.RootCause.Culprit.Namespace != "" {
			t.Fatalf("culprit %+v has a namespace", c.RootCause.Culprit)
		}
	}
}

// A typo next to an existing name is said, and the fix on the workload comes with the note
// that a Job's pod template cannot be edited.
func TestDanglingReferenceNamesTypoAndImmutableFix(t *testing.T) {
	j := fx.Job(ns, "backup", "registry.example/backup:1")
	j.Spec.Template.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "s3-credentails"}}}}
	p := fx.Pod(ns, "backup-abcde", j.Spec.Template.Labels, j.Spec.Template.Spec, j, "Job")
	fx.Waiting(p, "CreateContainerConfigError", `secret "s3-credentails" not found`)
	c := conclude(t, j, p, fx.Secret(ns, "s3-credentials", "key"), fx.Node("node-1"))
	rc := c.RootCause
	if rc.Rule != "secret-missing" || rc.Culprit.Name != "s3-credentails" {
		t.Fatalf("got %s on %s: %s", rc.Rule, rc.Culprit, rc.Summary)
	}
	if !strings.Contains(rc.Summary, "s3-credentials exists") {
		t.Errorf("summary does not name the near match: %s", rc.Summary)
	}
	immutable := false
	for _, a := range c.Remediation.Actions {
		immutable = immutable || strings.Contains(a.Description, "immutable")
	}
	if !immutable {
		t.Errorf("no action notes the Job's immutable template: %+v", c.Remediation.Actions)
	}
}

// Quiet findings never outrank a failure: a suspended CronJob and a latent dangling
// reference lose to a crash loop in the same namespace.
func TestQuietFindingsRankBelowFailures(t *testing.T) {
	cj := fx.CronJob(ns, "report", "0 3 * * *")
	cj.Spec.Suspend = fx.Ptr(true)
	objs := append(app("web", 1, nil, crashing), cj, fx.Node("node-1"))
	objs = append(objs, app("api", 1, envFrom("api-settings"), nil)...)
	c := conclude(t, objs...)
	if c.RootCause.Rule == "cronjob-suspended" || c.RootCause.Rule == "configmap-missing" {
		t.Fatalf("a quiet finding won: %s: %s", c.RootCause.Rule, c.RootCause.Summary)
	}
}

// Optional references and existing objects are no finding: a healthy namespace stays quiet.
func TestHealthyReferencesAreNoFinding(t *testing.T) {
	opt := true
	objs := app("web", 1, func(s *corev1.PodSpec) {
		s.Containers[0].EnvFrom = []corev1.EnvFromSource{
			{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-settings"}}},
			{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "maybe"}, Optional: &opt}},
		}
		s.ServiceAccountName = "web"
	}, nil)
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns}}
	objs = append(objs, fx.ConfigMap(ns, "web-settings", "A"), sa, fx.Node("node-1"))
	db := statefulSet("db", 1, 1, func(s *appsv1.StatefulSet) {
		s.Spec.Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 5432}}
	})
	dbPod := fx.Pod(ns, "db-0", db.Spec.Template.Labels, db.Spec.Template.Spec, db, "StatefulSet")
	dbSvc := svcAt("db", "None", map[string]string{"app": "db"}, 5432)
	objs = append(objs, db, dbPod, dbSvc, fx.EndpointSlice(dbSvc, dbPod))
	objs = append(objs, daemonSet("agent", func(d *appsv1.DaemonSet) { d.Status.DesiredNumberScheduled = 1; d.Status.NumberReady = 1 }))
	c := conclude(t, objs...)
	if c.RootCause.Rule != "no-problem-found" {
		t.Fatalf("got %s on %s: %s", c.RootCause.Rule, c.RootCause.Culprit, c.RootCause.Summary)
	}
}

// Each dangling reference comes with the fix on the referencing object; a StatefulSet's
// claim templates cannot be edited in place, and the action says so.
func TestDanglingReferenceFixOnTheReferrer(t *testing.T) {
	for _, tc := range refCases() {
		want := map[string]string{"runtimeclass-missing": "Deployment sandboxed-api", "pvc-missing": "Job export",
			"pvc-storageclass-missing": "volumeClaimTemplates are immutable"}[tc.rule]
		if want == "" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			c := conclude(t, tc.objs()...)
			var descs []string
			for _, a := range c.Remediation.Actions {
				descs = append(descs, a.Description)
			}
			if !strings.Contains(strings.Join(descs, "\n"), want) {
				t.Errorf("no action mentions %q: %q", want, descs)
			}
		})
	}
}

// A RoleBinding whose ClusterRole does not exist is found by the scan when nothing else in
// the namespace fails, and names the binding and the ServiceAccount it was meant for; an
// access question about the account names the ClusterRole and the binding too.
func TestRoleBindingToMissingClusterRole(t *testing.T) {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "vault-agent", Namespace: ns}}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "vault-agent-secrets", Namespace: ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "secret-reader"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "vault-agent", Namespace: ns}}}
	ok := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "viewers", Namespace: ns},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"}}
	view := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "view"}}
	for _, tc := range []struct {
		problem string
		target  *agent.Target
		rule    string
	}{
		{problem: "the vault agent sidecar gets nothing", rule: "rolebinding-role-missing"},
		{problem: "why can't vault-agent read secrets in this namespace?"},
		{problem: "why can't vault-agent read secrets in this namespace?", target: &agent.Target{Kind: "ServiceAccount", Name: "vault-agent"}},
	} {
		e := agent.NewRuleEngine(fake.NewClientset(sa, rb, ok, view, fx.Node("node-1")))
		e.Now = func() time.Time { return fx.Now }
		c := drive(t, e, agent.Session{ID: "t", Problem: tc.problem, Namespace: ns, Target: tc.target})
		rc := c.RootCause
		if tc.rule != "" && (rc.Rule != tc.rule || rc.Culprit.Kind != "ClusterRole" || rc.Culprit.Name != "secret-reader" || rc.Culprit.Namespace != "") {
			t.Fatalf("%q: got %s on %+v: %s", tc.problem, rc.Rule, rc.Culprit, rc.Summary)
		}
		names := map[string]bool{}
		for _, a := range rc.AffectedObjects {
			names[a.Kind+"/"+a.Name] = true
		}
		if !names["RoleBinding/vault-agent-secrets"] || !names["ClusterRole/secret-reader"] || names["RoleBinding/viewers"] || !strings.Contains(rc.Summary, "secret-reader") {
			t.Errorf("%q (target %v): %s on %s, affected %v: %s", tc.problem, tc.target, rc.Rule, rc.Culprit, rc.AffectedObjects, rc.Summary)
		}
	}
}

// conclude runs the rule engine target-less over objs, the way an alert without labels
// creates a session, step by step (drive); whole sessions run in test/ruleengine.
func conclude(t *testing.T, objs ...runtime.Object) agent.Conclusion {
	t.Helper()
	return drive(t, engine(objs...), agent.Session{ID: "t", Problem: "something is broken", Namespace: ns})
}

// A target that is missing when the rule engine looks (it vanished after the session
// checked it) is a finding that names it.
func TestMissingTargetIsAFinding(t *testing.T) {
	_, _, objs := webApp(1, nil)
	c := drive(t, engine(objs...), agent.Session{ID: "t", Problem: "something is broken", Namespace: ns, Target: deploy("api")})
	rc := c.RootCause
	if rc.Rule != "target-not-found" || rc.Culprit.Kind+"/"+rc.Culprit.Name != "Deployment/api" || !strings.Contains(rc.Summary, "no such Deployment api in payments") {
		t.Fatalf("got %s on %s: %s", rc.Rule, rc.Culprit, rc.Summary)
	}
}

// A reference's objects come in the order a user fixes them: the missing object (reported
// first, as the culprit), then the workload that names it, then the pods in between.
func TestReferenceHolderFollowsTheCulprit(t *testing.T) {
	objs := app("api", 1, envFrom("api-settings"), func(p *corev1.Pod) {
		fx.Waiting(p, "CreateContainerConfigError", `configmap "api-settings" not found`)
	})
	rc := conclude(t, append(objs, fx.Node("node-1"))...).RootCause
	if len(rc.AffectedObjects) < 3 || rc.AffectedObjects[0] != ref2(rc.Culprit) || rc.AffectedObjects[1].Kind != "Deployment" || rc.AffectedObjects[2].Kind != "Pod" {
		t.Fatalf("%s: affected %v", rc.Rule, rc.AffectedObjects)
	}
	if !strings.Contains(rc.Summary, "CreateContainerConfigError") || !strings.Contains(rc.Summary, "Deployment api") {
		t.Errorf("summary: %s", rc.Summary)
	}
}

func ref2(r agent.ObjectRef) agent.ObjectRef { return r }

// A pull secret the pods inherit from their ServiceAccount is fixed on the ServiceAccount.
func TestPullSecretInheritedFromServiceAccount(t *testing.T) {
	objs := app("ledger", 1, func(s *corev1.PodSpec) { s.ServiceAccountName = "ledger" }, func(p *corev1.Pod) {
		p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
		fx.Waiting(p, "ImagePullBackOff", `Back-off pulling image "registry.private.example/ledger:1"`)
	})
	account := sa("ledger")
	account.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
	c := conclude(t, append(objs, account, fx.Node("node-1"))...)
	rc := c.RootCause
	names := map[string]bool{}
	for _, a := range rc.AffectedObjects {
		names[a.Kind+"/"+a.Name] = true
	}
	if rc.Culprit.Name != "regcred" || !names["ServiceAccount/ledger"] || !names["Deployment/ledger"] || !strings.Contains(rc.Summary, "inherited from ServiceAccount ledger") {
		t.Fatalf("%s on %s, affected %v: %s", rc.Rule, rc.Culprit, rc.AffectedObjects, rc.Summary)
	}
	fix := false
	for _, a := range c.Remediation.Actions {
		fix = fix || strings.Contains(a.Description, "ServiceAccount ledger")
	}
	if !fix {
		t.Errorf("no action on the ServiceAccount: %+v", c.Remediation.Actions)
	}
}

// A claim template's class that no StorageClass carries is a static class when volumes carry
// it: pre-bound volumes of class "manual" (or any name a team picks) are no dangling
// reference, in a healthy namespace or beside a real failure.
func TestStaticClassOnClaimTemplatesIsNoDanglingReference(t *testing.T) {
	for _, class := range []string{"manual", "local-static", "nfs-prebound"} {
		t.Run(class, func(t *testing.T) {
			sc := class
			db := statefulSet("db", 1, 1, func(s *appsv1.StatefulSet) {
				s.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"},
					Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &sc, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}}}}
			})
			pvc := fx.PVC(ns, "data-db-0", &sc, corev1.ClaimBound)
			pvc.Spec.VolumeName = "pv-db-0"
			pv := &corev1.PersistentVolume{TypeMeta: metav1.TypeMeta{Kind: "PersistentVolume", APIVersion: "v1"},
				ObjectMeta: metav1.ObjectMeta{Name: "pv-db-0"},
				Spec: corev1.PersistentVolumeSpec{StorageClassName: sc, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Capacity:               corev1.ResourceList{corev1.ResourceStorage: pvc.Spec.Resources.Requests[corev1.ResourceStorage]},
					ClaimRef:               &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: ns, Name: pvc.Name},
					PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/srv/db-0"}}},
				Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound}}
			dbPod := fx.Pod(ns, "db-0", db.Spec.Template.Labels, db.Spec.Template.Spec, db, "StatefulSet")
			dbSvc := svcAt("db", "None", map[string]string{"app": "db"}, 5432)
			base := []runtime.Object{db, dbPod, dbSvc, fx.EndpointSlice(dbSvc, dbPod), pvc, pv, fx.Node("node-1")}
			if c := conclude(t, base...); c.RootCause.Rule != "no-problem-found" {
				t.Fatalf("healthy: got %s on %s: %s", c.RootCause.Rule, c.RootCause.Culprit, c.RootCause.Summary)
			}
			c := conclude(t, append(base, app("web", 1, nil, crashing)...)...)
			if c.RootCause.Rule == "pvc-storageclass-missing" {
				t.Fatalf("beside a crash loop: the static class won: %s", c.RootCause.Summary)
			}
			// Without volumes of the class, the missing StorageClass is still found.
			c = conclude(t, db, dbPod, dbSvc, fx.PVC(ns, "data-db-0", &sc, corev1.ClaimPending), fx.Node("node-1"))
			if c.RootCause.Rule != "pvc-storageclass-missing" {
				t.Fatalf("no volumes of the class: got %s: %s", c.RootCause.Rule, c.RootCause.Summary)
			}
		})
	}
}
