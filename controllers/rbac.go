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

package controllers

// The manager's permissions, generated into config/rbac/role.yaml. Reads cover what the
// investigation tools inspect; writes are limited to reports (ConfigMaps), sub-task Jobs,
// Events and the kubage.io kinds. Secrets are read with get only: the manager reads them
// through the API reader, never through a cluster-wide cache.

// +kubebuilder:rbac:groups=kubage.io,resources=troubleshoots,verbs=get;list;watch;create;update;patch
// +kubebuilder:rbac:groups=kubage.io,resources=knowledgesources;toolservers,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=kubage.io,resources=troubleshoots/status;knowledgesources/status;toolservers/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=kubage.io,resources=troubleshoots/finalizers;knowledgesources/finalizers;toolservers/finalizers,verbs=update

// +kubebuilder:rbac:groups="",resources=pods;services;endpoints;persistentvolumeclaims;persistentvolumes;nodes;namespaces;resourcequotas;limitranges,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=pods/log,verbs=get
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;update;patch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get
// +kubebuilder:rbac:groups="",resources=events,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups=discovery.k8s.io,resources=endpointslices,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,resources=deployments;replicasets;statefulsets;daemonsets,verbs=get;list;watch
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;update;patch
// +kubebuilder:rbac:groups=batch,resources=cronjobs,verbs=get;list;watch
// +kubebuilder:rbac:groups=storage.k8s.io,resources=storageclasses,verbs=get;list;watch
// +kubebuilder:rbac:groups=autoscaling,resources=horizontalpodautoscalers,verbs=get;list;watch
// +kubebuilder:rbac:groups=policy,resources=poddisruptionbudgets,verbs=get;list;watch
// +kubebuilder:rbac:groups=networking.k8s.io,resources=ingresses;networkpolicies,verbs=get;list;watch
// +kubebuilder:rbac:groups=networking.k8s.io,resources=ingressclasses,verbs=get;list;watch
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingwebhookconfigurations;mutatingwebhookconfigurations,verbs=get;list;watch
// Permission questions ("why can't service account X list pods?") are answered by the
// authorizer and by the RBAC objects that almost grant the permission.
// +kubebuilder:rbac:groups="",resources=serviceaccounts,verbs=get;list;watch
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=roles;rolebindings;clusterroles;clusterrolebindings,verbs=get;list;watch
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create
