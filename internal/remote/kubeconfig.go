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

// Package remote builds clients for clusters other than the operator's own, from the
// kubeconfig a namespace keeps in a Secret. A kubeconfig is the author's input, so only
// what it carries inline is used: exec plugins, auth-provider plugins and file paths (which
// would run programs or read files inside the operator) are refused, and every connection
// goes through the egress guard.
package remote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/egress"
)

// maxKubeConfig bounds the kubeconfig read from a Secret.
const maxKubeConfig = 1 << 20

// requestTimeout bounds each request to a remote API server.
const requestTimeout = 15 * time.Second

// Error is a remote cluster failure with the condition reason it maps to.
type Error struct {
	Reason string
	Err    error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// ReasonOf returns the condition reason of err, or "" when it is not a remote cluster error.
func ReasonOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}

func refused(format string, args ...any) error {
	return &Error{Reason: kubagev1alpha1.KubeConfigRefusedReason, Err: fmt.Errorf(format, args...)}
}

// Load reads kubeconfig bytes and returns the client configuration of contextName (the
// current context when empty), after refusing anything the operator will not do for it.
func Load(data []byte, contextName string) (*rest.Config, error) {
	if len(data) > maxKubeConfig {
		return nil, refused("the kubeconfig is larger than %d bytes", maxKubeConfig)
	}
	cfg, err := clientcmd.Load(data)
	if err != nil {
		// The parser's message may quote the document; say only that it did not parse.
		return nil, refused("the kubeconfig does not parse as a kubeconfig")
	}
	if contextName == "" {
		contextName = cfg.CurrentContext
	}
	kctx, ok := cfg.Contexts[contextName]
	if contextName == "" || !ok {
		return nil, refused("the kubeconfig has no context %q (set current-context or name one)", contextName)
	}
	cluster, ok := cfg.Clusters[kctx.Cluster]
	if !ok {
		return nil, refused("context %q names cluster %q, which the kubeconfig does not define", contextName, kctx.Cluster)
	}
	if err := checkCluster(kctx.Cluster, cluster); err != nil {
		return nil, err
	}
	user, ok := cfg.AuthInfos[kctx.AuthInfo]
	if !ok {
		return nil, refused("context %q names user %q, which the kubeconfig does not define", contextName, kctx.AuthInfo)
	}
	if err := checkUser(kctx.AuthInfo, user); err != nil {
		return nil, err
	}
	// Only the one context is kept, so nothing else in the document is ever consulted.
	minimal := clientcmdapi.NewConfig()
	minimal.Clusters[kctx.Cluster] = cluster
	minimal.AuthInfos[kctx.AuthInfo] = user
	minimal.Contexts[contextName] = kctx
	minimal.CurrentContext = contextName
	rc, err := clientcmd.NewNonInteractiveClientConfig(*minimal, contextName, &clientcmd.ConfigOverrides{}, nil).ClientConfig()
	if err != nil {
		return nil, refused("the kubeconfig's context %q is incomplete: %v", contextName, err)
	}
	rc.Dial = egress.DialContext
	// No proxy: it would dial the cluster itself, out of the egress guard's sight.
	rc.Proxy = func(*http.Request) (*url.URL, error) { return nil, nil }
	rc.Timeout = requestTimeout
	rc.UserAgent = "kubage"
	return rc, nil
}

func checkCluster(name string, c *clientcmdapi.Cluster) error {
	switch {
	case c.CertificateAuthority != "":
		return refused("cluster %q reads its CA from the file %q; embed it as certificate-authority-data", name, c.CertificateAuthority)
	case c.ProxyURL != "":
		return refused("cluster %q goes through proxy-url, which the egress guard cannot see past", name)
	case c.Server == "":
		return refused("cluster %q has no server", name)
	}
	u, err := url.Parse(c.Server)
	if err != nil || u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
		return refused("cluster %q has a server that is not an http(s) URL", name)
	}
	return nil
}

func checkUser(name string, u *clientcmdapi.AuthInfo) error {
	switch {
	case u.Exec != nil:
		return refused("user %q runs an exec plugin (%q), which would run a program inside the operator; use a token or a client certificate embedded in the kubeconfig", name, u.Exec.Command)
	case u.AuthProvider != nil:
		return refused("user %q uses the auth-provider %q, which the operator does not run; use a token or an embedded client certificate", name, u.AuthProvider.Name)
	case u.TokenFile != "":
		return refused("user %q reads its token from the file %q; embed the token", name, u.TokenFile)
	case u.ClientCertificate != "" || u.ClientKey != "":
		return refused("user %q reads its client certificate or key from a file; embed them as client-certificate-data and client-key-data", name)
	}
	return nil
}

// Probe asks the remote API server who the credentials are, which needs a working
// connection and accepted credentials but no permission, then whether they may list the
// Pods of namespace there (what every investigation reads first), and classifies the failure.
func Probe(ctx context.Context, cs kubernetes.Interface, namespace string) error {
	_, err := cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err := Classify(err); err != nil {
		return err
	}
	_, err = cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{Limit: 1})
	if apierrors.IsForbidden(err) {
		return &Error{Reason: kubagev1alpha1.ClusterForbiddenReason, Err: fmt.Errorf("the remote cluster's credentials may not list Pods in namespace %q there: %w", namespace, err)}
	}
	return Classify(err)
}

// NewClient builds a clientset for a configuration Load returned.
func NewClient(cfg *rest.Config) (kubernetes.Interface, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, refused("the kubeconfig does not make a client: %v", err)
	}
	return cs, nil
}

// Classify maps an error of a request to a remote cluster to its condition reason.
func Classify(err error) error {
	var netErr net.Error
	switch {
	case err == nil:
		return nil
	case ReasonOf(err) != "":
		return err
	case apierrors.IsUnauthorized(err):
		return &Error{Reason: kubagev1alpha1.ClusterUnauthorizedReason, Err: fmt.Errorf("the remote cluster refused the kubeconfig's credentials: %w", err)}
	case egress.IsDenied(err):
		return &Error{Reason: kubagev1alpha1.EgressDeniedReason, Err: fmt.Errorf("the egress guard refuses the remote cluster's address: %w", err)}
	case errors.As(err, &netErr), errors.Is(err, context.DeadlineExceeded):
		return &Error{Reason: kubagev1alpha1.ClusterUnreachableReason, Err: fmt.Errorf("the remote cluster's API server does not answer: %w", err)}
	}
	if apierrors.IsForbidden(err) || apierrors.IsNotFound(err) {
		// Authenticated: the account may not review itself, or the server predates the API.
		return nil
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return &Error{Reason: kubagev1alpha1.ClusterUnreachableReason, Err: fmt.Errorf("the remote cluster answered: %w", err)}
	}
	return &Error{Reason: kubagev1alpha1.ClusterUnreachableReason, Err: fmt.Errorf("the remote cluster's API server does not answer: %w", err)}
}
