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

package controllers_test

import (
	"context"
	"crypto/tls"
	"net"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/controllers"
	"github.com/kubage/kubage/internal/egress"
)

// The suite runs the three reconcilers against a real kube-apiserver and etcd (envtest)
// with the CRDs from config/crd/bases, so CRD validation is the API server's own.

var (
	repoRoot  string
	testEnv   *envtest.Environment
	cfg       *rest.Config
	k8sClient client.Client
	stopMgr   context.CancelFunc
	mgrDone   chan error
)

func TestControllers(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Controllers Suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	SetDefaultEventuallyTimeout(20 * time.Second)
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)

	var err error
	repoRoot, err = filepath.Abs("..")
	Expect(err).NotTo(HaveOccurred())

	testEnv = &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(repoRoot, "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		// KUBEBUILDER_ASSETS (exported by the Makefile) wins over this fallback, which lets
		// `go test ./controllers/...` work from a checkout with the pinned binaries built.
		BinaryAssetsDirectory: filepath.Join(repoRoot, "bin", "k8s"),
		// The approval webhook, served by the suite's manager over TLS with envtest's certificate.
		WebhookInstallOptions: envtest.WebhookInstallOptions{Paths: []string{filepath.Join(repoRoot, "config", "webhook", "manifests.yaml")}},
	}
	cfg, err = testEnv.Start()
	Expect(err).NotTo(HaveOccurred())

	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(kubagev1alpha1.AddToScheme(scheme)).To(Succeed())

	k8sClient, err = client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())

	// Test servers listen on 127.0.0.1, which the egress guard allows here explicitly; the
	// default denies stay in force for every other loopback address (egress_test.go aims at
	// a "metadata" server on 127.0.0.2). The resolver gives test names their addresses.
	policy, err := egress.NewPolicy(egress.Options{AllowCIDRs: []string{"127.0.0.1/32"}, Resolver: egressTestResolver})
	Expect(err).NotTo(HaveOccurred())
	egress.SetDefault(policy)

	wh := &testEnv.WebhookInstallOptions
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		WebhookServer:          webhook.NewServer(webhook.Options{Host: wh.LocalServingHost, Port: wh.LocalServingPort, CertDir: wh.LocalServingCertDir}),
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// As in production: Secrets are read by name, never listed, watched or cached.
		Client: client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}}}},
	})
	Expect(err).NotTo(HaveOccurred())
	// The suite's manager is the main shard; specs that start their own managers label
	// their sessions with a shard of their own.
	mainShard, err := controllers.ParseWatchSelector("!" + kubagev1alpha1.ShardingKeyLabel)
	Expect(err).NotTo(HaveOccurred())
	Expect(controllers.SetupAll(mgr, controllers.Options{MaxConcurrentReconciles: 2, Knowledge: knowledgeService,
		SecretPollInterval: 300 * time.Millisecond, WatchSelector: mainShard, ApprovalWebhook: true})).To(Succeed())

	var ctx context.Context
	ctx, stopMgr = context.WithCancel(context.Background())
	mgrDone = make(chan error, 1)
	go func() {
		defer GinkgoRecover()
		mgrDone <- mgr.Start(ctx)
	}()
	// Every Troubleshoot write passes the webhooks (failurePolicy Fail): wait until they serve.
	Eventually(func() error {
		conn, err := tls.Dial("tcp", net.JoinHostPort(wh.LocalServingHost, strconv.Itoa(wh.LocalServingPort)), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // only probing that it listens
		if err != nil {
			return err
		}
		return conn.Close()
	}).Should(Succeed())
})

var _ = AfterSuite(func() {
	if stopMgr != nil {
		stopMgr()
		Eventually(mgrDone).Should(Receive(BeNil()))
	}
	if testEnv != nil {
		Expect(testEnv.Stop()).To(Succeed())
	}
})
