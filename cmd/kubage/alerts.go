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
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/alerts"
)

// alertOptions are the `kubage manager` flags of the Alertmanager receiver. The receiver
// is off unless --alerts-bind-address is set, and then needs a token source.
type alertOptions struct {
	bindAddress      string
	tokenSecret      string
	tokenFile        string
	certFile         string
	keyFile          string
	policyConfigMap  string
	defaultNamespace string
	namespaceLabels  []string
	matchers         []string
	shards           []string
	mode             string
	taskRunner       string
	model            string
	cooldown         time.Duration
	journalDir       string
	workers          int
	maxBodyBytes     int64
	maxAlerts        int
	rateLimit        float64
	rateBurst        int
}

// bindFlags registers the receiver's flags on the manager command.
func (o *alertOptions) bindFlags(f *pflag.FlagSet) {
	f.StringVar(&o.bindAddress, "alerts-bind-address", "0", "Address the Alertmanager webhook receiver (POST "+alerts.Path+") binds to, e.g. \":9443\"; \"0\" disables it.")
	f.StringVar(&o.tokenSecret, "alerts-token-secret", "", "Secret <namespace>/<name> whose key \"token\" is the bearer token senders must present (re-read every 30s).")
	f.StringVar(&o.tokenFile, "alerts-token-file", "", "File holding the bearer token, e.g. a mounted Secret; instead of --alerts-token-secret.")
	f.StringVar(&o.certFile, "alerts-tls-cert-file", "", "TLS certificate of the receiver (with --alerts-tls-key-file); reloaded when it changes.")
	f.StringVar(&o.keyFile, "alerts-tls-key-file", "", "TLS private key of the receiver.")
	f.StringVar(&o.policyConfigMap, "alerts-policy-configmap", "", "ConfigMap <namespace>/<name> whose key \"policy.yaml\" overrides the policy flags (re-read every 10s).")
	f.StringVar(&o.defaultNamespace, "alerts-default-namespace", "", "Namespace of sessions for alerts without a namespace label; empty rejects such alerts.")
	f.StringSliceVar(&o.namespaceLabels, "alerts-namespace-labels", []string{"namespace"}, "Labels naming an alert's namespace, tried in order.")
	f.StringSliceVar(&o.matchers, "alerts-matchers", nil, "Label matchers (=, !=, =~, !~) an alert must all match to be investigated; default excludes Watchdog and InfoInhibitor.")
	f.StringArrayVar(&o.shards, "alerts-shard", nil, "Shard rule KEY:MATCHER, repeatable and tried in order: sessions for alerts matching MATCHER (e.g. 'blue:namespace=~\"blue-.*\"') get the label "+kubagev1alpha1.ShardingKeyLabel+"=KEY; alerts no rule matches get no label.")
	f.StringVar(&o.mode, "alerts-mode", string(kubagev1alpha1.ModeDiagnose), "Mode of sessions opened for alerts: Diagnose or Remediate.")
	f.StringVar(&o.taskRunner, "alerts-task-runner", "", "Task runner of sessions opened for alerts; empty means the operator default.")
	f.StringVar(&o.model, "alerts-model", "", "Model Secret name (in the session's namespace) of sessions opened for alerts; empty means the operator default.")
	f.DurationVar(&o.cooldown, "alerts-cooldown", 30*time.Minute, "After a session for an alert, new occurrences of the same alert within this time are skipped.")
	f.StringVar(&o.journalDir, "alerts-journal-dir", "", "Directory (on a volume that outlives the process) of the receiver's journal: new sessions are fsynced there and acknowledged, then created by workers, so a storm is not held back by the API server; empty creates each session before answering.")
	f.IntVar(&o.workers, "alerts-workers", alerts.DefaultIntakeWorkers, "Workers creating the sessions of the receiver's journal.")
	f.Int64Var(&o.maxBodyBytes, "alerts-max-body-bytes", alerts.DefaultMaxBodyBytes, "Largest request body accepted; larger ones get 413.")
	f.IntVar(&o.maxAlerts, "alerts-max-alerts", alerts.DefaultMaxAlerts, "Most alerts accepted in one payload.")
	f.Float64Var(&o.rateLimit, "alerts-rate-limit", 20, "Requests per second allowed per client address; 0 disables the limit.")
	f.IntVar(&o.rateBurst, "alerts-rate-burst", 100, "Burst of requests allowed per client address.")
}

