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

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/tools"
)

// Consumers → providers. A container that fails while talking to something is often healthy
// itself: the Service it calls has no endpoints, a NetworkPolicy drops the traffic, or the
// name it calls does not exist. What the container's text names (see clues.go) is matched
// against the cluster here, and the provider's fault becomes the root cause.

// depCheck is one failing container whose text is matched against the cluster.
type depCheck struct {
	pc      *podCheck
	cs      corev1.ContainerStatus
	spec    corev1.Container
	clue    Clue
	symptom string // "is in CrashLoopBackOff (restarted 4 time(s), last exit code 1)"
	evIDs   []string
	// via says where the provider being walked came from when the text did not name it
	// ("env PAYMENTS_URL"); such a provider is blamed only when it is really broken.
	via string
	// conf, when set, caps the confidence of what this check reports (a fault proven by
	// the objects alone, with no error of the application behind it).
	conf int
	// sources are the configuration objects the container reads, for a report whose
	// cause nothing named (settingSources).
	sources []ObjectRef
}

// Bounds of the dependency walk.
const (
	maxDepHosts     = 3
	maxServiceList  = 500
	maxPolicyList   = 200
	maxConfigValues = 200
)

func (d *depCheck) opening() string {
	if d.clue.Line == "" {
		return fmt.Sprintf("Container %s of pod %s %s", d.cs.Name, d.pc.pod.Name, d.symptom)
	}
	return fmt.Sprintf("Container %s of pod %s %s with %s", d.cs.Name, d.pc.pod.Name, d.symptom, quoteClue(d.clue))
}

// report records a finding about the consumer: Object is its pod, the culprit is where
// the fault is, and the pod and its workload are always among the affected objects.
func (d *depCheck) report(ctx context.Context, rule string, conf int, culprit ObjectRef, summary string, follow, extra []ObjectRef, facts map[string]string) {
	pc := d.pc
	if d.conf > 0 && (conf == 0 || conf > d.conf) {
		conf = d.conf
	}
	wl := pc.e.workloadOf(ctx, pc.pod)
	if culprit.IsZero() {
		culprit = wl
	}
	affected := mergeRefs(extra, []ObjectRef{wl, pc.ref})
	summary += pc.connectionNote(ctx, d.spec, d.clue, summary)
	f := Finding{Rule: rule, Confidence: conf, Object: pc.ref, Culprit: culprit, Summary: summary, Follow: follow,
		Affected: affected, Evidence: append([]string{pc.statusEv}, d.evIDs...),
		Facts: pc.facts(ctx, d.cs.Name, facts), Sources: d.sources}
	f.Facts["errorLine"] = d.clue.Line
	pc.e.find(f)
}

// followClue matches the clue against the cluster and reports whether it recorded a finding
// that explains the container's trouble.
func (pc *podCheck) followClue(ctx context.Context, d *depCheck) bool {
	if d.clue.IsError() {
		pc.e.followNamedConstraints(ctx, d.clue.Line)
		if pc.privilegeGrants(ctx, d) || pc.volumeWriter(ctx, d) {
			return true
		}
	}
	// A well-known error's signature names its mechanism, whatever line scored highest.
	if pc.knownText(ctx, d) || pc.followText(ctx, d) {
		return true
	}
	// No text at all: configuration that fails silently comes first (analyze_quiet.go).
	if !d.clue.IsError() && pc.quietConfig(ctx, d) {
		return true
	}
	// The text names nothing the cluster knows (or there is no text): what the container is
	// configured to call may still be down.
	if (!d.clue.IsError() || networkClass(d.clue.Class) || d.clue.Class == ErrGeneric) && pc.followConfigured(ctx, d) {
		return true
	}
	// The error is a server's reply naming its software: the provider it comes from.
	if pc.serverNamedByWord(ctx, d) {
		return true
	}
	// An error text that names nothing the cluster knows does not take away what the objects
	// prove without it: a log adds evidence, it never pulls the conclusion away from them.
	if d.clue.IsError() && pc.quietConfig(ctx, d) {
		return true
	}
	// Last, the tokens the error quotes, matched against the objects and configuration the
	// workload is given (analyze_tokens.go, analyze_namedobject.go).
	if d.clue.IsError() && (pc.namedObjectKey(ctx, d) || pc.tokenInConfig(ctx, d) || pc.tokenInIngress(ctx, d) || pc.settingEchoed(ctx, d, false) || pc.nearValueElsewhere(ctx, d, false)) {
		return true
	}
	// Nothing it names explains it: the same image elsewhere may be given what it lacks.
	return d.clue.IsError() && !networkClass(d.clue.Class) && d.clue.Class != ErrAuth && pc.sameImageSibling(ctx, d)
}

