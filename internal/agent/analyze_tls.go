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
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubage/kubage/internal/tools"
)

// TLS errors ("x509: certificate has expired", "unknown authority") are matched against the
// certificates the client and the server it calls mount from Secrets: only the public
// certificates are parsed, and nothing of a Secret's content leaves this file but dates and
// subject names.

// Bounds of certificate checks.
const (
	maxCertSecrets = 4
	maxCertBytes   = 64 << 10
	maxCertsPerKey = 5
)

// certUse is a Secret holding certificates, and whose pod mounts it.
type certUse struct {
	secret string
	pod    *corev1.Pod
}

func mountedSecrets(p *corev1.Pod) []string {
	var out []string
	for _, v := range p.Spec.Volumes {
		switch {
		case v.Secret != nil:
			out = append(out, v.Secret.SecretName)
		case v.Projected != nil:
			for _, s := range v.Projected.Sources {
				if s.Secret != nil {
					out = append(out, s.Secret.Name)
				}
			}
		}
	}
	return out
}

// certificates checks the certificates on both ends of a TLS failure.
func (pc *podCheck) certificates(ctx context.Context, d *depCheck) bool {
	e := pc.e
	var uses []certUse
	for _, s := range mountedSecrets(pc.pod) {
		uses = append(uses, certUse{s, pc.pod})
	}
	// The server's side: the pods behind a Service the client names.
	for i, h := range d.clue.Hosts {
		if i >= 2 {
			break
		}
		name, _, scope := classifyHost(h.Host, e.s.Namespace)
		if scope != hostInNamespace {
			continue
		}
		svc, err := getAs[*corev1.Service](ctx, e, "Service", name)
		if err != nil || len(svc.Spec.Selector) == 0 {
			continue
		}
		pods, err := listOnce[*corev1.Pod](ctx, e, "Pod", scanMaxPods)
		if err != nil {
			continue
		}
		for _, p := range matching(append([]*corev1.Pod(nil), pods...), svc.Spec.Selector) {
			for _, s := range mountedSecrets(p) {
				uses = append(uses, certUse{s, p})
			}
			break
		}
	}
	// "certificate is valid for A, not B": the client asked for B.
	asked := ""
	if m := validForRe.FindStringSubmatch(strings.ToLower(d.clue.Line)); m != nil {
		asked = strings.TrimSuffix(m[2], ".")
	}
	seen := map[string]bool{}
	checked := 0
	for _, u := range uses {
		if seen[u.secret] || checked >= maxCertSecrets {
			continue
		}
		seen[u.secret] = true
		checked++
		s, err := getAs[*corev1.Secret](ctx, e, "Secret", u.secret)
		if err != nil {
			continue
		}
		for _, k := range sortedKeys(s.Data) {
			if !strings.HasSuffix(k, ".crt") && !strings.HasSuffix(k, ".pem") {
				continue
			}
			for _, c := range parseCerts(s.Data[k]) {
				if asked != "" && u.pod != pc.pod && !c.IsCA && c.VerifyHostname(asked) != nil {
					pc.certNameMismatch(ctx, d, s, k, c, u.pod, asked)
					return true
				}
				if e.now.Before(c.NotAfter) && e.now.After(c.NotBefore) {
					continue
				}
				ref := e.ref("Secret", s.Name)
				owner := e.workloadOf(ctx, u.pod)
				state := fmt.Sprintf("expired on %s (%s ago)", c.NotAfter.UTC().Format(time.RFC3339), e.now.Sub(c.NotAfter).Round(time.Hour))
				if e.now.Before(c.NotBefore) {
					state = "is not valid before " + c.NotBefore.UTC().Format(time.RFC3339)
				}
				side := "it mounts"
				if u.pod != pc.pod {
					side = fmt.Sprintf("the server it calls (%s %s) mounts", owner.Kind, owner.Name)
				}
				d.evIDs = append(d.evIDs, e.objEvidence(ref, fmt.Sprintf("Secret %s key %s: certificate CN=%s %s", s.Name, k, clipString(c.Subject.CommonName, 100), state)))
				d.report(ctx, "certificate-expired", 0, ref, fmt.Sprintf("%s: the certificate in Secret %s (key %s, CN=%s), which %s, %s.",
					d.opening(), s.Name, k, clipString(c.Subject.CommonName, 100), side, state), nil, []ObjectRef{ref, owner},
					map[string]string{"secret": s.Name, "sourceResource": "secret/" + s.Name, "notAfter": c.NotAfter.UTC().Format(time.RFC3339)})
				return true
			}
		}
	}
	return false
}

// parseCerts reads up to maxCertsPerKey PEM certificates; anything else is skipped.
func parseCerts(b []byte) []*x509.Certificate {
	if len(b) > maxCertBytes {
		b = b[:maxCertBytes]
	}
	var out []*x509.Certificate
	for len(out) < maxCertsPerKey {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			break
		}
		if blk.Type != "CERTIFICATE" {
			continue
		}
		if c, err := x509.ParseCertificate(blk.Bytes); err == nil {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].NotAfter.Before(out[j].NotAfter) })
	return out
}

