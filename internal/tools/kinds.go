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

package tools

import (
	"context"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
)

// KindInfo describes one kind the tools can read.
type KindInfo struct {
	Kind       string
	Plural     string
	Short      []string
	Namespaced bool
	// internal kinds back other tools but are not offered to get/list.
	internal bool
	get      func(ctx context.Context, cs kubernetes.Interface, ns, name string) (runtime.Object, error)
	list     func(ctx context.Context, cs kubernetes.Interface, ns string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error)
}

// objs converts a typed item slice to runtime.Objects without copying items twice.
func objs[T any, PT interface {
	*T
	runtime.Object
}](in []T) []runtime.Object {
	out := make([]runtime.Object, len(in))
	for i := range in {
		out[i] = PT(&in[i])
	}
	return out
}

// getter adapts a typed Get to the table's signature, keeping a nil interface on error.
func getter[T runtime.Object](f func(context.Context, kubernetes.Interface, string, string) (T, error)) func(context.Context, kubernetes.Interface, string, string) (runtime.Object, error) {
	return func(ctx context.Context, cs kubernetes.Interface, ns, name string) (runtime.Object, error) {
		o, err := f(ctx, cs, ns, name)
		if err != nil {
			return nil, err
		}
		return o, nil
	}
}

var kinds = []*KindInfo{
	{Kind: "Pod", Plural: "pods", Short: []string{"po", "pod"}, Namespaced: true,
		get: getter(func(ctx context.Context, cs kubernetes.Interface, ns, n string) (*corev1.Pod, error) {
			return cs.CoreV1().Pods(ns).Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, ns string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.CoreV1().Pods(ns).List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "Deployment", Plural: "deployments", Short: []string{"deploy", "deployment"}, Namespaced: true,
		get: getter(func(ctx context.Context, cs kubernetes.Interface, ns, n string) (*appsv1.Deployment, error) {
			return cs.AppsV1().Deployments(ns).Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, ns string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.AppsV1().Deployments(ns).List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "ReplicaSet", Plural: "replicasets", Short: []string{"rs", "replicaset"}, Namespaced: true,
		get: getter(func(ctx context.Context, cs kubernetes.Interface, ns, n string) (*appsv1.ReplicaSet, error) {
			return cs.AppsV1().ReplicaSets(ns).Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, ns string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.AppsV1().ReplicaSets(ns).List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "StatefulSet", Plural: "statefulsets", Short: []string{"sts", "statefulset"}, Namespaced: true,
		get: getter(func(ctx context.Context, cs kubernetes.Interface, ns, n string) (*appsv1.StatefulSet, error) {
			return cs.AppsV1().StatefulSets(ns).Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, ns string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.AppsV1().StatefulSets(ns).List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "DaemonSet", Plural: "daemonsets", Short: []string{"ds", "daemonset"}, Namespaced: true,
		get: getter(func(ctx context.Context, cs kubernetes.Interface, ns, n string) (*appsv1.DaemonSet, error) {
			return cs.AppsV1().DaemonSets(ns).Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, ns string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.AppsV1().DaemonSets(ns).List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "ControllerRevision", Plural: "controllerrevisions", Namespaced: true, internal: true,
		get: getter(func(ctx context.Context, cs kubernetes.Interface, ns, n string) (*appsv1.ControllerRevision, error) {
			return cs.AppsV1().ControllerRevisions(ns).Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, ns string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.AppsV1().ControllerRevisions(ns).List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "Job", Plural: "jobs", Short: []string{"job"}, Namespaced: true,
		get: getter(func(ctx context.Context, cs kubernetes.Interface, ns, n string) (*batchv1.Job, error) {
			return cs.BatchV1().Jobs(ns).Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, ns string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.BatchV1().Jobs(ns).List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "CronJob", Plural: "cronjobs", Short: []string{"cj", "cronjob"}, Namespaced: true,
		get: getter(func(ctx context.Context, cs kubernetes.Interface, ns, n string) (*batchv1.CronJob, error) {
			return cs.BatchV1().CronJobs(ns).Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, ns string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.BatchV1().CronJobs(ns).List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "Service", Plural: "services", Short: []string{"svc", "service"}, Namespaced: true,
		get: getter(func(ctx context.Context, cs kubernetes.Interface, ns, n string) (*corev1.Service, error) {
			return cs.CoreV1().Services(ns).Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, ns string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.CoreV1().Services(ns).List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "Endpoints", Plural: "endpoints", Short: []string{"ep"}, Namespaced: true,
		get: getter(func(ctx context.Context, cs kubernetes.Interface, ns, n string) (*corev1.Endpoints, error) {
			return cs.CoreV1().Endpoints(ns).Get(ctx, n, metav1.GetOptions{}) //nolint:staticcheck // still what many clusters and tools read
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, ns string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.CoreV1().Endpoints(ns).List(ctx, o) //nolint:staticcheck // see above
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "EndpointSlice", Plural: "endpointslices", Short: []string{"endpointslice"}, Namespaced: true,
		get: getter(func(ctx context.Context, cs kubernetes.Interface, ns, n string) (*discoveryv1.EndpointSlice, error) {
			return cs.DiscoveryV1().EndpointSlices(ns).Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, ns string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.DiscoveryV1().EndpointSlices(ns).List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "PersistentVolumeClaim", Plural: "persistentvolumeclaims", Short: []string{"pvc", "persistentvolumeclaim"}, Namespaced: true,
		get: getter(func(ctx context.Context, cs kubernetes.Interface, ns, n string) (*corev1.PersistentVolumeClaim, error) {
			return cs.CoreV1().PersistentVolumeClaims(ns).Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, ns string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.CoreV1().PersistentVolumeClaims(ns).List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "PersistentVolume", Plural: "persistentvolumes", Short: []string{"pv", "persistentvolume"},
		get: getter(func(ctx context.Context, cs kubernetes.Interface, _, n string) (*corev1.PersistentVolume, error) {
			return cs.CoreV1().PersistentVolumes().Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, _ string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.CoreV1().PersistentVolumes().List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "StorageClass", Plural: "storageclasses", Short: []string{"sc", "storageclass"},
		get: getter(func(ctx context.Context, cs kubernetes.Interface, _, n string) (*storagev1.StorageClass, error) {
			return cs.StorageV1().StorageClasses().Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, _ string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.StorageV1().StorageClasses().List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "CSIDriver", Plural: "csidrivers", Short: []string{"csidriver"},
		get: getter(func(ctx context.Context, cs kubernetes.Interface, _, n string) (*storagev1.CSIDriver, error) {
			return cs.StorageV1().CSIDrivers().Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, _ string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.StorageV1().CSIDrivers().List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "ConfigMap", Plural: "configmaps", Short: []string{"cm", "configmap"}, Namespaced: true,
		get: getter(func(ctx context.Context, cs kubernetes.Interface, ns, n string) (*corev1.ConfigMap, error) {
			return cs.CoreV1().ConfigMaps(ns).Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, ns string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.CoreV1().ConfigMaps(ns).List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "Secret", Plural: "secrets", Short: []string{"secret"}, Namespaced: true,
		get: getter(func(ctx context.Context, cs kubernetes.Interface, ns, n string) (*corev1.Secret, error) {
			return cs.CoreV1().Secrets(ns).Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, ns string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.CoreV1().Secrets(ns).List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "ServiceAccount", Plural: "serviceaccounts", Short: []string{"sa", "serviceaccount"}, Namespaced: true,
		get: getter(func(ctx context.Context, cs kubernetes.Interface, ns, n string) (*corev1.ServiceAccount, error) {
			return cs.CoreV1().ServiceAccounts(ns).Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, ns string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.CoreV1().ServiceAccounts(ns).List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "Node", Plural: "nodes", Short: []string{"no", "node"},
		get: getter(func(ctx context.Context, cs kubernetes.Interface, _, n string) (*corev1.Node, error) {
			return cs.CoreV1().Nodes().Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, _ string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.CoreV1().Nodes().List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "Event", Plural: "events", Short: []string{"ev", "event"}, Namespaced: true,
		get: getter(func(ctx context.Context, cs kubernetes.Interface, ns, n string) (*corev1.Event, error) {
			return cs.CoreV1().Events(ns).Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, ns string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.CoreV1().Events(ns).List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "HorizontalPodAutoscaler", Plural: "horizontalpodautoscalers", Short: []string{"hpa", "horizontalpodautoscaler"}, Namespaced: true,
		get: getter(func(ctx context.Context, cs kubernetes.Interface, ns, n string) (*autoscalingv2.HorizontalPodAutoscaler, error) {
			return cs.AutoscalingV2().HorizontalPodAutoscalers(ns).Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, ns string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.AutoscalingV2().HorizontalPodAutoscalers(ns).List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "PodDisruptionBudget", Plural: "poddisruptionbudgets", Short: []string{"pdb", "poddisruptionbudget"}, Namespaced: true,
		get: getter(func(ctx context.Context, cs kubernetes.Interface, ns, n string) (*policyv1.PodDisruptionBudget, error) {
			return cs.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, ns string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.PolicyV1().PodDisruptionBudgets(ns).List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "Ingress", Plural: "ingresses", Short: []string{"ing", "ingress"}, Namespaced: true,
		get: getter(func(ctx context.Context, cs kubernetes.Interface, ns, n string) (*networkingv1.Ingress, error) {
			return cs.NetworkingV1().Ingresses(ns).Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, ns string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.NetworkingV1().Ingresses(ns).List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "ValidatingWebhookConfiguration", Plural: "validatingwebhookconfigurations", Short: []string{"validatingwebhookconfiguration"},
		get: getter(func(ctx context.Context, cs kubernetes.Interface, _, n string) (*admissionregistrationv1.ValidatingWebhookConfiguration, error) {
			return cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, _ string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "MutatingWebhookConfiguration", Plural: "mutatingwebhookconfigurations", Short: []string{"mutatingwebhookconfiguration"},
		get: getter(func(ctx context.Context, cs kubernetes.Interface, _, n string) (*admissionregistrationv1.MutatingWebhookConfiguration, error) {
			return cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, _ string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "IngressClass", Plural: "ingressclasses", Short: []string{"ingressclass"},
		get: getter(func(ctx context.Context, cs kubernetes.Interface, _, n string) (*networkingv1.IngressClass, error) {
			return cs.NetworkingV1().IngressClasses().Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, _ string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.NetworkingV1().IngressClasses().List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "NetworkPolicy", Plural: "networkpolicies", Short: []string{"netpol", "networkpolicy"}, Namespaced: true,
		get: getter(func(ctx context.Context, cs kubernetes.Interface, ns, n string) (*networkingv1.NetworkPolicy, error) {
			return cs.NetworkingV1().NetworkPolicies(ns).Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, ns string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.NetworkingV1().NetworkPolicies(ns).List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "ResourceQuota", Plural: "resourcequotas", Short: []string{"quota", "resourcequota"}, Namespaced: true,
		get: getter(func(ctx context.Context, cs kubernetes.Interface, ns, n string) (*corev1.ResourceQuota, error) {
			return cs.CoreV1().ResourceQuotas(ns).Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, ns string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.CoreV1().ResourceQuotas(ns).List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
	{Kind: "LimitRange", Plural: "limitranges", Short: []string{"limits", "limitrange"}, Namespaced: true,
		get: getter(func(ctx context.Context, cs kubernetes.Interface, ns, n string) (*corev1.LimitRange, error) {
			return cs.CoreV1().LimitRanges(ns).Get(ctx, n, metav1.GetOptions{})
		}),
		list: func(ctx context.Context, cs kubernetes.Interface, ns string, o metav1.ListOptions) ([]runtime.Object, metav1.ListMeta, error) {
			l, err := cs.CoreV1().LimitRanges(ns).List(ctx, o)
			if err != nil {
				return nil, metav1.ListMeta{}, err
			}
			return objs(l.Items), l.ListMeta, nil
		}},
}

var kindIndex = func() map[string]*KindInfo {
	m := map[string]*KindInfo{}
	for _, k := range kinds {
		m[strings.ToLower(k.Kind)] = k
		m[k.Plural] = k
		for _, s := range k.Short {
			m[s] = k
		}
	}
	return m
}()
