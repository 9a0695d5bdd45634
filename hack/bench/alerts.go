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
	"os"
	"path/filepath"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/yaml"

	"github.com/go-logr/logr"

	"github.com/kubage/kubage/internal/alerts"
	"github.com/kubage/kubage/test/testcluster"
)

func init() {
	sections = append(sections, section{name: "alerts", needsCluster: true, run: alertsBench})
	// controller-runtime clients in measured code log through this; stderr carries progress only.
	ctrllog.SetLogger(logr.Discard())
}

// alertFingerprints are the distinct-alert counts of issue 8's storm table (5000 alerts each).
var alertFingerprints = []int{50, 200, 1000, 5000}

type alertsReport struct {
	Procedure string               `json:"procedure"`
	Runs      []alerts.BenchResult `json:"runs"`
}

// alertsBench sends 5000-alert storms with more and more distinct fingerprints to a receiver in
// this process writing to the local cluster: requests/s, latency and API writes per alert.
func alertsBench(ctx context.Context, env *Env) (any, error) {
	if err := installCRDs(ctx, env.Cluster.RESTConfig); err != nil {
		return nil, err
	}
	rep := &alertsReport{Procedure: "alerts.BenchIntake: 5000 firing alerts from 20 concurrent senders to a loopback receiver (default policy) writing Troubleshoots to the local cluster; one run per fingerprint count; the run's namespace is deleted afterwards"}
	cfg := rest.CopyConfig(env.Cluster.RESTConfig)
	cfg.QPS = engineQPS
	for _, n := range alertFingerprints {
		// Deleting a namespace of thousands of sessions keeps the API server busy for a
		// while: measure the storm, not the clean-up of the previous run or section.
		if err := waitNoTerminatingNamespace(ctx, env, 3*time.Minute); err != nil {
			env.Log.Printf("alerts: a namespace is still being deleted (%v); measuring anyway", err)
		}
		env.Log.Printf("alerts: storm with %d fingerprints", n)
		runCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		res, err := alerts.BenchIntake(runCtx, cfg, alerts.StormOptions{Alerts: 5000, Fingerprints: n, Clients: 20})
		cancel()
		if err != nil {
			return rep, fmt.Errorf("storm with %d fingerprints: %w", n, err)
		}
		rep.Runs = append(rep.Runs, res)
		// The sessions must not be picked up by an operator a later section starts.
		if err := env.Client.CoreV1().Namespaces().Delete(ctx, res.Options.Namespace, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return rep, fmt.Errorf("deleting namespace %s: %w", res.Options.Namespace, err)
		}
	}
	return rep, nil
}

// waitNoTerminatingNamespace waits until no namespace is being deleted.
func waitNoTerminatingNamespace(ctx context.Context, env *Env, limit time.Duration) error {
	return wait.PollUntilContextTimeout(ctx, time.Second, limit, true, func(ctx context.Context) (bool, error) {
		list, err := env.Client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		for _, ns := range list.Items {
			if ns.DeletionTimestamp != nil {
				return false, nil
			}
		}
		return true, nil
	})
}

// installCRDs creates or updates the CRDs of config/crd/bases and waits until they are Established.
func installCRDs(ctx context.Context, cfg *rest.Config) error {
	root, err := testcluster.FindRepoRoot()
	if err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(root, "config", "crd", "bases", "*.yaml"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no CRDs under config/crd/bases (%v)", err)
	}
	cs, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	crds := cs.ApiextensionsV1().CustomResourceDefinitions()
	var names []string
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(raw, &crd); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		cur, err := crds.Get(ctx, crd.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			_, err = crds.Create(ctx, &crd, metav1.CreateOptions{})
		case err == nil:
			crd.ResourceVersion = cur.ResourceVersion
			_, err = crds.Update(ctx, &crd, metav1.UpdateOptions{})
		}
		if err != nil {
			return fmt.Errorf("installing CRD %s: %w", crd.Name, err)
		}
		names = append(names, crd.Name)
	}
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		for _, n := range names {
			crd, err := crds.Get(ctx, n, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			established := false
			for _, c := range crd.Status.Conditions {
				if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
					established = true
				}
			}
			if !established {
				return false, nil
			}
		}
		return true, nil
	})
}
