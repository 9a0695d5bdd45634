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

// Package e2e runs end-to-end specs against the local control plane of hack/cluster.sh:
// real kube-apiserver, controller-manager and scheduler, with kwok simulating the kubelets.
// The suite starts its own cluster in a temporary directory (or uses KUBAGE_E2E_KUBECONFIG)
// and stops it afterwards.
package e2e

import (
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/kubernetes"

	"github.com/kubage/kubage/test/testcluster"
)

var (
	cluster *testcluster.Cluster
	clients kubernetes.Interface
)

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "KubAge e2e suite")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	By("starting the local cluster")
	start := time.Now()
	var err error
	cluster, err = testcluster.Start(ctx, testcluster.Options{Output: GinkgoWriter})
	Expect(err).NotTo(HaveOccurred())
	GinkgoWriter.Printf("local cluster ready in %s (dir %q)\n", time.Since(start).Round(time.Millisecond), cluster.Dir)

	clients, err = kubernetes.NewForConfig(cluster.RESTConfig)
	Expect(err).NotTo(HaveOccurred())
}, NodeTimeout(3*time.Minute))

var _ = AfterSuite(func(ctx SpecContext) {
	if cluster == nil {
		return
	}
	if os.Getenv("KUBAGE_E2E_KEEP") != "" && cluster.Dir != "" {
		GinkgoWriter.Printf("KUBAGE_E2E_KEEP is set: leaving the cluster running, KUBECONFIG=%s\n", cluster.Kubeconfig)
		return
	}
	By("stopping the local cluster")
	Expect(cluster.Stop(ctx)).To(Succeed())
	Expect(cluster.Processes()).To(BeEmpty(), "no control-plane process of the suite may survive")
}, NodeTimeout(2*time.Minute))

// dumpOnFailure prints the kwok log tail when a spec fails, since most failures here are
// stage problems.
var _ = ReportAfterEach(func(report SpecReport) {
	if report.Failed() && cluster != nil {
		GinkgoWriter.Printf("--- kwok log tail ---\n%s\n", cluster.LogTail("kwok", 40))
	}
})

func init() {
	SetDefaultEventuallyTimeout(45 * time.Second)
	SetDefaultEventuallyPollingInterval(250 * time.Millisecond)
}
