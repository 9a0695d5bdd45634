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

package main

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/controllers"
	"github.com/kubage/kubage/internal/notify"
)

func init() {
	registerCommand(newManagerCommand)
}

// The client-side rate limit of the operator and of task Jobs. controller-runtime's default
// (20/s, burst 30) is below one target-less session's reads (20 to 60 requests at once) and is
// shared with the informers of every namespace under investigation (a list and a watch per kind
// each, renewed every few minutes), so sessions queued on it; these are Flux's controller defaults.
const (
	defaultKubeAPIQPS   = 50
	defaultKubeAPIBurst = 300
)

// managerOptions are the flags of `kubage manager`.
type managerOptions struct {
	metricsAddr             string
	probeAddr               string
	leaderElect             bool
	leaderElectionNamespace string
	leaseDuration           time.Duration
	renewDeadline           time.Duration
	retryPeriod             time.Duration
	watchLabelSelector      string
	maxConcurrentReconciles int
	kubeAPIQPS              float32
	kubeAPIBurst            int
	defaultTaskRunner       string
	agentImage              string
	agentServiceAccount     string
	defaultModelSecret      string
	secretPollInterval      time.Duration
	secretsNeedSA           bool
	approvalWebhook         bool
	webhookPort             int
	webhookCertDir          string
	memoryEntries           int
	memoryRetention         time.Duration
	notifyRetry             time.Duration
	egress                  egressOptions
	alerts                  alertOptions
	agentAPI                agentAPIOptions
	knowledge               knowledgeOptions
	tracing                 tracingOptions
}

// newManagerCommand returns `kubage manager`, which runs the operator.
func newManagerCommand() *cobra.Command {
	o := managerOptions{}
	cmd := &cobra.Command{
		Use:   "manager",
		Short: "Run the operator: reconcile Troubleshoot, KnowledgeSource and ToolServer objects",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runManager(o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.metricsAddr, "metrics-bind-address", ":8080", "Address the Prometheus metrics endpoint binds to; \"0\" disables it.")
	f.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "Address the /healthz and /readyz probes bind to.")
	f.BoolVar(&o.leaderElect, "leader-elect", false, "Elect a leader so that only one replica reconciles at a time.")
	f.StringVar(&o.leaderElectionNamespace, "leader-election-namespace", "", "Namespace of the leader-election Lease; defaults to the Pod's namespace.")
	f.DurationVar(&o.leaseDuration, "leader-elect-lease-duration", 15*time.Second, "How long a replica waits after the leader's last renewal before taking the lead.")
	f.DurationVar(&o.renewDeadline, "leader-elect-renew-deadline", 10*time.Second, "How long the leader keeps retrying a renewal before it gives up the lead (and exits).")
	f.DurationVar(&o.retryPeriod, "leader-elect-retry-period", 2*time.Second, "How often replicas try to acquire or renew the lead.")
	f.StringVar(&o.watchLabelSelector, "watch-label-selector", "", "Reconcile only the Troubleshoots, KnowledgeSources and ToolServers whose labels match, e.g. \"sharding.kubage.io/key=shard1\" for a shard and \"!sharding.kubage.io/key\" for the main operator; empty reconciles all.")
	f.IntVar(&o.maxConcurrentReconciles, "max-concurrent-reconciles", 8, "How many objects of one kind reconcile at once (sessions spend most of a reconcile waiting for the API server).")
	f.Float32Var(&o.kubeAPIQPS, "kube-api-qps", defaultKubeAPIQPS, "Sustained requests per second to the API server from this process (client side; the server's priority and fairness still applies).")
	f.IntVar(&o.kubeAPIBurst, "kube-api-burst", defaultKubeAPIBurst, "Requests allowed at once above --kube-api-qps: an in-process session reads 20 to 60 objects in its first second, and each namespace's informers start with a list and a watch.")
	f.StringVar(&o.defaultTaskRunner, "default-task-runner", string(kubagev1alpha1.TaskRunnerInProcess), "Task runner of sessions without spec.taskRunner: InProcess or Job.")
	f.StringVar(&o.agentImage, "agent-image", "", "Image of the task Jobs (kubage agent task); the Job runner is available only when set.")
	f.StringVar(&o.agentServiceAccount, "agent-service-account", "kubage-agent", "Read-only ServiceAccount the task Jobs run as.")
	f.StringVar(&o.defaultModelSecret, "default-model-secret", "", "Model Secret <namespace>/<name> (keys baseURL, model, apiKey) of sessions without spec.model; without it such sessions use the rule engine alone.")
	f.DurationVar(&o.secretPollInterval, "secret-poll-interval", 30*time.Second, "How often Secrets referenced by ToolServers and KnowledgeSources are re-read to notice rotation (the operator may not watch Secrets).")
	f.BoolVar(&o.secretsNeedSA, "secrets-need-service-account", false, "Read the Secrets a ToolServer, KnowledgeSource, NotificationSink or Troubleshoot (spec.model) refers to only as the ServiceAccount it names (spec.serviceAccountName), refusing those that name none: whoever may create the object can then send only what that account may read. Off keeps single-team behaviour: the operator reads them itself.")
	f.BoolVar(&o.approvalWebhook, "approval-webhook", false, "Serve the admission webhook that admits a decision in spec.approvals only when a SubjectAccessReview says its author may approve troubleshoots and perform the action, and records the author; sessions then run no action whose decision lacks one. Needs config/webhook installed and a serving certificate.")
	f.IntVar(&o.webhookPort, "webhook-port", 9443, "Port the admission webhook server listens on (TLS).")
	f.StringVar(&o.webhookCertDir, "webhook-cert-dir", "/tmp/k8s-webhook-server/serving-certs", "Directory holding the webhook server's tls.crt and tls.key (re-read when they change).")
	f.IntVar(&o.memoryEntries, "incident-memory-entries", 50, "Concluded sessions remembered per namespace (in the ConfigMap kubage-incident-memory) for later sessions to cite as seen before; 0 turns the memory off.")
	f.DurationVar(&o.notifyRetry, "notify-retry-base", notify.DefaultBackoff.Base, "Wait after a failed notification before the next attempt; it doubles per attempt up to 10m, and a message is given up after 8 attempts.")
	f.DurationVar(&o.memoryRetention, "incident-memory-retention", 30*24*time.Hour, "How long a remembered incident is kept before it is dropped.")
	o.egress.bindFlags(f)
	o.alerts.bindFlags(f)
	o.agentAPI.bindFlags(f)
	o.knowledge.bindFlags(f)
	o.tracing.bindFlags(f)
	return cmd
}

