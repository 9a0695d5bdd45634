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

package remediate

import (
	"context"
	"errors"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func TestParseCommand(t *testing.T) {
	ok := map[string]Op{
		"kubectl -n shop rollout restart deployment/web":             {Verb: RolloutRestart, Kind: "Deployment", Namespace: "shop", Name: "web"},
		"kubectl rollout restart sts db --namespace=shop":            {Verb: RolloutRestart, Kind: "StatefulSet", Namespace: "shop", Name: "db"},
		"kubectl -n shop scale deploy/web --replicas=3":              {Verb: Scale, Kind: "Deployment", Namespace: "shop", Name: "web", Replicas: 3},
		"kubectl scale --replicas 0 statefulsets.apps/db -nshop":     {Verb: Scale, Kind: "StatefulSet", Namespace: "shop", Name: "db"},
		"kubectl -n shop delete pod web-1  # the evicted one":        {Verb: DeletePod, Kind: "Pod", Namespace: "shop", Name: "web-1"},
		"kubectl -n 'shop' delete pods/web-2":                        {Verb: DeletePod, Kind: "Pod", Namespace: "shop", Name: "web-2"},
		`kubectl --namespace "shop" rollout restart daemonset/agent`: {Verb: RolloutRestart, Kind: "DaemonSet", Namespace: "shop", Name: "agent"},
	}
	for cmd, want := range ok {
		t.Run(cmd, func(t *testing.T) {
			g := NewWithT(t)
			op, err := ParseCommand("shop", cmd)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(op).To(Equal(want))
		})
	}
	rejected := []string{
		"kubectl -n other rollout restart deployment/web",
		"kubectl -n shop rollout undo deployment/web",
		"kubectl -n shop scale deployment/web --replicas=<n>",
		"kubectl -n shop scale deployment/web --replicas=5000",
		"kubectl -n shop scale daemonset/agent --replicas=2",
		"kubectl -n shop delete deployment web",
		"kubectl -n shop delete pod --all",
		"kubectl -n shop delete pod web-1 web-2",
		"kubectl -n shop delete pod web-1; rm -rf /",
		"kubectl -n shop delete pod $(whoami)",
		"kubectl -n shop delete pod \"$(whoami)\"",
		"kubectl -n shop delete pod web-1 --force --grace-period=0",
		"kubectl -n shop logs web-1 --previous",
		"kubectl -n shop set image deployment/web app=<registry/repo:tag>",
		"helm rollback web",
		"kubectl -n shop rollout restart deployment/Web_1",
		"kubectl -n shop delete pod 'unbalanced",
		"",
	}
	for _, cmd := range rejected {
		t.Run("rejects "+cmd, func(t *testing.T) {
			g := NewWithT(t)
			_, err := ParseCommand("shop", cmd)
			g.Expect(errors.Is(err, ErrNotExecutable)).To(BeTrue(), "got %v", err)
		})
	}
}

func TestParsePatch(t *testing.T) {
	g := NewWithT(t)
	op, err := ParsePatch("shop", "Deployment", "", "web", "Merge", `{"spec":{"replicas":2}}`)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(op.Verb).To(Equal(Patch))
	_, err = ParsePatch("shop", "ClusterRole", "", "admin", "", `{}`)
	g.Expect(err).To(MatchError(ErrNotExecutable))
	_, err = ParsePatch("shop", "ConfigMap", "kube-system", "x", "", `{}`)
	g.Expect(err).To(MatchError(ErrNotExecutable))
}

func TestExecute(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	replicas := int32(1)
	cs := fake.NewClientset(
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}, Spec: appsv1.DeploymentSpec{Replicas: &replicas}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-1"}},
	)
	x := &Executor{Client: cs}

	res, err := x.Execute(ctx, Op{Verb: RolloutRestart, Kind: "Deployment", Namespace: "shop", Name: "web"}, "ts-uid/a1")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res).To(ContainSubstring("Restarted"))
	d, _ := cs.AppsV1().Deployments("shop").Get(ctx, "web", metav1.GetOptions{})
	g.Expect(d.Spec.Template.Annotations).To(HaveKeyWithValue(RestartAnnotation, "ts-uid/a1"))

	_, err = x.Execute(ctx, Op{Verb: Scale, Kind: "Deployment", Namespace: "shop", Name: "web", Replicas: 3}, "s")
	g.Expect(err).NotTo(HaveOccurred())
	d, _ = cs.AppsV1().Deployments("shop").Get(ctx, "web", metav1.GetOptions{})
	g.Expect(*d.Spec.Replicas).To(Equal(int32(3)))

	for range 2 {
		res, err = x.Execute(ctx, Op{Verb: DeletePod, Kind: "Pod", Namespace: "shop", Name: "web-1"}, "s")
		g.Expect(err).NotTo(HaveOccurred(), "deleting twice is fine")
	}
	g.Expect(res).To(ContainSubstring("already gone"))

	_, err = x.Execute(ctx, Op{Verb: Scale, Kind: "Deployment", Namespace: "shop", Name: "missing", Replicas: 1}, "s")
	g.Expect(err).To(HaveOccurred())
}
