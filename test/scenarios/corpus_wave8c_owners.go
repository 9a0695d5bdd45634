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
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
)

// Wave 8c, fourth file: owners and their dependents (garbage collection, an autoscaler's
// target, a DaemonSet's rolling update on full nodes).

func wave8cOwnerScenarios() []*Scenario {
	return []*Scenario{
		{
			// Argo CD prunes with foreground deletion: the StatefulSet waits for its pod, and
			// the pod waits for a finalizer of the service-registry controller that was
			// uninstalled last month.
			Name: "search-legacy-foreground-finalizer", Covers: "a StatefulSet deleted with foreground propagation stays (deletionTimestamp, foregroundDeletion) because its pod search-legacy-0 is Terminating with finalizer discovery.example.com/deregister, whose controller is no longer installed",
			Source: w8cSrcGC, Class: ClassReference, Hops: 1,
			Problem: "Argo CD has shown search-legacy as Deleting for an hour, the StatefulSet will not go away",
			Target:  target("StatefulSet", "search-legacy"),
			Want:    Want{Culprit: Ref{Kind: "Pod", Name: "search-legacy-0"}, Terms: []string{"discovery.example.com/deregister"}},
			Setup: func(ctx context.Context, e *Env) error {
				legacy := w8cLabels("app.kubernetes.io/name", "search-legacy", "app.kubernetes.io/part-of", "search", "argocd.argoproj.io/instance", "search")
				v2 := w8cLabels("app.kubernetes.io/name", "search-api", "app.kubernetes.io/part-of", "search", "argocd.argoproj.io/instance", "search")
				e.w8cReleaseFinalizers()
				return steps(
					func() error {
						st := w8bStatefulSet("search-legacy", "registry.example/search/search-legacy:1.22.4", "search-legacy", 1, legacy, nil, "http", 8080)
						st.Spec.Template.Finalizers = []string{"discovery.example.com/deregister"}
						st.Spec.Template.Annotations = map[string]string{"discovery.example.com/service": "search-legacy", "discovery.example.com/port": "8080"}
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("search-legacy", legacy, "http", 8080)) },
					func() error {
						if err := e.createDeployment(ctx, w8bDeployment("search-api", "registry.example/search/search-api:2.4.1", 2, v2, nil, "http", 8080)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("search-api", v2, "http", 80))
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				sts := e.Client.AppsV1().StatefulSets(e.Namespace)
				if e.State["pruned"] == "" {
					if err := w8cStatefulSetReady("search-legacy", 1)(ctx, e); err != nil {
						return err
					}
					if err := sts.Delete(ctx, "search-legacy", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)}); err != nil {
						return err
					}
					e.State["pruned"] = "yes"
				}
				st, err := sts.Get(ctx, "search-legacy", metav1.GetOptions{})
				if err != nil {
					return err
				}
				if st.DeletionTimestamp == nil {
					return errors.New("search-legacy not being deleted yet")
				}
				p, err := e.Client.CoreV1().Pods(e.Namespace).Get(ctx, "search-legacy-0", metav1.GetOptions{})
				if err != nil {
					return err
				}
				if p.DeletionTimestamp == nil {
					return errors.New("search-legacy-0 not Terminating yet")
				}
				return nil
			},
		},
		{
			// The chart refactor renamed the Deployment web to storefront-web; the HPA lives in
			// another repository and still scales "web", which no longer exists.
			Name: "storefront-web-hpa-targets-old-name", Covers: "storefront-web stays at 2 replicas under load; its HPA 'web' reports AbleToScale False, FailedGetScale: deployments/scale.apps \"web\" not found, since the Deployment was renamed",
			Source: w8cSrcHPAWalkthrough, Class: ClassReference, Hops: 1,
			Problem: "storefront-web is stuck at 2 replicas at 180% CPU during the sale, autoscaling does nothing",
			Target:  target("Deployment", "storefront-web"),
			Want:    Want{Culprit: Ref{Kind: "HorizontalPodAutoscaler", Name: "web"}, Terms: []string{"FailedGetScale"}},
			Setup: func(ctx context.Context, e *Env) error {
				web := w8cLabels("app.kubernetes.io/name", "storefront-web", "app.kubernetes.io/instance", "storefront", "app.kubernetes.io/version", "12.0.1")
				cache := w8cLabels("app.kubernetes.io/name", "storefront-cache", "app.kubernetes.io/instance", "storefront")
				return steps(
					func() error {
						d := w8bDeployment("storefront-web", "registry.example/storefront/web:12.0.1", 2, web, nil, "http", 3000)
						w8cRequests(&d.Spec.Template, "500m", "512Mi", "", "1Gi")
						w8cReadiness(&d.Spec.Template, "/healthz", "http")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("storefront-web", web, "http", 80)) },
					func() error {
						return e.createIngress(ctx, w8cHostIngress("storefront", "www.example-shop.com", "storefront-web", 80))
					},
					func() error {
						return e.createDeployment(ctx, w8bDeployment("storefront-cache", "docker.io/library/redis:7.4.1-alpine", 1, cache, nil, "redis", 6379))
					},
					func() error { return e.createService(ctx, w8bService("storefront-cache", cache, "redis", 6379)) },
					func() error { return e.createHPA(ctx, "web", "web", 2, 12) },
				)
			},
			Wait: all(readyReplicas("storefront-web", 2), w8cHPACondition("web", autoscalingv2.AbleToScale, "FailedGetScale")),
		},
		{
			// vector 0.41 asks for 750m; on the node where the trainer holds 3.5 of 4 CPUs the
			// new agent pod cannot fit, and the DaemonSet's rolling update stops there.
			Name: "vector-agent-rollout-blocked-by-trainer", Covers: "the vector-agent DaemonSet update is stuck with one new pod Pending (Insufficient cpu) on the node where ml-trainer requests 3500m of 4 CPUs; the new agent requests 750m",
			Source: w8cSrcUpdateDS, Class: ClassRanking, Hops: 3,
			Problem: "the vector-agent 0.41 rollout on the ml pool has been stuck for 30 minutes, one node has no log agent at all",
			Target:  target("DaemonSet", "vector-agent"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "ml-trainer"}, Also: []Ref{{Kind: "DaemonSet", Name: "vector-agent"}},
				Terms: []string{"Insufficient cpu"}},
			Setup: func(ctx context.Context, e *Env) error {
				trainer := w8cLabels("app", "ml-trainer", "team", "ml-platform")
				return steps(
					func() error {
						_, err := e.w8cNodeWithPool(ctx, "ml-a", false, "node-pool", "ml")
						return err
					},
					func() error {
						_, err := e.w8cNodeWithPool(ctx, "ml-b", false, "node-pool", "ml")
						return err
					},
					func() error {
						d := w8bDeployment("ml-trainer", "registry.example/ml/trainer:2026.11.2", 1, trainer, nil, "metrics", 9090)
						e.w8cOnPool(&d.Spec.Template, "node-pool", "ml")
						w8cRequests(&d.Spec.Template, "3500m", "10Gi", "", "12Gi")
						w8cArgs(&d.Spec.Template, "train", "--config=/etc/trainer/ranker.yaml", "--epochs=40")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.w8cCreateAgent(ctx, "0.40.1", "100m") },
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["upgraded"] == "" {
					if err := readyReplicas("ml-trainer", 1)(ctx, e); err != nil {
						return err
					}
					ds, err := e.Client.AppsV1().DaemonSets(e.Namespace).Get(ctx, "vector-agent", metav1.GetOptions{})
					if err != nil {
						return err
					}
					if ds.Status.NumberReady < 2 {
						return fmt.Errorf("vector-agent: %d of 2 ready", ds.Status.NumberReady)
					}
					if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
						ds, err := e.Client.AppsV1().DaemonSets(e.Namespace).Get(ctx, "vector-agent", metav1.GetOptions{})
						if err != nil {
							return err
						}
						c := &ds.Spec.Template.Spec.Containers[0]
						c.Image = "docker.io/timberio/vector:0.41.1-distroless-libc"
						c.Resources.Requests[corev1.ResourceCPU] = resource.MustParse("750m")
						_, err = e.Client.AppsV1().DaemonSets(e.Namespace).Update(ctx, ds, metav1.UpdateOptions{})
						return err
					}); err != nil {
						return err
					}
					e.State["upgraded"] = "yes"
				}
				return podsWith(w8cLabels("app.kubernetes.io/name", "vector-agent"), unschedulable("Insufficient cpu"))(ctx, e)
			},
		},
	}
}

