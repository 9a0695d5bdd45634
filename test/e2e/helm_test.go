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
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/test/testcluster"
)

// EnvHelm names the helm binary of the Helm specs; <repo>/bin/helm when unset (make helm).
const EnvHelm = "KUBAGE_HELM"

// The Helm chart installed the way a platform team installs it: `helm install` of charts/kubage,
// the manager running in-cluster as the chart's Deployment. The kubelet harness runs its pod as a
// local process whose only credential is a token of the pod's ServiceAccount, the chart's, so
// every API call of the operator (and, through it, of its task Jobs) passes the chart's RBAC.
var _ = Describe("Helm chart", Ordered, func() {
	const release = "kubage"
	var (
		root    string
		helmBin string
		// helmHome holds helm's caches and config, away from the user's.
		helmHome string
	)

	BeforeAll(func(ctx SpecContext) {
		setupKubage(ctx)
		var err error
		root, err = testcluster.FindRepoRoot()
		Expect(err).NotTo(HaveOccurred())
		helmBin = os.Getenv(EnvHelm)
		if helmBin == "" {
			helmBin = filepath.Join(root, "bin", "helm")
		}
		_, err = os.Stat(helmBin)
		Expect(err).NotTo(HaveOccurred(), "no helm at %s: run make helm (or set %s)", helmBin, EnvHelm)
		helmHome = GinkgoT().TempDir()
	})

	It("installs the operator, which finds a root cause under the chart's own ServiceAccount and RBAC", func(ctx SpecContext) {
		start := time.Now()
		releaseNS := newNamespace(ctx)
		// The manager binds to host ports here (the harness runs it as a local process).
		probes, metrics, agentAPI, alertsPort := freePort(), freePort(), freePort(), freePort()
		const alertToken = "e2e-alerts-token-5d0c9a7e"
		// The chart's image is the one the harness runs (for the manager and the task Jobs alike).
		repository, tag, _ := strings.Cut(agentImage, ":")
		values := filepath.Join(GinkgoT().TempDir(), "values.yaml")
		Expect(os.WriteFile(values, fmt.Appendf(nil, `
image: {repository: %s, tag: %s}
manager:
  healthProbePort: %d
metrics: {port: %d}
agentAPI:
  port: %d
  url: http://127.0.0.1:%d
# The suite's stand-in servers (the agent API here) listen on loopback, denied by default.
egress: {allowCIDRs: ["127.0.0.0/8"]}
alerts:
  enabled: true
  port: %d
  token: {value: %s}
`, repository, tag, probes, metrics, agentAPI, agentAPI, alertsPort, alertToken), 0o600)).To(Succeed())

		By("handing the agent ClusterRoles over to the chart, and back to the suite afterwards")
		for _, name := range []string{"kubage-agent", "kubage-agent-result", "kubage-agent-cluster"} {
			err := clients.RbacV1().ClusterRoles().Delete(ctx, name, metav1.DeleteOptions{})
			Expect(err == nil || apierrors.IsNotFound(err)).To(BeTrue(), "deleting ClusterRole %s: %v", name, err)
		}
		DeferCleanup(func(ctx SpecContext) { Expect(installAgentRoles(ctx, root)).To(Succeed()) })

		workDir := GinkgoT().TempDir()
		kubelet, err := testcluster.StartKubelet(ctx, testcluster.KubeletOptions{
			Client: clients, RESTConfig: cluster.RESTConfig, Binary: kubageBin,
			Selector: testcluster.KubagePodsSelector, WorkDir: workDir, Log: GinkgoWriter,
		})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() {
			Expect(kubelet.Stop()).To(Succeed())
			Expect(kubelet.Active()).To(BeZero(), "the harness may leave no process behind")
		})

		By("helm install")
		DeferCleanup(func(ctx SpecContext) {
			// Idempotent: the spec uninstalls itself; this covers a failure before that.
			_, _ = helm(ctx, helmBin, helmHome, "uninstall", release, "--namespace", releaseNS, "--ignore-not-found", "--wait", "--timeout", "60s")
		})
		out, err := helm(ctx, helmBin, helmHome, "install", release, filepath.Join(root, "charts", "kubage"),
			"--namespace", releaseNS, "--values", values, "--wait", "--timeout", "60s")
		Expect(err).NotTo(HaveOccurred(), out)
		GinkgoWriter.Printf("helm install → Deployment available in %s\n", time.Since(start).Round(time.Millisecond))

		By("checking the manager runs as the chart's ServiceAccount")
		pods, err := clients.CoreV1().Pods(releaseNS).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/component=manager"})
		Expect(err).NotTo(HaveOccurred())
		Expect(pods.Items).To(HaveLen(1))
		pod := pods.Items[0]
		Expect(pod.Spec.ServiceAccountName).To(Equal(release + "-manager"))
		Expect(pod.Status.Phase).To(Equal(corev1.PodRunning))
		Expect(pod.Status.ContainerStatuses[0].ContainerID).To(HavePrefix("harness://"), "run by the kubelet harness, not simulated by kwok")
		// The process's kubeconfig holds the pod's ServiceAccount token and nothing else.
		podConfig, err := clientcmd.BuildConfigFromFlags("", filepath.Join(workDir, string(pod.UID), "kubeconfig"))
		Expect(err).NotTo(HaveOccurred())
		Expect(podConfig.CertData).To(BeEmpty())
		Expect(podConfig.CertFile).To(BeEmpty())
		podClient, err := kubernetes.NewForConfig(podConfig)
		Expect(err).NotTo(HaveOccurred())
		who, err := podClient.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		saUser := "system:serviceaccount:" + releaseNS + ":" + release + "-manager"
		Expect(who.Status.UserInfo.Username).To(Equal(saUser))
		Expect(who.Status.UserInfo.Groups).NotTo(ContainElement("system:masters"))

		By("running a Troubleshoot whose tasks run as Jobs the manager sets up")
		ns := newNamespace(ctx)
		brokenConfigApp(ctx, ns)
		ts := createTroubleshoot(ctx, ns, "api-down", func(ts *kubagev1alpha1.Troubleshoot) {
			ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "api"}
			ts.Spec.TaskRunner = kubagev1alpha1.TaskRunnerJob
		})
		ts = waitForTerminal(ctx, ts)
		expectConfigMapMissing(ctx, ts)
		for _, t := range ts.Status.Plan.Tasks {
			Expect(t.JobName).NotTo(BeEmpty(), "task %s names its Job", t.ID)
		}
		var ran int
		for _, run := range kubelet.Runs() {
			if run.Namespace == ns {
				ran++
				Expect(run.Reason).To(Equal("Completed"), "pod %s output:\n%s", run.Name, run.Output)
			}
		}
		Expect(ran).To(BeNumerically(">", 0), "the task Jobs' pods ran")
		expectNothingLeftRunning(ctx, ns)

		By("posting an Alertmanager alert to the chart's receiver, whose token is the chart's Secret")
		alertURL := fmt.Sprintf("http://127.0.0.1:%d/alerts/alertmanager", alertsPort)
		payload := fmt.Sprintf(`{"version":"4","status":"firing","receiver":"kubage","alerts":[{"status":"firing",
 "labels":{"alertname":"KubeDeploymentReplicasMismatch","namespace":%q,"deployment":"api","severity":"warning"},
 "annotations":{"summary":"Deployment api has no available replica"},
 "startsAt":%q,"fingerprint":"5e2e0a11c0ffee01"}]}`, ns, time.Now().UTC().Format(time.RFC3339))
		Eventually(func() int { return postAlertWithToken(ctx, alertURL, "not-the-token", payload) }).WithContext(ctx).Should(Equal(http.StatusUnauthorized))
		Expect(postAlertWithToken(ctx, alertURL, alertToken, payload)).To(Equal(http.StatusOK))
		var fromAlert *kubagev1alpha1.Troubleshoot
		Eventually(func(g Gomega) {
			var list kubagev1alpha1.TroubleshootList
			g.Expect(kube.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
			for i := range list.Items {
				if list.Items[i].Spec.Alert != nil {
					fromAlert = &list.Items[i]
				}
			}
			g.Expect(fromAlert).NotTo(BeNil(), "a Troubleshoot opened for the alert")
		}).WithContext(ctx).Should(Succeed())
		fromAlert = waitForTerminal(ctx, fromAlert)
		expectConfigMapMissing(ctx, fromAlert)

		By("checking leader election, metrics and the limits of the chart's RBAC")
		lease, err := clients.CoordinationV1().Leases(releaseNS).Get(ctx, "manager.kubage.io", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred(), "the Lease lives in the release namespace")
		Expect(lease.Spec.HolderIdentity).NotTo(BeNil())
		Expect(*lease.Spec.HolderIdentity).NotTo(BeEmpty())
		scrape := scrapeMetrics(ctx, metrics)
		Expect(scrape).To(ContainSubstring(`kubage_troubleshoot_sessions_finished_total{phase="Completed"`))
		Expect(scrape).To(ContainSubstring(`kubage_troubleshoot_tasks_total{outcome="Succeeded",runner="Job"}`))
		Expect(scrape).To(ContainSubstring(`kubage_alerts_sessions_created_total 1`))
		Expect(scrape).To(ContainSubstring(`kubage_alerts_rejected_total{reason="Unauthorized"}`))
		Expect(can(ctx, saUser, releaseNS, "create", "batch", "jobs", ns, "")).To(BeTrue())
		Expect(can(ctx, saUser, releaseNS, "bind", "rbac.authorization.k8s.io", "clusterroles", "", "kubage-agent")).To(BeTrue())
		Expect(can(ctx, saUser, releaseNS, "bind", "rbac.authorization.k8s.io", "clusterroles", "", "cluster-admin")).To(BeFalse())
		Expect(can(ctx, saUser, releaseNS, "create", "rbac.authorization.k8s.io", "clusterroles", "", "")).To(BeFalse())
		Expect(can(ctx, saUser, releaseNS, "list", "", "secrets", ns, "")).To(BeFalse(), "Secrets are read by name, never listed")
		Expect(can(ctx, saUser, releaseNS, "create", "coordination.k8s.io", "leases", ns, "")).To(BeFalse(), "Leases only in the release namespace")

		By("helm uninstall: the manager process stops, the chart's cluster objects go")
		out, err = helm(ctx, helmBin, helmHome, "uninstall", release, "--namespace", releaseNS, "--wait", "--timeout", "60s")
		Expect(err).NotTo(HaveOccurred(), out)
		Eventually(kubelet.Active).WithContext(ctx).Should(BeZero())
		_, err = clients.RbacV1().ClusterRoles().Get(ctx, release+"-manager", metav1.GetOptions{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "ClusterRole %s-manager: %v", release, err)
		GinkgoWriter.Printf("helm install → root cause → helm uninstall in %s\n", time.Since(start).Round(time.Millisecond))
	})
})

