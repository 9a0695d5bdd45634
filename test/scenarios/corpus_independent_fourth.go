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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// A fourth batch of independently written scenarios, measured before any rule was changed
// for them: rollout strategies that hold changes back, Jobs configured not to run, a
// scheduling constraint, an env prefix, and a quota on storage.

const (
	srcIndResourceQuotas = "k8s-docs/concepts/policy/resource-quotas.md"
	srcIndJobs           = "k8s-docs/concepts/workloads/controllers/job.md"
)

func independentFourthScenarios() []*Scenario {
	return []*Scenario{
		{
			Name: "orders-db-partition-holds-update", Covers: "a StatefulSet's new image reaches no pod: its rollingUpdate partition equals its replicas",
			Source: srcIndStatefulSet, Class: ClassOutside, Hops: 0,
			Problem: "orders-db still runs postgres 15 although we changed it to 16",
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "orders-db"}, Terms: []string{"partition"}},
			Setup: func(ctx context.Context, e *Env) error {
				st := plainStatefulSet("orders-db", "postgres:15.6", 2, nil)
				st.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
					RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](2)}}
				if err := e.createStatefulSet(ctx, st); err != nil {
					return err
				}
				return e.createService(ctx, headless("orders-db"))
			},
			Wait: func(ctx context.Context, e *Env) error {
				s, err := e.Client.AppsV1().StatefulSets(e.Namespace).Get(ctx, "orders-db", metav1.GetOptions{})
				if err != nil {
					return err
				}
				if e.State["updated"] == "" {
					if s.Status.ReadyReplicas < 2 {
						return errors.New("15 not ready yet")
					}
					s.Spec.Template.Spec.Containers[0].Image = "postgres:16.2"
					if _, err := e.Client.AppsV1().StatefulSets(e.Namespace).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
						return err
					}
					e.State["updated"] = "yes"
					return errors.New("image changed")
				}
				if s.Status.ObservedGeneration < s.Generation || s.Status.UpdateRevision == s.Status.CurrentRevision {
					return errors.New("the controller has not recorded the new revision yet")
				}
				return nil
			},
		},
		{
			Name: "nightly-export-job-parallelism-zero", Covers: "an export Job never starts a pod: its parallelism was set to 0 to pause it and never restored",
			Source: srcIndJobs, Class: ClassOutside, Hops: 0,
			Problem: "the nightly export has not produced a file since Tuesday",
			Want:    Want{Culprit: Ref{Kind: "Job", Name: "nightly-export"}, Terms: []string{"parallelism"}},
			Setup: func(ctx context.Context, e *Env) error {
				j := job("nightly-export", 3, nil)
				j.Spec.Parallelism = ptr.To[int32](0)
				_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
				if err != nil {
					return wrap("Job", j.Name, err)
				}
				// Noise: an unrelated report CronJob that is suspended.
				return e.createCronJob(ctx, "weekly-digest", "0 6 * * 1", true, nil)
			},
			Wait: func(ctx context.Context, e *Env) error {
				j, err := e.Client.BatchV1().Jobs(e.Namespace).Get(ctx, "nightly-export", metav1.GetOptions{})
				if err != nil {
					return err
				}
				if j.Status.StartTime == nil {
					return errors.New("the Job controller has not seen the Job yet")
				}
				return nil
			},
		},
		{
			Name: "web-required-anti-affinity-four-replicas", Covers: "one of four web replicas stays Pending: required pod anti-affinity on the hostname and only three nodes",
			Source: "k8s-docs/concepts/scheduling-eviction/assign-pod-node.md", Class: ClassSingle, Hops: 1,
			Problem: "one web replica stays Pending",
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "web"}, Terms: []string{"anti-affinity"}},
			Setup: func(ctx context.Context, e *Env) error {
				d := deployment("web", "registry.example/web/site:3.3.0", 4, nil)
				d.Spec.Template.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
						LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, TopologyKey: "kubernetes.io/hostname"}}}}
				return e.createDeployment(ctx, d)
			},
			Wait: anyPod("web", unschedulable("anti-affinity")),
		},
		{
			Name: "billing-envfrom-prefix-hides-db-host", Covers: "billing crash-loops on DB_HOST not set: it loads its ConfigMap with envFrom prefix APP_, so the variable is APP_DB_HOST",
			Source: srcIndConfigMap, Class: ClassClue, Hops: 1,
			Problem: "billing crashes on start", Target: target("Deployment", "billing"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "billing"}, Terms: []string{"APP_"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "billing-settings", map[string]string{"DB_HOST": "billing-db", "DB_PORT": "5432"})
					},
					func() error { return e.createBackend(ctx, "billing-db", "postgres:16.2", 5432, 5432) },
					func() error {
						d := deployment("billing", "registry.example/fin/billing:8.0.0", 1, crash("1", "FATAL: environment variable DB_HOST is not set", "billing-prefix"))
						d.Spec.Template.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{Prefix: "APP_",
							ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "billing-settings"}}}}
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("billing", crashLooping(3)),
		},
		{
			Name: "kafka-claim-over-storage-quota", Covers: "a Kafka StatefulSet creates no pod: its 200Gi volume claim exceeds the namespace's requests.storage quota",
			Source: srcIndResourceQuotas, Class: ClassRanking, Hops: 2,
			Problem: "kafka-0 never appears",
			Want:    Want{Culprit: Ref{Kind: "ResourceQuota", Name: "storage-budget"}, Terms: []string{"storage-budget"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createQuota(ctx, "storage-budget", corev1.ResourceList{corev1.ResourceRequestsStorage: resource.MustParse("100Gi")})
					},
					func() error {
						return e.createStatefulSet(ctx, statefulSet("kafka", "apache/kafka:3.7.0", pvc("log", "", "200Gi", corev1.ReadWriteOnce)))
					},
					func() error { return e.createService(ctx, headless("kafka")) },
				)
			},
			Wait: objectEvent("StatefulSet", "kafka", "FailedCreate", "exceeded quota"),
		},
	}
}