// w8cCreateAgent creates the vector-agent DaemonSet on the scenario's ml pool.
func (e *Env) w8cCreateAgent(ctx context.Context, version, cpu string) error {
	lbl := w8cLabels("app.kubernetes.io/name", "vector-agent", "app.kubernetes.io/instance", "logging")
	t := template("vector-agent", "docker.io/timberio/vector:"+version+"-distroless-libc", nil)
	t.Labels = lbl
	port(&t, "api", 8686)
	e.w8cOnPool(&t, "node-pool", "ml")
	w8cRequests(&t, cpu, "256Mi", "", "512Mi")
	w8cArgs(&t, "--config-dir", "/etc/vector/")
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "vector-agent", Labels: lbl},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: lbl},
			Template: t,
		},
	}
	_, err := e.Client.AppsV1().DaemonSets(e.Namespace).Create(ctx, ds, metav1.CreateOptions{})
	return wrap("DaemonSet", ds.Name, err)
}

// w8cHPACondition waits until HPA name reports condition t False with reason.
func w8cHPACondition(name string, t autoscalingv2.HorizontalPodAutoscalerConditionType, reason string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		h, err := e.Client.AutoscalingV2().HorizontalPodAutoscalers(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range h.Status.Conditions {
			if c.Type == t && c.Status == corev1.ConditionFalse && c.Reason == reason {
				return nil
			}
		}
		return fmt.Errorf("hpa %s: no %s=False %s yet", name, t, reason)
	}
}