// followText follows what the clue itself names.
func (pc *podCheck) followText(ctx context.Context, d *depCheck) bool {
	if !d.clue.IsError() {
		return false
	}
	if d.clue.Forbidden != nil && pc.rbacDenied(ctx, d) || pc.execNotFound(ctx, d) || pc.keyFileTooOpen(ctx, d) || pc.nearValueElsewhere(ctx, d, true) {
		return true
	}
	if pc.identityRejected(ctx, d) || pc.agentOnPodIP(ctx, d) || pc.peerPolicyBlocked(ctx, d) || pc.duplicateDefaults(ctx, d) || pc.socketMismatch(ctx, d) || pc.absentSetting(ctx, d) {
		return true
	}
	if pc.ingressPathFallthrough(ctx, d) {
		return true
	}
	if pc.protocolMismatch(ctx, d) || pc.serviceLinkCollision(ctx, d) || pc.advertisedLoopback(ctx, d) || pc.loopbackDefault(ctx, d) || pc.serverSettingNamed(ctx, d) || pc.settingEchoed(ctx, d, true) {
		return true
	}
	switch d.clue.Class {
	case ErrAuth:
		return pc.credentials(ctx, d)
	case ErrSchema:
		return pc.migrationRejected(ctx, d) || pc.schemaJob(ctx, d)
	case ErrLimit, ErrPool:
		return pc.connectionLimit(ctx, d)
	case ErrTLS:
		// The server answered: the certificates, not the path, are at fault, unless the
		// name reached the wrong server through a search domain.
		if pc.searchDomainCapture(ctx, d) || pc.certificates(ctx, d) || pc.tlsMaterial(ctx, d) {
			return true
		}
	case ErrDNS, ErrRefused, ErrTimeout, ErrUnavail, ErrGeneric:
		if pc.followHosts(ctx, d) {
			return true
		}
	}
	if d.clue.Class == ErrPermission && pc.mountNotWritable(ctx, d) {
		return true
	}
	// A second line names a setting the application lacks ("X is not set, using the
	// default"): whatever the first line's family, the missing setting explains it.
	if len(d.clue.alsoKeys) > 0 && networkClass(d.clue.Class) && pc.missingSettings(ctx, d) {
		return true
	}
	switch d.clue.Class {
	case ErrConfig, ErrPermission, ErrGeneric, ErrDisk, ErrTLS:
		if pc.missingSettings(ctx, d) || pc.missingFiles(ctx, d) || pc.fullVolumeUnnamed(ctx, d) {
			return true
		}
	}
	return pc.invalidConfigFiles(ctx, d)
}

// networkClass reports errors of the connection itself.
func networkClass(c ErrClass) bool {
	return c == ErrDNS || c == ErrRefused || c == ErrTimeout || c == ErrUnavail
}

