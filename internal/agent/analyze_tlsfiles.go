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
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// A server that cannot load its own TLS material (nginx "SSL_CTX_use_PrivateKey(…/tls.key)
// failed … key values mismatch", Go "tls: private key does not match public key", "no PEM
// data", "unable to load certificate") names the file it read; the volume mounted at that
// path says which Secret (or ConfigMap) holds the bad certificate or key. Only the public
// certificates are parsed, for their subject and dates; keys are never read.

// tlsMismatch are the words of a private key that does not belong to its certificate.
var tlsMismatch = []string{"key values mismatch", "private key does not match", "key does not match", "keys do not match", "x509_check_private_key"}

// tlsLoadWords are the words of a certificate or key file that cannot be loaded.
var tlsLoadWords = []string{"ssl_ctx_use", "pem_read", "no pem", "pem data", "pem routines", "unable to load certificate", "cannot load certificate", "failed to load certificate",
	"unable to load private key", "cannot load certificate key", "failed to parse certificate", "failed to parse private key", "bad certificate file", "x509"}

// tlsMaterial reports the Secret or ConfigMap behind a TLS file the container fails to load.
func (pc *podCheck) tlsMaterial(ctx context.Context, d *depCheck) bool {
	low := strings.ToLower(d.clue.Line)
	mismatch := false
	for _, w := range tlsMismatch {
		mismatch = mismatch || strings.Contains(low, w)
	}
	loading := mismatch
	for _, w := range tlsLoadWords {
		loading = loading || strings.Contains(low, w)
	}
	if !loading {
		return false
	}
	e := pc.e
	for i, p := range d.clue.Paths {
		if i >= 3 {
			break
		}
		m, vol := mountFor(d.spec, pc.pod, p)
		if m == nil {
			continue
		}
		var ref ObjectRef
		var certs string
		switch {
		case vol.Secret != nil:
			ref = e.ref("Secret", vol.Secret.SecretName)
			if s, err := getAs[*corev1.Secret](ctx, e, "Secret", vol.Secret.SecretName); err == nil {
				certs = certSubjects(s.Data)
			}
		case vol.ConfigMap != nil:
			ref = e.ref("ConfigMap", vol.ConfigMap.Name)
		default:
			continue
		}
		file := path.Base(p)
		if m.SubPath != "" {
			file = path.Base(m.SubPath)
		}
		wl := e.workloadOf(ctx, pc.pod)
		what := fmt.Sprintf("the TLS file %s it reads from %s %s (mounted at %s) cannot be loaded", file, ref.Kind, ref.Name, m.MountPath)
		fix := fmt.Sprintf("Put a valid certificate and key in %s %s", ref.Kind, ref.Name)
		if mismatch {
			what = fmt.Sprintf("the private key and the certificate it reads from %s %s (mounted at %s, file %s) do not belong together: the key and certificate are a mismatch, not issued as one pair", ref.Kind, ref.Name, m.MountPath, file)
			fix = fmt.Sprintf("Write the key and the certificate of one pair into %s %s (re-issue the certificate, or restore the key it was issued for)", ref.Kind, ref.Name)
		}
		if certs != "" {
			what += "; its certificate: " + certs
		}
		e.examine(ref)
		d.evIDs = append(d.evIDs, e.objEvidence(ref, fmt.Sprintf("%s %s mounted at %s of container %s", ref.Kind, ref.Name, m.MountPath, d.spec.Name)))
		facts := map[string]string{"secret": ref.Name, "sourceResource": kubectlResource(ref), "path": p}
		d.report(ctx, "tls-material-invalid", 0, ref, fmt.Sprintf("%s: %s. %s, then restart %s %s.", d.opening(), what, fix, wl.Kind, wl.Name), nil, []ObjectRef{ref}, facts)
		return true
	}
	return false
}

// certSubjects describes the certificates of a Secret's .crt/.pem keys by subject and end date.
func certSubjects(data map[string][]byte) string {
	var out []string
	for _, k := range sortedKeys(data) {
		if !strings.HasSuffix(k, ".crt") && !strings.HasSuffix(k, ".pem") {
			continue
		}
		for _, c := range parseCerts(data[k]) {
			if len(out) < 2 {
				out = append(out, fmt.Sprintf("%s CN=%s, valid until %s", k, clipString(c.Subject.CommonName, 100), c.NotAfter.UTC().Format("2006-01-02")))
			}
		}
	}
	return strings.Join(out, "; ")
}
