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

package agent

// Rules about names one object uses to point at another (dangling references) that the
// namespace scan and the workload analyzers check.
func init() {
	rule(Rule{ID: "pull-secret-missing", Category: "ImagePullSecretMissing", Confidence: 60,
		Title:   "an imagePullSecret the pod template names does not exist",
		Signals: "spec.imagePullSecrets names a Secret absent from the namespace (the kubelet then pulls without credentials)",
		Actions: []ActionTemplate{
			{Description: "Create the registry pull secret {name}", Command: "kubectl -n {ns} create secret docker-registry {name} --docker-server=<registry> --docker-username=<user> --docker-password=<token>", Risk: RiskLow},
		},
		Validation: []string{"kubectl -n {ns} get secret {name}"}})
	rule(Rule{ID: "runtimeclass-missing", Category: "RuntimeClassMissing", Confidence: 90,
		Title:   "the pods name a RuntimeClass that does not exist, so admission rejects them",
		Signals: "FailedCreate 'RuntimeClass \"x\" not found'",
		Actions: []ActionTemplate{
			{Description: "Create RuntimeClass {name} for the node's handler, or fix runtimeClassName in {workload}", Command: "kubectl -n {ns} edit {workload}", Risk: RiskMedium},
		},
		Validation: []string{"kubectl -n {ns} get {workload}"}})
	rule(Rule{ID: "rolebinding-role-missing", Category: "RoleBindingRoleMissing", Confidence: 85,
		Title:   "a RoleBinding refers to a Role or ClusterRole that does not exist, so it grants nothing",
		Signals: "RoleBinding roleRef absent from the namespace's Roles or the cluster's ClusterRoles",
		Actions: []ActionTemplate{
			{Description: "Create {roleKind} {name} with the rules the binding's subjects ({subjects}) need", Command: "kubectl create {roleResource} {name} --verb=<verbs> --resource=<resources>", Risk: RiskMedium},
			{Description: "Or point RoleBinding {binding} at an existing role: roleRef is immutable, so delete and re-create the binding", Command: "kubectl -n {ns} delete rolebinding {binding} && kubectl -n {ns} create rolebinding {binding} --{roleResource}=<role> --serviceaccount={ns}:<name>", Risk: RiskMedium},
		},
		Validation: []string{"kubectl -n {ns} describe rolebinding {binding}"}})
}