// certNameMismatch reports the server's certificate that does not name the host its client
// asked for.
func (pc *podCheck) certNameMismatch(ctx context.Context, d *depCheck, s *corev1.Secret, key string, c *x509.Certificate, server *corev1.Pod, asked string) {
	e := pc.e
	ref := e.ref("Secret", s.Name)
	owner := e.workloadOf(ctx, server)
	names := c.DNSNames
	if len(names) == 0 && c.Subject.CommonName != "" {
		names = []string{c.Subject.CommonName}
	}
	covered := clipString(strings.Join(clipList(names, 4), ", "), 200)
	d.evIDs = append(d.evIDs, e.objEvidence(ref, fmt.Sprintf("Secret %s key %s: certificate for DNS names %s", s.Name, key, orDefault(covered, "none"))))
	d.report(ctx, "certificate-name-mismatch", 0, ref, fmt.Sprintf("%s: it calls %s, but the certificate in Secret %s (key %s), which the server it calls (%s %s) mounts, is valid only for %s, so the client refuses it. Reissue it with %s among its DNS names, or call a name it covers.",
		d.opening(), clipString(asked, 100), s.Name, key, owner.Kind, owner.Name, orDefault(covered, "no DNS name"), clipString(asked, 100)), nil, []ObjectRef{ref, owner},
		map[string]string{"secret": s.Name, "host": clipString(asked, 100), "sourceResource": "secret/" + s.Name})
}

// ingressCertExpired reports an Ingress whose TLS Secret holds an expired certificate (or one
// not valid yet): clients of its hosts get certificate errors. When another TLS Secret of the
// namespace holds a valid certificate for those hosts (a renewal written under a new name),
// the Ingress's secretName is what to change; otherwise the Secret is to renew.
func (e *env) ingressCertExpired(ctx context.Context, ing *networkingv1.Ingress, t networkingv1.IngressTLS, s *corev1.Secret, statusEv string) bool {
	var leaf *x509.Certificate
	for _, c := range parseCerts(s.Data[corev1.TLSCertKey]) {
		if !c.IsCA {
			leaf = c
			break
		}
	}
	if leaf == nil || e.now.Before(leaf.NotAfter) && e.now.After(leaf.NotBefore) {
		return false
	}
	iref, sref := e.ref("Ingress", ing.Name), e.ref("Secret", s.Name)
	state := fmt.Sprintf("expired on %s (%s ago)", leaf.NotAfter.UTC().Format(time.RFC3339), e.now.Sub(leaf.NotAfter).Round(time.Hour))
	if e.now.Before(leaf.NotBefore) {
		state = "is not valid before " + leaf.NotBefore.UTC().Format(time.RFC3339)
	}
	hosts := t.Hosts
	if len(hosts) == 0 {
		hosts = leaf.DNSNames
	}
	summary := fmt.Sprintf("Ingress %s serves TLS for %s with Secret %s, whose certificate (CN=%s) %s: clients of those hosts get certificate errors.",
		ing.Name, orDefault(strings.Join(hosts, ", "), "its hosts"), s.Name, clipString(leaf.Subject.CommonName, 100), state)
	culprit, affected := sref, []ObjectRef{iref}
	if other := e.validTLSSecretFor(ctx, s.Name, hosts); other != "" {
		culprit, affected = iref, []ObjectRef{sref, e.ref("Secret", other)}
		summary += fmt.Sprintf(" Secret %s holds a valid certificate for them (a renewal under another name): point the Ingress's tls secretName at %s, not %s.", other, other, s.Name)
	} else {
		summary += " Renew the certificate in Secret " + s.Name + "."
	}
	ev := e.objEvidence(sref, fmt.Sprintf("Secret %s key tls.crt: certificate CN=%s %s", s.Name, clipString(leaf.Subject.CommonName, 100), state))
	e.find(Finding{Rule: "certificate-expired", Object: iref, Culprit: culprit, Affected: affected, Evidence: []string{statusEv, ev},
		Facts:   map[string]string{"secret": s.Name, "sourceResource": "secret/" + s.Name, "notAfter": leaf.NotAfter.UTC().Format(time.RFC3339)},
		Summary: summary})
	return true
}

// validTLSSecretFor names another TLS Secret of the namespace whose certificate is valid now
// and covers every host, or "".
func (e *env) validTLSSecretFor(ctx context.Context, except string, hosts []string) string {
	if len(hosts) == 0 {
		return ""
	}
	secs, _, err := listAs[*corev1.Secret](ctx, e, "Secret", tools.ListOptions{Max: 200, FieldSelector: "type=" + string(corev1.SecretTypeTLS)})
	if err != nil {
		return ""
	}
	for _, s := range secs {
		if s.Name == except {
			continue
		}
		for _, c := range parseCerts(s.Data[corev1.TLSCertKey]) {
			if c.IsCA || !e.now.Before(c.NotAfter) || !e.now.After(c.NotBefore) {
				continue
			}
			all := true
			for _, h := range hosts {
				all = all && c.VerifyHostname(h) == nil
			}
			if all {
				return s.Name
			}
		}
	}
	return ""
}
