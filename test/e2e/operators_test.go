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

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubage/kubage/internal/alerts"
)

// Helpers of the specs that run several operators at once (HA, sharding): an alert
// receiver address and token, and what a manager's log says it did.

// e2eAlertToken is the bearer token of the receivers these specs start.
const e2eAlertToken = "e2e-alert-token-0123456789abcdef"

// receiverArgs returns the flags that start a manager's alert receiver on a free loopback
// port, and the receiver's URL.
func receiverArgs() ([]string, string) {
	GinkgoHelper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	addr := ln.Addr().String()
	Expect(ln.Close()).To(Succeed())
	token := filepath.Join(GinkgoT().TempDir(), "token")
	Expect(os.WriteFile(token, []byte(e2eAlertToken), 0o600)).To(Succeed())
	return []string{"--alerts-bind-address=" + addr, "--alerts-token-file=" + token, "--alerts-rate-limit=0"}, "http://" + addr + alerts.Path
}

// postAlert sends one firing alert in namespace ns to a receiver and returns its result.
func postAlert(ctx context.Context, url, ns, fingerprint string, startsAt time.Time, labels map[string]string) alerts.AlertResult {
	GinkgoHelper()
	l := map[string]string{"alertname": "E2EAlert", "namespace": ns}
	for k, v := range labels {
		l[k] = v
	}
	body, err := json.Marshal(alerts.Payload{Version: "4", Status: alerts.StatusFiring, Receiver: "kubage",
		Alerts: []alerts.Alert{{Status: alerts.StatusFiring, Labels: l, StartsAt: startsAt, Fingerprint: fingerprint}}})
	Expect(err).NotTo(HaveOccurred())
	var summary alerts.Summary
	// The receiver of a just-started manager may not listen yet.
	Eventually(func(g Gomega) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		g.Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+e2eAlertToken)
		res, err := http.DefaultClient.Do(req)
		g.Expect(err).NotTo(HaveOccurred())
		defer res.Body.Close()
		g.Expect(res.StatusCode).To(Equal(http.StatusOK))
		g.Expect(json.NewDecoder(res.Body).Decode(&summary)).To(Succeed())
	}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
	Expect(summary.Alerts).To(HaveLen(1))
	return summary.Alerts[0]
}

// Log returns the manager's whole log.
func (m *managerProcess) Log() string {
	raw, err := os.ReadFile(m.log)
	if err != nil {
		return ""
	}
	return string(raw)
}

// IsLeader says whether the manager's log records that it acquired the leader lease.
func (m *managerProcess) IsLeader() bool {
	return strings.Contains(strings.ToLower(m.Log()), "successfully acquired lease")
}

// Reconciled says whether the manager advanced the session ns/name: its log has a phase
// change of that Troubleshoot.
func (m *managerProcess) Reconciled(ns, name string) bool {
	needle := fmt.Sprintf(`"Troubleshoot":{"name":%q,"namespace":%q}`, name, ns)
	for _, line := range strings.Split(m.Log(), "\n") {
		if strings.Contains(line, `"msg":"Phase changed"`) && strings.Contains(line, needle) {
			return true
		}
	}
	return false
}
