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

package remote

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// The knowledge endpoint checks agent tokens with TokenReviews.
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create

// TokenReviewer authenticates agents by their ServiceAccount token: the API server says
// whose token it is (TokenReview); only ServiceAccount is accepted, in any namespace, and
// that namespace is the caller's scope.
type TokenReviewer struct {
	Client kubernetes.Interface
	// ServiceAccount is the agents' ServiceAccount name (e.g. kubage-agent).
	ServiceAccount string
	// TTL is how long a successful review is trusted (default 1m); a shorter-lived token
	// stops working at the latest TTL after it expires.
	TTL time.Duration
	Now func() time.Time

	mu    sync.Mutex
	cache map[[32]byte]review
}

type review struct {
	namespace string
	at        time.Time
}

// maxCachedReviews bounds the remembered tokens.
const maxCachedReviews = 1024

const saPrefix = "system:serviceaccount:"

// Authenticate implements Authenticator.
func (t *TokenReviewer) Authenticate(ctx context.Context, token string) (string, error) {
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	ttl := t.TTL
	if ttl <= 0 {
		ttl = time.Minute
	}
	key := sha256.Sum256([]byte(token))
	t.mu.Lock()
	if r, ok := t.cache[key]; ok && now().Sub(r.at) < ttl {
		t.mu.Unlock()
		return r.namespace, nil
	}
	t.mu.Unlock()

	tr, err := t.Client.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{
		Spec: authenticationv1.TokenReviewSpec{Token: token},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("reviewing the token: %w", err)
	}
	if !tr.Status.Authenticated {
		return "", fmt.Errorf("%w: the token is not valid", ErrUnauthorized)
	}
	user := tr.Status.User.Username
	rest, ok := strings.CutPrefix(user, saPrefix)
	ns, name, ok2 := strings.Cut(rest, ":")
	if !ok || !ok2 || ns == "" || name != t.ServiceAccount {
		return "", fmt.Errorf("%w: %q is not the agent ServiceAccount %s", ErrForbidden, user, t.ServiceAccount)
	}
	t.mu.Lock()
	if t.cache == nil || len(t.cache) >= maxCachedReviews {
		t.cache = map[[32]byte]review{}
	}
	t.cache[key] = review{namespace: ns, at: now()}
	t.mu.Unlock()
	return ns, nil
}