// runManager starts the operator and blocks until SIGTERM or SIGINT.
func runManager(o managerOptions) error {
	if o.kubeAPIQPS <= 0 || o.kubeAPIBurst < 1 {
		return fmt.Errorf("--kube-api-qps must be above 0 and --kube-api-burst at least 1 (got %v and %d)", o.kubeAPIQPS, o.kubeAPIBurst)
	}
	log := ctrl.Log.WithName("manager")

	scheme, err := newScheme()
	if err != nil {
		return fmt.Errorf("building scheme: %w", err)
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = o.kubeAPIQPS, o.kubeAPIBurst
	watch, err := controllers.ParseWatchSelector(o.watchLabelSelector)
	if err != nil {
		return err
	}
	var webhookServer webhook.Server
	if o.approvalWebhook {
		webhookServer = webhook.NewServer(webhook.Options{Port: o.webhookPort, CertDir: o.webhookCertDir})
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		WebhookServer:                 webhookServer,
		Scheme:                        scheme,
		Metrics:                       metricsserver.Options{BindAddress: o.metricsAddr},
		HealthProbeBindAddress:        o.probeAddr,
		LeaderElection:                o.leaderElect,
		LeaderElectionID:              "manager.kubage.io",
		LeaderElectionNamespace:       o.leaderElectionNamespace,
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &o.leaseDuration,
		RenewDeadline:                 &o.renewDeadline,
		RetryPeriod:                   &o.retryPeriod,
		// A shard caches only its own objects of the three kinds.
		Cache: cache.Options{ByObject: controllers.WatchCacheOptions(watch)},
		Client: client.Options{
			// RBAC grants get on Secrets, not list/watch: read them directly, never cache them.
			Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}}},
		},
	})
	if err != nil {
		return fmt.Errorf("creating manager: %w", err)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return fmt.Errorf("adding health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return fmt.Errorf("adding ready check: %w", err)
	}
	if webhookServer != nil {
		// Not ready until the webhook serves: the API server refuses approvals meanwhile.
		if err := mgr.AddReadyzCheck("webhook", webhookServer.StartedChecker()); err != nil {
			return fmt.Errorf("adding webhook ready check: %w", err)
		}
	}
	def := kubagev1alpha1.TaskRunner(o.defaultTaskRunner)
	if def != kubagev1alpha1.TaskRunnerInProcess && def != kubagev1alpha1.TaskRunnerJob {
		return fmt.Errorf("--default-task-runner must be InProcess or Job, not %q", o.defaultTaskRunner)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("building a clientset: %w", err)
	}
	if _, err := o.egress.install(cfg); err != nil {
		return err
	}
	ctx := ctrl.SetupSignalHandler()
	stopTracing, err := o.tracing.install(ctx, "kubage-manager")
	if err != nil {
		return err
	}
	defer func() { _ = stopTracing(context.WithoutCancel(ctx)) }()
	agentEnv := o.egress.env()
	maps.Copy(agentEnv, o.tracing.env())
	runners, err := buildTaskRunners(taskRunnerConfig{Clientset: cs, AgentImage: o.agentImage, AgentServiceAccount: o.agentServiceAccount,
		KnowledgeURL: o.agentAPI.url, AgentEnv: agentEnv})
	if err != nil {
		return err
	}
	if err := checkDefaultTaskRunner(def, runners); err != nil {
		return err
	}
	defaultModel, err := parseModelSecret(o.defaultModelSecret)
	if err != nil {
		return err
	}
	// One knowledge service: the KnowledgeSources index into it, sessions and agents search it.
	// Restored before anything starts: queries are answered before any source is fetched.
	know, err := o.knowledge.service(ctx)
	if err != nil {
		return err
	}
	memoryEntries := o.memoryEntries
	if memoryEntries == 0 {
		memoryEntries = -1 // the flag's 0 means off; the option's 0 means the default
	}
	if err := controllers.SetupAll(mgr, controllers.Options{
		Knowledge:                 know,
		DefaultModelSecret:        defaultModel,
		SecretPollInterval:        o.secretPollInterval,
		SecretsNeedServiceAccount: o.secretsNeedSA,
		ApprovalWebhook:           o.approvalWebhook,
		MaxConcurrentReconciles:   o.maxConcurrentReconciles,
		TaskRunners:               runners,
		DefaultTaskRunner:         def,
		Clientset:                 cs,
		WatchSelector:             watch,
		IncidentMemoryEntries:     memoryEntries,
		NotifyBackoff:             notify.Backoff{Base: max(o.notifyRetry, 100*time.Millisecond), Max: notify.DefaultBackoff.Max, Attempts: notify.DefaultBackoff.Attempts},
		IncidentMemoryRetention:   o.memoryRetention,
	}); err != nil {
		return err
	}
	if err := o.alerts.setup(context.Background(), mgr); err != nil {
		return err
	}
	if err := o.agentAPI.setup(mgr, cs, know, o.agentServiceAccount); err != nil {
		return err
	}

	log.Info("Starting manager", "metrics", o.metricsAddr, "probes", o.probeAddr, "leaderElection", o.leaderElect, "watchLabelSelector", watch.String())
	return mgr.Start(ctx)
}

// parseModelSecret reads --default-model-secret: empty, or <namespace>/<name>.
func parseModelSecret(v string) (types.NamespacedName, error) {
	if v == "" {
		return types.NamespacedName{}, nil
	}
	ns, name, ok := strings.Cut(v, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return types.NamespacedName{}, fmt.Errorf("--default-model-secret must be <namespace>/<name>, not %q", v)
	}
	return types.NamespacedName{Namespace: ns, Name: name}, nil
}