// followHosts walks the first host the text names that the cluster knows about.
func (pc *podCheck) followHosts(ctx context.Context, d *depCheck) bool {
	e := pc.e
	svcs, err := listOnce[*corev1.Service](ctx, e, "Service", maxServiceList)
	if err != nil {
		return false
	}
	byName, byIP := map[string]*corev1.Service{}, map[string]*corev1.Service{}
	for _, s := range svcs {
		byName[s.Name] = s
		for _, ip := range append([]string{s.Spec.ClusterIP}, s.Spec.ClusterIPs...) {
			if ip != "" && ip != corev1.ClusterIPNone {
				byIP[strings.ToLower(ip)] = s // dual-stack Services have one per family
			}
		}
	}
	// A timeout calling the API server (never among the clue's hosts) may be the namespace's
	// egress policy; a call the container's proxy settings divert never reaches the Service.
	if h, ok := apiServerNamed(d.clue.Line); ok && pc.apiServerEgressBlocked(ctx, d, h, svcs) || pc.proxyIntercepts(ctx, d, svcKeys(byName, byIP)) {
		return true
	}
	for i, h := range d.clue.Hosts {
		if i >= maxDepHosts {
			break
		}
		name, hns, scope := classifyHost(h.Host, e.s.Namespace)
		// A cluster name that does not resolve: the pod's own DNS settings come first.
		if d.clue.Class == ErrDNS && pc.dnsPolicyFault(ctx, d, h) {
			return true
		}
		switch scope {
		case hostIP:
			if s := byIP[name]; s != nil {
				return pc.walkProvider(ctx, d, s, h)
			}
			if pc.apiServerEgressBlocked(ctx, d, h, svcs) {
				return true
			}
			if pc.followPodIP(ctx, d, h, svcs) || pc.staleAddress(ctx, d, h, svcs) {
				return true
			}
			if pc.outsideHost(h, scope, svcs) && pc.egressToOutside(ctx, d, h) {
				return true
			}
		case hostInNamespace:
			if s := byName[name]; s != nil {
				if h.Weak && pc.selectsSelf(s) {
					continue // "Unable to connect to Metabase postgres DB": the app names itself
				}
				return pc.walkProvider(ctx, d, s, h)
			}
			// A name no Service has is blamed on a lookup failure, on a connection error naming
			// host:port, or when the configuration holds it; a loose mention alone is not enough.
			if !h.Weak && (d.clue.Class == ErrDNS || networkClass(d.clue.Class) && h.Port != "") || pc.addressSetting(ctx, d, h.Host) {
				pc.hostUnknown(ctx, d, h, name, svcs, "")
				return true
			}
		case hostOtherNS:
			// pod.service (a StatefulSet pod's name under its headless Service) resolves in
			// this namespace through the DNS search path.
			if s := byName[hns]; s != nil {
				if d.clue.Class == ErrDNS && pc.virtualHostedBucket(ctx, d, h, name, s) {
					return true
				}
				if d.clue.Class == ErrDNS && pc.podDNSMissing(ctx, d, h, name, s) {
					return true
				}
				return pc.walkProvider(ctx, d, s, h)
			}
			if d.clue.Class == ErrDNS && pc.governingServiceGone(ctx, d, h, name, hns) {
				return true
			}
			// The name resolves nowhere, and a Service of that name lives right here: the
			// configuration points at the wrong namespace.
			if d.clue.Class == ErrDNS && (byName[name] != nil || pc.findValue(ctx, d, h.Host) != nil) {
				pc.hostUnknown(ctx, d, h, name, svcs, hns)
				return true
			}
		case hostExternal:
			if done, ok := pc.podServiceFQDN(ctx, d, h, byName); ok {
				return done
			}
			if d.clue.Class == ErrDNS && pc.misspeltHost(ctx, d, h) {
				return true
			}
			if (d.clue.Class == ErrDNS || d.clue.Class == ErrTimeout) && pc.egressBlocked(ctx, d, h, nil) {
				return true
			}
			if pc.outsideHost(h, scope, svcs) && pc.egressToOutside(ctx, d, h) {
				return true
			}
		}
	}
	return false
}

// hostUnknown reports a call to a name no Service has, with where the name comes from.
func (pc *podCheck) hostUnknown(ctx context.Context, d *depCheck, h HostPort, name string, svcs []*corev1.Service, wrongNS string) {
	e := pc.e
	src := pc.findValue(ctx, d, h.Host)
	if src == nil && name != h.Host {
		// The application may add the domain itself: the setting holds the bare name.
		src = pc.findValue(ctx, d, name)
	}
	if src == nil {
		src = pc.secretSource(ctx, d)
	}
	var names []string
	for _, s := range svcs {
		names = append(names, s.Name)
	}
	sort.Strings(names)
	closest := closestName(name, names)
	facts := map[string]string{"host": h.Host, "service": name, "closest": orDefault(closest, "<service>")}
	var b strings.Builder
	b.WriteString(d.opening())
	if wrongNS != "" {
		fmt.Fprintf(&b, ": it calls %s, Service %s in namespace %s, and that name does not resolve", h.Host, name, wrongNS)
		if containsStr(names, name) {
			fmt.Fprintf(&b, "; Service %s exists here, in %s.", name, e.s.Namespace)
			facts["closest"] = name + "." + e.s.Namespace
		} else {
			fmt.Fprintf(&b, " (no such Service or namespace).")
		}
	} else {
		fmt.Fprintf(&b, ": it calls host %s, but no Service named %s exists in namespace %s", h.String(), name, e.s.Namespace)
		if closest != "" {
			fmt.Fprintf(&b, " (did you mean %s?)", closest)
		} else if len(names) > 0 {
			fmt.Fprintf(&b, " (Services: %s)", strings.Join(clipList(names, 8), ", "))
		}
		b.WriteString(".")
	}
	culprit := ObjectRef{}
	var extra []ObjectRef
	if src != nil {
		fmt.Fprintf(&b, " The name comes from %s; fix it there.", src.where)
		culprit = src.ref
		extra = append(extra, src.ref)
		facts["source"] = src.where
		facts["sourceResource"] = kubectlResource(src.ref)
		facts["key"] = src.key
		d.evIDs = append(d.evIDs, pc.e.objEvidence(src.ref, fmt.Sprintf("%s: %s", src.where, src.value)))
	} else {
		facts["sourceResource"] = kubectlResource(e.workloadOf(ctx, pc.pod))
		facts["source"] = "the container's configuration"
	}
	if closest != "" {
		extra = append(extra, e.ref("Service", closest))
	} else if wrongNS == "" {
		// Nothing like it exists: the Service itself may be what is missing.
		fmt.Fprintf(&b, " If %s is meant to exist, create Service %s.", name, name)
		extra = append(extra, e.ref("Service", name))
	}
	d.report(ctx, "dependency-host-unknown", 0, culprit, b.String(), nil, extra, facts)
}