// helm runs the helm binary against the suite's cluster, with its caches and config in home.
func helm(ctx context.Context, bin, home string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+cluster.Kubeconfig,
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"), "HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	GinkgoWriter.Printf("$ helm %s\n%s", strings.Join(args, " "), out.String())
	if err != nil {
		return out.String(), fmt.Errorf("helm %s: %w", strings.Join(args, " "), err)
	}
	return out.String(), nil
}

// freePort returns a loopback port that was free a moment ago.
func freePort() int {
	GinkgoHelper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = ln.Close() }()
	return ln.Addr().(*net.TCPAddr).Port
}

// scrapeMetrics reads the manager's Prometheus endpoint.
func scrapeMetrics(ctx context.Context, port int) string {
	GinkgoHelper()
	var body string
	Eventually(func(g Gomega) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/metrics", port), nil)
		g.Expect(err).NotTo(HaveOccurred())
		resp, err := http.DefaultClient.Do(req)
		g.Expect(err).NotTo(HaveOccurred())
		defer func() { _ = resp.Body.Close() }()
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
		raw, err := io.ReadAll(resp.Body)
		g.Expect(err).NotTo(HaveOccurred())
		body = string(raw)
	}).WithContext(ctx).Should(Succeed())
	return body
}

// postAlertWithToken posts an Alertmanager payload with a bearer token and returns the status code
// (0 when the receiver cannot be reached yet).
func postAlertWithToken(ctx context.Context, url, token, payload string) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(payload))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	GinkgoWriter.Printf("POST %s: %d %s\n", url, resp.StatusCode, body)
	return resp.StatusCode
}

// can asks the API server whether the ServiceAccount user of namespace saNS may do verb.
func can(ctx context.Context, user, saNS, verb, group, resource, inNamespace, name string) bool {
	GinkgoHelper()
	sar, err := clients.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{
			User:   user,
			Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + saNS, "system:authenticated"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: inNamespace, Verb: verb, Group: group, Resource: resource, Name: name,
			},
		},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return sar.Status.Allowed
}