// setup adds the receiver to the manager when it is enabled.
func (o *alertOptions) setup(ctx context.Context, mgr manager.Manager) error {
	if o.bindAddress == "" || o.bindAddress == "0" {
		return nil
	}
	base := alerts.DefaultPolicy()
	base.DefaultNamespace = o.defaultNamespace
	base.NamespaceLabels = o.namespaceLabels
	if len(o.matchers) > 0 {
		base.Matchers = o.matchers
	}
	for _, r := range o.shards {
		key, m, ok := strings.Cut(r, ":")
		if !ok {
			return fmt.Errorf("--alerts-shard must be KEY:MATCHER, not %q", r)
		}
		base.Shards = append(base.Shards, alerts.ShardRule{Key: key, Matchers: []string{m}})
	}
	base.Mode = kubagev1alpha1.Mode(o.mode)
	base.TaskRunner = kubagev1alpha1.TaskRunner(o.taskRunner)
	base.Model = o.model
	base.Cooldown = &metav1.Duration{Duration: o.cooldown}
	compiled, err := base.Compile()
	if err != nil {
		return fmt.Errorf("alert policy flags: %w", err)
	}

	var policy alerts.PolicySource
	if o.policyConfigMap != "" {
		key, err := namespacedName("--alerts-policy-configmap", o.policyConfigMap)
		if err != nil {
			return err
		}
		policy = &alerts.ConfigMapPolicy{Reader: mgr.GetAPIReader(), Key: key, Base: base, TTL: 10 * time.Second}
	} else {
		policy = alerts.StaticPolicy{P: compiled}
	}

	var token alerts.TokenSource
	switch {
	case o.tokenSecret != "" && o.tokenFile != "":
		return errors.New("set one of --alerts-token-secret and --alerts-token-file, not both")
	case o.tokenSecret != "":
		key, err := namespacedName("--alerts-token-secret", o.tokenSecret)
		if err != nil {
			return err
		}
		token = &alerts.SecretToken{Reader: mgr.GetAPIReader(), Key: key, TTL: 30 * time.Second}
	case o.tokenFile != "":
		token = &alerts.FileToken{Path: o.tokenFile, TTL: 30 * time.Second}
	default:
		return errors.New("the alert receiver needs --alerts-token-secret or --alerts-token-file")
	}

	// The cooldown is looked up among the sessions in the cluster, in a cache of their
	// metadata of its own: it holds every shard's alert sessions (a shard's manager cache
	// holds its own only), and the manager syncs it before the receiver serves.
	sessions, err := alerts.NewSessionCache(ctx, mgr.GetConfig(), mgr.GetScheme())
	if err != nil {
		return err
	}
	if err := mgr.Add(syncedCache{sessions}); err != nil {
		return err
	}
	popts := alerts.ProcessorOptions{Sessions: sessions, SessionsIndexed: true, Workers: o.workers}
	if o.journalDir != "" {
		if popts.Journal, err = alerts.OpenJournal(o.journalDir); err != nil {
			return err
		}
	}
	proc := alerts.NewProcessor(mgr.GetClient(), mgr.GetAPIReader(), policy, popts)
	if err := mgr.Add(proc); err != nil {
		return err
	}
	handler := alerts.NewHandler(proc, token, alerts.HandlerOptions{
		MaxBodyBytes: o.maxBodyBytes,
		MaxAlerts:    o.maxAlerts,
		RateLimiter:  alerts.NewRateLimiter(o.rateLimit, o.rateBurst),
	})
	return mgr.Add(alerts.NewServer(handler, alerts.ServerOptions{Address: o.bindAddress, CertFile: o.certFile, KeyFile: o.keyFile}))
}

// syncedCache makes the manager start a cache with its own and wait for it to sync
// before the runnables that read it, on every replica.
type syncedCache struct{ cache.Cache }

func (c syncedCache) GetCache() cache.Cache { return c.Cache }

// namespacedName parses a <namespace>/<name> flag value.
func namespacedName(flag, v string) (types.NamespacedName, error) {
	ns, name, ok := strings.Cut(v, "/")
	if !ok || len(validation.IsDNS1123Label(ns)) > 0 || len(validation.IsDNS1123Subdomain(name)) > 0 {
		return types.NamespacedName{}, fmt.Errorf("%s must be <namespace>/<name>, not %q", flag, v)
	}
	return types.NamespacedName{Namespace: ns, Name: name}, nil
}
