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

// Rules about Services, networking, autoscaling, nodes and session outcomes.
func init() {
	// --- Services and networking ---
	rule(Rule{ID: "service-selector-mismatch", Category: "ServiceSelectorMismatch", Confidence: 90,
		Title:      "the Service's selector matches no pods",
		Signals:    "no pods match spec.selector, EndpointSlices empty, workloads whose pod labels differ",
		Actions:    []ActionTemplate{{Description: "Make the selector ({selector}) match the pod labels ({podLabels})", Command: "kubectl -n {ns} patch service {name} --type=merge -p '{\"spec\":{\"selector\":{podLabelsJSON}}}'", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get endpointslices -l kubernetes.io/service-name={name}  # endpoints listed"}})
	rule(Rule{ID: "service-workload-no-pods", Category: "ServiceNoEndpoints", Confidence: 50,
		Title:      "the workload behind the Service has created none of its pods",
		Signals:    "no pods match spec.selector while a Deployment or StatefulSet with matching template labels wants replicas and has none; that workload's creation failures",
		Actions:    []ActionTemplate{{Description: "Find why the workload creates no pods", Command: "kubectl -n {ns} describe {resource}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get endpointslices -l kubernetes.io/service-name={name}"}})
	rule(Rule{ID: "service-no-ready-endpoints", Category: "ServiceNoReadyEndpoints", Confidence: 55,
		Title:      "the Service's pods exist but none is ready",
		Signals:    "pods match the selector, none Ready, EndpointSlices without ready endpoints",
		Actions:    []ActionTemplate{{Description: "Fix the pods behind the Service", Command: "kubectl -n {ns} get pods -l {selector}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get endpointslices -l kubernetes.io/service-name={name}"}})
	rule(Rule{ID: "service-no-endpoints", Category: "ServiceNoEndpoints", Confidence: 60,
		Title:      "the Service has no selector and no endpoints",
		Signals:    "spec.selector empty, no EndpointSlices with endpoints; hand-written EndpointSlices labelled for another name (or not at all) and Endpoints under another name that were meant for it",
		Actions:    []ActionTemplate{{Description: "Attach endpoints to Service {service}: label the hand-written EndpointSlice kubernetes.io/service-name={service}, name the Endpoints after the Service, or give the Service a selector", Command: "kubectl -n {ns} edit {resource}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get endpointslices -l kubernetes.io/service-name={service}"}})
	rule(Rule{ID: "ingress-class-missing", Category: "IngressClassMissing", Confidence: 85,
		Title:      "no ingress controller serves the Ingress: the IngressClass it names does not exist",
		Signals:    "spec.ingressClassName (or the kubernetes.io/ingress.class annotation) naming no IngressClass",
		Actions:    []ActionTemplate{{Description: "Name an existing IngressClass ({classes}) in the Ingress, or create class {class} for the controller meant to serve it", Command: "kubectl -n {ns} edit ingress {ingress}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get ingress {ingress}  # ADDRESS is set"}})
	rule(Rule{ID: "ingress-annotation-ignored", Category: "IngressAnnotationIgnored", Confidence: 82,
		Title:      "the Ingress asks for a feature its ingress-nginx controller is not started for",
		Signals:    "nginx.ingress.kubernetes.io/ssl-passthrough without --enable-ssl-passthrough in the controller's arguments; snippet annotations without allow-snippet-annotations: \"true\" in the controller's ConfigMap",
		Actions:    []ActionTemplate{{Description: "Enable {flag} in {sourceResource}, or drop {annotation} from the Ingress", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get {sourceResource} -o yaml | grep -- {flag}"}})
	rule(Rule{ID: "service-target-port-mismatch", Category: "ServiceTargetPortMismatch", Confidence: 82,
		Title:      "the Service's targetPort is not a port the pods expose",
		Signals:    "spec.ports[].targetPort not among the containers' ports (by number or name)",
		Actions:    []ActionTemplate{{Description: "Set targetPort to the container port ({containerPorts})", Command: "kubectl -n {ns} patch service {name} --type=json -p '[{\"op\":\"replace\",\"path\":\"/spec/ports/{portIndex}/targetPort\",\"value\":<container port>}]'", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get endpointslices -l kubernetes.io/service-name={name} -o wide"}})
	rule(Rule{ID: "deployment-scaled-to-zero", Category: "ScaledToZero", Confidence: 85,
		Title:      "the workload behind the Service is scaled to zero",
		Signals:    "the workload whose pod labels match the Service selector has spec.replicas 0",
		Actions:    []ActionTemplate{{Description: "Scale it up", Command: "kubectl -n {ns} scale {resource} --replicas=<n>", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get {resource}"}})
	rule(Rule{ID: "ingress-backend-missing", Category: "IngressBackendMissing", Confidence: 90,
		Title:   "the Ingress routes to a Service that does not exist",
		Signals: "spec.rules[].http.paths[].backend.service.name absent from the namespace",
		Actions: []ActionTemplate{
			{Description: "Point the Ingress at an existing Service, or create Service {service}", Command: "kubectl -n {ns} edit ingress {name}", Risk: RiskMedium},
		},
		Validation: []string{"kubectl -n {ns} describe ingress {name}  # backends resolve"}})
	rule(Rule{ID: "ingress-path-type-mismatch", Category: "IngressPathTypeMismatch", Confidence: 84,
		Title:      "an Ingress path rule with pathType Exact stops short of the paths it is meant for, so they fall through to another backend",
		Signals:    "a server behind an Ingress logs 'not found' (404, no such file) for a request path; a rule of the same host for a prefix of that path, to another Service, has pathType Exact",
		Actions:    []ActionTemplate{{Description: "Set pathType: Prefix on the rule for {path} (to Service {service})", Command: "kubectl -n {ns} edit ingress {name}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} describe ingress {name}  # the rule for {path} is Prefix"}})
	rule(Rule{ID: "ingress-backend-port-mismatch", Category: "IngressBackendPortMismatch", Confidence: 80,
		Title:      "the Ingress routes to a port the Service does not have",
		Signals:    "backend.service.port not among the Service's ports",
		Actions:    []ActionTemplate{{Description: "Use one of the Service's ports ({servicePorts})", Command: "kubectl -n {ns} edit ingress {name}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} describe ingress {name}"}})
	rule(Rule{ID: "ingress-tls-secret-missing", Category: "IngressTLSSecretMissing", Confidence: 90,
		Title:      "the Ingress serves TLS with a Secret that does not exist",
		Signals:    "spec.tls[].secretName absent from the namespace; a cert-manager issuer annotation on the Ingress, and the issuer a sibling Ingress whose TLS Secret exists names instead",
		Actions:    []ActionTemplate{{Description: "Create the TLS Secret {secret} for {hosts} (or fix secretName in the Ingress)", Command: "kubectl -n {ns} create secret tls {secret} --cert=tls.crt --key=tls.key", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get secret {secret}"}})
	rule(Rule{ID: "networkpolicy-deny-ingress", Category: "NetworkPolicyDenyIngress", Confidence: 75,
		Title:      "a NetworkPolicy selects the pods and allows no ingress traffic",
		Signals:    "NetworkPolicy with policyTypes Ingress, no ingress rules, podSelector matching the pods",
		Actions:    []ActionTemplate{{Description: "Add an ingress rule allowing the clients of {pods}", Command: "kubectl -n {ns} edit networkpolicy {name}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} describe networkpolicy {name}"}})
	rule(Rule{ID: "networkpolicy-deny-egress", Category: "NetworkPolicyDenyEgress", Confidence: 85,
		Title:      "a NetworkPolicy on the client pods blocks their outgoing traffic (or the DNS lookup before it)",
		Signals:    "the client's log or message reports a timeout or failed lookup; a NetworkPolicy selecting the client has policyTypes Egress and no rule admitting the provider's pods and port, or port 53 to kube-system; for a host outside the cluster (a public IP, a name that is no Service), no rule whose ipBlock (or absent destination) admits a public address on the port",
		Actions:    []ActionTemplate{{Description: "Add an egress rule to NetworkPolicy {name} for the destination (and DNS: UDP/TCP 53 to kube-system)", Command: "kubectl -n {ns} edit networkpolicy {name}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} describe networkpolicy {name}", verifyPods}})
	// --- Dependencies: a client failing because of what it calls ---
	rule(Rule{ID: "service-backends-wrong", Category: "ServiceBackends", Confidence: 78,
		Title:      "the Service sends part of its traffic to pods that cannot serve it: a Job's or stray pod that its selector also matches, or not-ready pods it publishes",
		Signals:    "a client's refused, reset or 5xx calls to a Service with ready endpoints; the Ready pods its selector matches belong to a Deployment and to a Job, a bare pod or a workload without the target port; or publishNotReadyAddresses true while some of its pods are not Ready",
		Actions:    []ActionTemplate{{Description: "Fix Service {service}: {fix}", Command: "kubectl -n {ns} edit service {service}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get endpointslices -l kubernetes.io/service-name={service} -o wide"}})
	rule(Rule{ID: "proxy-intercepts-cluster-call", Category: "ProxySettings", Confidence: 84,
		Title:      "the container's HTTP proxy settings send its calls to a cluster Service through an outside proxy, because NO_PROXY does not cover the Service's name",
		Signals:    "a refused, timed-out or proxy-answered call (X-Squid-Error, Via: … squid, proxyconnect) to a Service of the cluster; HTTP_PROXY or HTTPS_PROXY in the container's environment, and NO_PROXY missing or not covering the host",
		Actions:    []ActionTemplate{{Description: "Add {host} (or .svc, .cluster.local, the short Service names and the cluster's address ranges) to {key} in {sourceResource}, then restart the workload", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskLow}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "dependency-unreachable", Category: "DependencyUnreachable", Confidence: 70,
		Title:      "the application fails calling a Service whose backends are missing, not ready or broken",
		Signals:    "a host in the container's error line (log tail, termination message, events) resolves to a Service of the namespace; its selector, ports, endpoints and backends",
		Actions:    []ActionTemplate{{Description: "Fix the backends of Service {service}; the client recovers by itself", Command: "kubectl -n {ns} get endpointslices -l kubernetes.io/service-name={service}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get endpointslices -l kubernetes.io/service-name={service}  # ready endpoints listed", verifyPods}})
	rule(Rule{ID: "dependency-host-unknown", Category: "DependencyHostUnknown", Confidence: 88,
		Title:      "the application calls a host name that no Service in the namespace has",
		Signals:    "a name-resolution (or connection) error naming a cluster-local host that matches no Service; the ConfigMap key, env var, argument or mounted configuration file holding the name; with no text, a configured address one typo, suffix or plural away from a Service's name (or, when the log cannot be read, any address written as a URL or host:port that names no Service); an IP of the cluster's ranges, written into the configuration, that no Service or pod holds any more",
		Actions:    []ActionTemplate{{Description: "Point {source} at an existing Service (e.g. {closest}) instead of {host}", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskMedium}, {Description: "Restart the workload so it reads the new value", Command: "kubectl -n {ns} rollout restart {workload}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get service {closest}", verifyPods}})
	rule(Rule{ID: "pod-dns-misconfigured", Category: "PodDNSMisconfigured", Confidence: 86,
		Title:      "the pod's DNS settings send its lookups astray: cluster names do not resolve, or outside names resolve inside a search domain",
		Signals:    "a name-resolution error on a Service name (often quoting a resolver that is not the cluster DNS), or a quiet failure of a pod configured to call one; the pod's dnsPolicy Default, None without the namespace's search domain, or ClusterFirst with hostNetwork; a certificate valid for *.D, not for the outside name asked, while dnsConfig searches D with ndots above the name's dots",
		Actions:    []ActionTemplate{{Description: "Set dnsPolicy ClusterFirst (ClusterFirstWithHostNet on the host network), or give dnsConfig the cluster DNS and search domains, in the pod template of {workload}", Command: "kubectl -n {ns} edit {workload}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get {workload} -o jsonpath='{.spec.template.spec.dnsPolicy}'", verifyPods}})
	rule(Rule{ID: "dependency-protocol-mismatch", Category: "DependencyProtocolMismatch", Confidence: 84,
		Title:      "the application speaks TLS to a plain-HTTP port, or plain HTTP to a TLS port",
		Signals:    "'server gave HTTP response to HTTPS client', 'wrong version number', 'first record does not look like a TLS handshake', 'plain HTTP request was sent to HTTPS port' in the container's error line; the env, argument or ConfigMap key holding the address and its scheme",
		Actions:    []ActionTemplate{{Description: "Fix the scheme or port of the address in {sourceResource}", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskMedium}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "service-link-collision", Category: "ServiceLinkCollision", Confidence: 84,
		Title:      "a Service's link variable (NAME_PORT=tcp://IP:PORT) overrides a setting the application reads under the same name",
		Signals:    "a tcp://IP:PORT value in the container's error line; a Service whose name gives that variable (redis → REDIS_PORT) with that port, the application's own settings with the same prefix, enableServiceLinks not false; with no text, a host setting given alone (REDIS_HOST) beside a Service named by its prefix",
		Actions:    []ActionTemplate{{Description: "Set enableServiceLinks: false in the pod template of {sourceResource}, or set {key} explicitly", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskLow}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "server-advertises-loopback", Category: "AdvertisedAddressLoopback", Confidence: 84,
		Title:      "a clustered server (Kafka, Redis Sentinel, Elasticsearch, MongoDB) hands its clients a loopback or unspecified address to call next",
		Signals:    "localhost:PORT or 127.0.0.1:PORT in the client's error line while its own configuration names a Service; that value in the settings of the Service's backend pods (advertised listeners, announce or publish host). Without logs: a loopback or 0.0.0.0 address in such a setting of a server that fails quietly, or of the healthy server behind the Service a quiet client is configured with",
		Actions:    []ActionTemplate{{Description: "Advertise the Service's or the pod's DNS name in {key} of {sourceResource}", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskMedium}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "dependency-default-address", Category: "DependencyDefaultAddress", Confidence: 84,
		Title:      "the application calls a dependency on its own loopback address: the setting meant to point it at the server is missing, misnamed or says localhost",
		Signals:    "127.0.0.1:PORT, localhost:PORT or ::1 in the client's error line while no container of its pod listens on PORT; the settings it looks for ('X is not set'), the connection settings it is given (names and URL schemes of that port's server) and the Service exposing PORT",
		Actions:    []ActionTemplate{{Description: "Set {key} to the Service's address in {sourceResource}", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskLow}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "setting-switched-off", Category: "ConfigSwitchedOff", Confidence: 70,
		Title:      "a setting switches the workload's work off",
		Signals:    "a Running, Ready container whose setting holds false/off/disabled (0 for an *_ENABLED switch) and whose log names that setting or says its subject is disabled or idle",
		Actions:    []ActionTemplate{{Description: "Turn {setting} back on in {source}", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} logs deploy/{name} --tail=20  # no longer idle"}})
	rule(Rule{ID: "service-session-affinity", Category: "ServiceSessionAffinity", Confidence: 75,
		Title:      "a Service with sessionAffinity ClientIP pins each client to one pod, so with few clients some pods get no traffic",
		Signals:    "a problem text about traffic reaching only some pods; sessionAffinity ClientIP (and its timeout) on the Service in front of them, several ready endpoints, the workloads that call it",
		Actions:    []ActionTemplate{{Description: "Drop the affinity unless clients need to stick to one pod", Command: "kubectl -n {ns} patch service {name} --type=merge -p '{\"spec\":{\"sessionAffinity\":\"None\"}}'", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get service {name} -o jsonpath='{.spec.sessionAffinity}'"}})
	rule(Rule{ID: "provider-listens-loopback", Category: "ProviderListensLoopback", Confidence: 82,
		Title:      "the server behind the Service listens on the loopback interface only, so other pods are refused",
		Signals:    "a client refused at a Service whose pods are Ready; the server's log announcing its listener on localhost/127.0.0.1 at the Service's target port, or a listen setting of its configuration on loopback at that port; the setting (or the configuration file without one) that gives the listen address",
		Actions:    []ActionTemplate{{Description: "Make the server listen on 0.0.0.0 in {sourceResource}", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} logs {providerPod} | grep -i listen  # 0.0.0.0"}})
	rule(Rule{ID: "config-setting-named", Category: "ConfigSettingNamed", Confidence: 80,
		Title:      "the application's error names one of its own settings, whose value explains it",
		Signals:    "the words of the container's error line (snake_case, camelCase and dotted names split, 'too many' read as max) matching distinctively the name of a setting in its env, the ConfigMaps it loads or mounts (file keys and their lines) or its arguments",
		Actions:    []ActionTemplate{{Description: "Change {key} in {sourceResource}, then restart the workload", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskMedium}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "provider-setting-limit", Category: "ProviderSettingLimit", Confidence: 82,
		Title:      "the server the application calls refuses work because of a limit in its own configuration",
		Signals:    "a server setting quoted or echoed in the client's error line ('maxmemory', 'max_allowed_packet', [cluster.max_shards_per_node], 'ingestion rate' for ingestion_rate_mb, a pg_hba.conf file); that setting in a ConfigMap mounted by, or an env of, the backend pods of the Service the client is configured with",
		Actions:    []ActionTemplate{{Description: "Raise or change {key} in {sourceResource}, then restart the server", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskMedium}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "agent-address-pod-ip", Category: "AgentAddressPodIP", Confidence: 85,
		Title:      "the application reaches its node agent at its own pod IP (fieldRef status.podIP) instead of the node's (status.hostIP)",
		Signals:    "refused or timed-out calls to an IP on a port no container of the pod serves, from a container whose env takes fieldRef status.podIP; the DaemonSet serving that port as a hostPort",
		Actions:    []ActionTemplate{{Description: "Take {key} from fieldRef status.hostIP in {sourceResource}", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskMedium}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "dependency-port-mismatch", Category: "DependencyPortMismatch", Confidence: 85,
		Title:      "the application calls a port its Service does not expose",
		Signals:    "host:port in the container's error line, or in its env, arguments, ConfigMaps or mounted configuration files; the Service's ports",
		Actions:    []ActionTemplate{{Description: "Use one of the Service's ports ({servicePorts}) instead of {port}", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get service {service}", verifyPods}})
	rule(Rule{ID: "dependency-auth-failed", Category: "DependencyAuthFailed", Confidence: 80,
		Title:      "the credentials the application sends are rejected",
		Signals:    "authentication failures in the container's error line; the Secret its credentials come from; for a service that logs pods in by their ServiceAccount (Vault Kubernetes auth, IRSA, workload identity), the ServiceAccount the workload's pods run as",
		Actions:    []ActionTemplate{{Description: "Put the right credentials in {sourceResource} (key {key}) and restart the workload", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskMedium}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "schema-not-migrated", Category: "SchemaNotMigrated", Confidence: 80,
		Title:      "the database schema the application expects is missing because its migration Job did not complete",
		Signals:    "missing relation/table or migration errors in the container's error line; a Job in the namespace that failed or has not completed",
		Actions:    []ActionTemplate{{Description: "Fix and re-run Job {job}", Command: "kubectl -n {ns} logs job/{job}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get job {job}  # COMPLETIONS 1/1", verifyPods}})
	rule(Rule{ID: "controller-skips-object", Category: "ControllerSkipsObject", Confidence: 76,
		Title:      "a controller running beside the object logs that it skips (ignores, will not update) it",
		Signals:    "a Running pod whose log lines name the object the session asks about (the target, an Ingress host, a host in the problem text) with 'skipping', 'ignoring', 'does not match', 'refusing to'; a value the line quotes that is the controller's own argument or variable",
		Actions:    []ActionTemplate{{Description: "Make the setting of {workload} ({setting}) and what {object} carries agree, then watch its log: {errorLine}", Command: "kubectl -n {ns} logs {pod} -c {container} --tail=100", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} logs {pod} -c {container} --since=5m  # the object is no longer skipped"}})
	rule(Rule{ID: "app-error-logged", Category: "ApplicationError", Confidence: 60,
		Title:      "a running workload keeps logging an error",
		Signals:    "Running and Ready pods whose recent log lines repeat an error",
		Actions:    []ActionTemplate{{Description: "Look at the error it logs: {errorLine}", Command: "kubectl -n {ns} logs {pod} -c {container} --tail=100", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} logs {pod} -c {container} --since=5m  # the error is gone"}})
	rule(Rule{ID: "certificate-expired", Category: "CertificateExpired", Confidence: 90,
		Title:      "a TLS certificate mounted from a Secret has expired (or is not valid yet)",
		Signals:    "x509 errors in the container's error line; the notBefore/notAfter of the certificates in the Secrets mounted by the client and by the server it calls (when the log cannot be read, the servers it is configured to call)",
		Actions:    []ActionTemplate{{Description: "Renew the certificate in Secret {secret} (with cert-manager: renew the Certificate that writes it), then restart the pods that mount it", Command: "kubectl -n {ns} get secret {secret} -o jsonpath='{.data.tls\\.crt}' | base64 -d | openssl x509 -noout -dates", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get secret {secret} -o jsonpath='{.data.tls\\.crt}' | base64 -d | openssl x509 -noout -enddate", verifyPods}})
	rule(Rule{ID: "certificate-name-mismatch", Category: "CertificateNameMismatch", Confidence: 86,
		Title:      "the server's certificate, mounted from a Secret, does not name the host its clients call",
		Signals:    "'x509: certificate is valid for A, not B' in the client's error line or termination message; the DNS names of the certificates in the Secrets mounted by the pods behind the Service B names",
		Actions:    []ActionTemplate{{Description: "Reissue the certificate in {secret} with {host} among its DNS names (with cert-manager: add it to the Certificate's dnsNames), or point the client at a name the certificate covers", Command: "kubectl -n {ns} get secret {secret} -o jsonpath='{.data.tls\\.crt}' | base64 -d | openssl x509 -noout -ext subjectAltName", Risk: RiskMedium}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "tls-material-invalid", Category: "TLSMaterialInvalid", Confidence: 86,
		Title:      "a server cannot load the TLS certificate or key mounted from a Secret (a key that does not match its certificate, or a file that is no PEM)",
		Signals:    "'key values mismatch', 'private key does not match', PEM or certificate-loading errors naming a file in the container's error line; the Secret or ConfigMap volume mounted at that path, the subject and dates of its certificates",
		Actions:    []ActionTemplate{{Description: "Write a certificate and the key it was issued for into {sourceResource}, then restart the pods that mount it", Command: "kubectl -n {ns} get {sourceResource} -o jsonpath='{.data.tls\\.crt}' | base64 -d | openssl x509 -noout -pubkey | openssl sha256", Risk: RiskMedium}},
		Validation: []string{verifyPods}})
	// --- Access ---
	rule(Rule{ID: "rbac-forbidden", Category: "RBACForbidden", Confidence: 88,
		Title:      "RBAC does not grant the subject the permission it needs",
		Signals:    "a SubjectAccessReview for the subject; Roles, ClusterRoles and their bindings that almost match (verb, resource, API group, subject name, kind or namespace); 'forbidden' errors quoted by applications; a controller's informer that never syncs ('failed to sync *v1.Ingress'), only when the review denies the list",
		Actions:    []ActionTemplate{{Description: "Change {sourceResource} so it grants {verb} on {resource} to {subject}", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskMedium}, {Description: "Or bind a role that allows it", Command: "kubectl -n {ns} create rolebinding {subjectName}-{verb}-{resourceSlug} --role={role} {bindFlag}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} auth can-i {verb} {resource} --as={user}  # yes"}})
	rule(Rule{ID: "serviceaccount-not-set", Category: "RBACForbidden", Confidence: 92,
		Title:   "the pod runs as the namespace's default ServiceAccount, while the permission it needs is bound to another account",
		Signals: "a 'forbidden' error of ServiceAccount default from a pod whose template sets no serviceAccountName; exactly one other ServiceAccount of the namespace is bound (RoleBinding) to a role that allows the request",
		Actions: []ActionTemplate{{Description: "Set serviceAccountName: {serviceAccount} in the pod template of {sourceResource} (binding the role to default would grant it to every pod of the namespace)",
			Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} auth can-i {verb} {resource} --as=system:serviceaccount:{ns}:{serviceAccount}  # yes", verifyPods}})
	rule(Rule{ID: "rbac-allowed", Category: "RBACAllowed", Confidence: 60,
		Title:      "RBAC grants the permission in question now",
		Signals:    "a SubjectAccessReview for the subject answers allowed",
		Actions:    []ActionTemplate{{Description: "Check the identity and namespace the client really uses", Command: "kubectl -n {ns} auth can-i {verb} {resource} --as={user}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} auth can-i {verb} {resource} --as={user}"}})
	// --- Autoscaling and disruption ---
	rule(Rule{ID: "hpa-target-missing", Category: "HPATargetMissing", Confidence: 90,
		Title:      "the HorizontalPodAutoscaler's scale target does not exist",
		Signals:    "AbleToScale=False FailedGetScale, scaleTargetRef absent",
		Actions:    []ActionTemplate{{Description: "Fix scaleTargetRef ({target}) of the HPA", Command: "kubectl -n {ns} edit hpa {name}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} describe hpa {name}  # AbleToScale True"}})
	rule(Rule{ID: "hpa-missing-requests", Category: "HPAMissingRequests", Confidence: 88,
		Title:      "the HPA cannot compute utilization because the pods set no resource requests",
		Signals:    "a Utilization metric while a target container has no request for that resource, or ScalingActive=False 'missing request for cpu'",
		Actions:    []ActionTemplate{{Description: "Set {metric} requests on {workload}", Command: "kubectl -n {ns} set resources {workload} --requests={metric}=<value>", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} describe hpa {hpa}  # ScalingActive True"}})
	rule(Rule{ID: "hpa-ambiguous-selector", Category: "HPAAmbiguousSelector", Confidence: 88,
		Title:      "two HorizontalPodAutoscalers select the same pods, so neither scales",
		Signals:    "ScalingActive=False reason AmbiguousSelector, several HPAs on one scale target",
		Actions:    []ActionTemplate{{Description: "Keep one autoscaler for the workload: delete HPA {hpa} ({detail})", Command: "kubectl -n {ns} delete hpa {hpa}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get hpa  # one autoscaler per workload, ScalingActive True"}})
	rule(Rule{ID: "hpa-metrics-unavailable", Category: "HPAMetricsUnavailable", Confidence: 85,
		Title:      "the HPA cannot read its metrics",
		Signals:    "ScalingActive=False reason FailedGetResourceMetric/FailedGetPodsMetric/FailedGetExternalMetric, events",
		Actions:    []ActionTemplate{{Description: "Make the metrics API serve the metric (metrics-server / adapter): {detail}", Command: "kubectl get apiservices | grep metrics", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} describe hpa {name}"}})
	rule(Rule{ID: "hpa-maxed-out", Category: "HPAMaxedOut", Confidence: 75,
		Title:      "the HPA wants more replicas than its maximum",
		Signals:    "ScalingLimited=True TooManyReplicas, currentReplicas == maxReplicas; SuccessfulRescale 'above Spec.MaxReplicas' (a manual scale-up taken back)",
		Actions:    []ActionTemplate{{Description: "Raise maxReplicas (now {maxReplicas}) or make pods handle more load", Command: "kubectl -n {ns} patch hpa {name} --type=merge -p '{\"spec\":{\"maxReplicas\":<higher>}}'", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get hpa {name}"}})
	rule(Rule{ID: "hpa-scale-blocked", Category: "HPAScaleBlocked", Confidence: 60,
		Title:      "the HPA asks for more replicas than the workload manages to run",
		Signals:    "status.desiredReplicas above currentReplicas while the HPA is able to scale; the workload's creation or scheduling failures",
		Actions:    []ActionTemplate{{Description: "Find what keeps {target} from creating or scheduling pods (quota, capacity)", Command: "kubectl -n {ns} describe {workload}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get hpa {hpa}"}})
	rule(Rule{ID: "pdb-blocking", Category: "PDBBlocking", Confidence: 80,
		Title:      "a PodDisruptionBudget allows no disruptions, blocking drains and evictions",
		Signals:    "status.disruptionsAllowed 0 with expectedPods > 0, minAvailable/maxUnavailable",
		Actions:    []ActionTemplate{{Description: "Relax the budget ({budget}) or add replicas so one pod may go", Command: "kubectl -n {ns} patch pdb {name} --type=merge -p '{\"spec\":{\"maxUnavailable\":1,\"minAvailable\":null}}'", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get pdb {name}  # ALLOWED DISRUPTIONS >= 1"}})
	rule(Rule{ID: "pdb-overlap", Category: "PDBOverlap", Confidence: 75,
		Title:      "more than one PodDisruptionBudget selects the same pods, so none of them can be evicted",
		Signals:    "two or more PodDisruptionBudgets whose selectors match one pod; MultiplePodDisruptionBudgets warning events; eviction answering 500",
		Actions:    []ActionTemplate{{Description: "Narrow the selector of the broader budget ({budgets}) so each pod has one budget", Command: "kubectl -n {ns} edit pdb {name}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get pdb  # one budget per pod; kubectl drain evicts the pod"}})
	rule(Rule{ID: "pdb-selects-no-pods", Category: "PDBSelectsNoPods", Confidence: 45,
		Title:      "a PodDisruptionBudget selects no pods",
		Signals:    "status.expectedPods 0",
		Actions:    []ActionTemplate{{Description: "Fix the PDB selector", Command: "kubectl -n {ns} edit pdb {name}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get pdb {name}"}})
	// --- Nodes ---
	rule(Rule{ID: "node-not-ready", Category: "NodeNotReady", Confidence: 90,
		Title:   "the node is not Ready",
		Signals: "Node condition Ready=False/Unknown with reason and message, unreachable taints",
		Actions: []ActionTemplate{
			{Description: "Check the kubelet and container runtime on {name} ({detail})", Command: "kubectl describe node {name}", Risk: RiskLow},
			{Description: "Drain the node so its pods move elsewhere", Command: "kubectl drain {name} --ignore-daemonsets --delete-emptydir-data", Risk: RiskHigh},
		},
		Validation: []string{"kubectl get node {name}  # STATUS Ready"}})
	rule(Rule{ID: "node-memory-pressure", Category: "NodeMemoryPressure", Confidence: 85,
		Title:      "the node is under memory pressure and evicts pods",
		Signals:    "Node condition MemoryPressure=True, Evicted pods",
		Actions:    []ActionTemplate{{Description: "Find the biggest memory users on {name} and set limits", Command: "kubectl describe node {name}", Risk: RiskLow}},
		Validation: []string{"kubectl describe node {name}  # MemoryPressure False"}})
	rule(Rule{ID: "node-disk-pressure", Category: "NodeDiskPressure", Confidence: 85,
		Title:      "the node is running out of disk",
		Signals:    "Node condition DiskPressure=True",
		Actions:    []ActionTemplate{{Description: "Free disk on {name} (images, logs, emptyDirs)", Command: "kubectl describe node {name}", Risk: RiskMedium}},
		Validation: []string{"kubectl describe node {name}  # DiskPressure False"}})
	rule(Rule{ID: "node-pid-pressure", Category: "NodePIDPressure", Confidence: 85,
		Title:      "the node is running out of process IDs",
		Signals:    "Node condition PIDPressure=True",
		Actions:    []ActionTemplate{{Description: "Find the pod forking processes on {name}; set pod PID limits", Command: "kubectl describe node {name}", Risk: RiskMedium}},
		Validation: []string{"kubectl describe node {name}  # PIDPressure False"}})
	rule(Rule{ID: "node-network-unavailable", Category: "NodeNetworkUnavailable", Confidence: 80,
		Title:      "the node's network is not configured",
		Signals:    "Node condition NetworkUnavailable=True",
		Actions:    []ActionTemplate{{Description: "Check the CNI plugin on {name}", Command: "kubectl -n kube-system get pods -o wide | grep {name}", Risk: RiskLow}},
		Validation: []string{"kubectl describe node {name}"}})
	rule(Rule{ID: "node-cordoned", Category: "NodeCordoned", Confidence: 55,
		Title:      "the node is cordoned",
		Signals:    "Node spec.unschedulable=true",
		Actions:    []ActionTemplate{{Description: "Uncordon {name} when its maintenance is over", Command: "kubectl uncordon {name}", Risk: RiskMedium}},
		Validation: []string{"kubectl get node {name}"}})
	// --- Session-level outcomes ---
	rule(Rule{ID: "target-not-found", Category: "TargetNotFound", Confidence: 100,
		Title:      "the object to investigate does not exist",
		Signals:    "GET of the session target returns NotFound",
		Actions:    []ActionTemplate{{Description: "Check the name and namespace of the target", Command: "kubectl -n {ns} get {plural}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get {resource}"}})
	rule(Rule{ID: "unsupported-target", Category: "UnsupportedTarget", Confidence: 100,
		Title:   "the rule engine does not know the target's kind",
		Signals: "target kind not in the tools' kind table",
		Actions: []ActionTemplate{{Description: "Target a Pod, workload, Service, PVC, Node, Job, CronJob, HPA, PDB or Ingress, or the whole namespace", Command: "", Risk: RiskLow}}})
	rule(Rule{ID: "no-problem-found", Category: "NoProblemFound", Confidence: 20,
		Title:   "no known failure signal was found",
		Signals: "every analyzer ran and no rule matched",
		Actions: []ActionTemplate{{Description: "Look at recent events and application metrics; the cause may be outside Kubernetes objects", Command: "kubectl -n {ns} get events --sort-by=.lastTimestamp", Risk: RiskLow}}})
	rule(Rule{ID: "inconclusive", Category: "Inconclusive", Confidence: 10,
		Title:   "the investigation could not complete",
		Signals: "analyzer tasks failed (API errors, permissions, budget)",
		Actions: []ActionTemplate{{Description: "Check the operator's permissions and the API server, then retry", Command: "kubectl auth can-i --list -n {ns}", Risk: RiskLow}}})
}