// walkProvider follows a Service the consumer calls: its ports, its backends and the
// NetworkPolicies on the way. Findings about the Service itself are recorded by the same
// checks a Service target gets, so they explain the consumer's finding.
func (pc *podCheck) walkProvider(ctx context.Context, d *depCheck, svc *corev1.Service, h HostPort) bool {
	e := pc.e
	sref := e.ref("Service", svc.Name)
	e.examine(sref)
	svcEv := e.objEvidence(sref, "Service "+svc.Name+": "+tools.Summarize(svc, e.now).Status)
	d.evIDs = append(d.evIDs, svcEv)
	facts := map[string]string{"service": svc.Name, "host": h.Host}
	head := d.opening() + ": it depends on Service " + svc.Name
	if d.via != "" {
		head += " (" + d.via + ")"
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		if done, ok := pc.aliasInCluster(ctx, d, svc, h); ok {
			return done
		}
		if d.via != "" {
			return false
		}
		d.report(ctx, "dependency-unreachable", 60, sref, fmt.Sprintf("%s, an ExternalName alias of %s outside the cluster.", head, svc.Spec.ExternalName), nil, []ObjectRef{sref}, facts)
		return true
	}
	// A port the Service does not expose: connection refused at the ClusterIP. A headless
	// Service has no ClusterIP: clients reach the pods on their own ports.
	headless := svc.Spec.ClusterIP == corev1.ClusterIPNone
	if p, err := strconv.Atoi(h.Port); err == nil && h.Port != "" && !headless && !serviceHasPort(svc, int32(p)) {
		src := pc.findValue(ctx, d, h.String())
		if src == nil {
			src = pc.findValue(ctx, d, h.Port)
		}
		facts["port"], facts["servicePorts"] = h.Port, servicePortList(svc)
		culprit, extra := ObjectRef{}, []ObjectRef{sref}
		where := ""
		if src != nil {
			culprit, where = src.ref, " The port comes from "+src.where+"."
			extra = append(extra, src.ref)
			facts["sourceResource"] = kubectlResource(src.ref)
		}
		d.report(ctx, "dependency-port-mismatch", 0, culprit, fmt.Sprintf("%s on port %s, but the Service only listens on %s.%s", head, h.Port, servicePortList(svc), where), nil, extra, facts)
		return true
	}
	if len(svc.Spec.Selector) == 0 {
		slices, err := listSlices(ctx, e, svc.Name)
		if err != nil {
			return false
		}
		if _, total := tools.ReadyEndpoints(slices); total == 0 {
			culprit, _ := e.selectorlessFinding(ctx, svc, []string{svcEv})
			d.report(ctx, "dependency-unreachable", 0, sref, head+", which has no selector and no endpoints.", []ObjectRef{sref, culprit}, []ObjectRef{sref, culprit}, facts)
			return true
		}
		if culprit, ok := e.slicePortFinding(svc, slices, []string{svcEv}); ok {
			d.report(ctx, "dependency-unreachable", 0, sref, head+", which has no selector, and whose hand-written EndpointSlice "+culprit.Name+" does not name the Service's port, so the port has no endpoints.", []ObjectRef{sref, culprit}, []ObjectRef{sref, culprit}, facts)
			return true
		}
		return false
	}
	pods, _, err := listAs[*corev1.Pod](ctx, e, "Pod", tools.ListOptions{LabelSelector: tools.LabelsString(svc.Spec.Selector), Max: maxServicePods})
	if err != nil {
		return false
	}
	pods = matching(pods, svc.Spec.Selector)
	if len(pods) == 0 {
		n := len(e.res.Findings)
		if serviceWithoutPods(ctx, e, svc, []string{svcEv}) != nil {
			return false
		}
		why := ", whose selector " + tools.LabelsString(svc.Spec.Selector) + " matches no pod, so it has no endpoints."
		if fs := e.res.Findings[n:]; len(fs) > 0 && fs[0].Rule == "service-workload-no-pods" {
			why = fmt.Sprintf(", which has no endpoints because %s %s has created none of its pods.", fs[0].Culprit.Kind, fs[0].Culprit.Name)
		}
		d.report(ctx, "dependency-unreachable", 0, sref, head+why, []ObjectRef{sref}, []ObjectRef{sref}, facts)
		return true
	}
	var ready, unready []*corev1.Pod
	for _, p := range pods {
		if p.DeletionTimestamp == nil && isReady(p) {
			ready = append(ready, p)
		} else {
			unready = append(unready, p)
		}
	}
	if len(ready) == 0 {
		var follow []ObjectRef
		for _, p := range representatives(unready, 2) {
			follow = append(follow, e.ref("Pod", p.Name))
		}
		d.report(ctx, "dependency-unreachable", 0, sref, fmt.Sprintf("%s, whose %d pod(s) are not ready, so it has no endpoints: the provider's failure is the cause.", head, len(pods)),
			follow, append([]ObjectRef{sref}, follow...), facts)
		return true
	}
	if portFinding(e, svc, ready, sref, []string{svcEv}) {
		d.report(ctx, "dependency-unreachable", 0, sref, head+", whose targetPort matches no container port.", []ObjectRef{sref}, []ObjectRef{sref}, facts)
		return true
	}
	// Backends that cannot serve (analyze_backends.go) fail a share of the calls.
	if pc.policyBlocks(ctx, d, svc, ready[0], h) || pc.localTrafficOnly(ctx, d, svc, ready, head, facts) || networkClass(d.clue.Class) && pc.wrongBackends(ctx, d, svc, sref, head, pods, facts) {
		return true
	}
	if pc.unstableProvider(ctx, d, sref, head, pods, facts) {
		return true
	}
	// The provider is Ready and the path open: what it logs may say why it fails its clients.
	var pl providerLog
	// A configured provider (via) is read too: it is blamed only when its own error leads
	// to a cause of its own (providerOwnError), never for being merely named.
	if networkClass(d.clue.Class) || pc.providerWord(ctx, d, ready) != "" {
		if pl = pc.readProvider(ctx, ready); pc.providerOwnError(ctx, d, sref, head, pl, facts) {
			return true
		}
	}
	if pc.serverErrorFrom(ctx, d, head, ready, pl, facts) || pc.loopbackListener(ctx, d, svc, ready, sref, head, facts) {
		return true
	}
	// The path looks open: the provider answers but fails. That only explains a network
	// error; an application error that merely mentions the Service is not its fault.
	if !networkClass(d.clue.Class) || d.via != "" {
		return false
	}
	if d.clue.Class == ErrDNS {
		// The Service is there and healthy, the pod's DNS settings are fine and no policy
		// drops the lookup: the name does not resolve because of the cluster DNS itself.
		d.report(ctx, "dependency-unreachable", 45, sref, fmt.Sprintf("%s, which exists and has %d ready endpoint(s), yet its name does not resolve from the pod, whose dnsPolicy is %s and no NetworkPolicy drops the lookup: the cluster DNS (CoreDNS in kube-system, or the node's resolver) is the likely cause, not the Service.",
			head, len(ready), orDefault(string(pc.pod.Spec.DNSPolicy), "ClusterFirst")), nil, []ObjectRef{sref}, facts)
		return true
	}
	var follow []ObjectRef
	for _, p := range representatives(ready, 2) {
		follow = append(follow, e.ref("Pod", p.Name))
	}
	said := ""
	if pl.pod != nil {
		said = fmt.Sprintf(" Its pod %s logs %s.", pl.pod.Name, quoteLine(pl.clue.Line))
	}
	d.report(ctx, "dependency-unreachable", 55, sref, fmt.Sprintf("%s, which has %d ready endpoint(s) and no NetworkPolicy in the way; the provider itself answers with errors.%s", head, len(ready), said),
		follow, []ObjectRef{sref}, facts)
	return true
}

func serviceHasPort(svc *corev1.Service, p int32) bool {
	for _, sp := range svc.Spec.Ports {
		if sp.Port == p {
			return true
		}
	}
	return len(svc.Spec.Ports) == 0
}

func servicePortList(svc *corev1.Service) string {
	var out []string
	for _, sp := range svc.Spec.Ports {
		out = append(out, strconv.Itoa(int(sp.Port)))
	}
	return orDefault(strings.Join(out, ", "), "no ports")
}
