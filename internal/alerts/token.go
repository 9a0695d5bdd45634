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

package alerts

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TokenKey is the Secret key holding the bearer token.
const TokenKey = "token"

// minTokenBytes refuses tokens short enough to guess.
const minTokenBytes = 16

// TokenSource yields the bearer token senders must present.
type TokenSource interface {
	Token(ctx context.Context) ([]byte, error)
}

// StaticToken is a fixed token.
type StaticToken []byte

// Token returns the fixed token.
func (t StaticToken) Token(context.Context) ([]byte, error) { return checkToken(t) }

// SecretToken reads the token from a Secret's `token` key and re-reads it after TTL, so
// that rotating the Secret takes effect without a restart. A failed re-read keeps the
// previous token.
type SecretToken struct {
	Reader client.Reader
	Key    types.NamespacedName
	TTL    time.Duration
	cached reloading
}

// Token returns the current token.
func (s *SecretToken) Token(ctx context.Context) ([]byte, error) {
	return s.cached.get(ctx, s.TTL, func(ctx context.Context) ([]byte, error) {
		var sec corev1.Secret
		if err := s.Reader.Get(ctx, s.Key, &sec); err != nil {
			return nil, fmt.Errorf("reading token Secret %s: %w", s.Key, err)
		}
		v, ok := sec.Data[TokenKey]
		if !ok {
			return nil, fmt.Errorf("token Secret %s has no key %q", s.Key, TokenKey)
		}
		return v, nil
	})
}

// FileToken reads the token from a file (e.g. a mounted Secret) and re-reads it after TTL.
type FileToken struct {
	Path   string
	TTL    time.Duration
	cached reloading
}

// Token returns the current token.
func (f *FileToken) Token(ctx context.Context) ([]byte, error) {
	return f.cached.get(ctx, f.TTL, func(context.Context) ([]byte, error) {
		st, err := os.Stat(f.Path)
		if err != nil {
			return nil, fmt.Errorf("reading token file: %w", err)
		}
		if st.Size() > 4096 {
			return nil, errors.New("token file is larger than 4 KiB")
		}
		return os.ReadFile(f.Path)
	})
}

// reloading caches a token for a TTL and keeps the last good one when a reload fails.
type reloading struct {
	mu     sync.Mutex
	token  []byte
	at     time.Time
	err    error
	loaded bool
}

func (r *reloading) get(ctx context.Context, ttl time.Duration, load func(context.Context) ([]byte, error)) ([]byte, error) {
	if ttl <= 0 {
		ttl = 30 * time.Second
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.loaded && time.Since(r.at) < ttl {
		return r.token, r.err
	}
	v, err := load(ctx)
	if err == nil {
		v, err = checkToken(v)
	}
	r.at, r.loaded = time.Now(), true
	if err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Alert receiver token not reloaded")
		if r.token != nil {
			return r.token, nil
		}
		r.err = err
		return nil, err
	}
	r.token, r.err = v, nil
	return v, nil
}

// checkToken trims the trailing newline files and Secrets often carry, and refuses
// tokens that are too short.
func checkToken(t []byte) ([]byte, error) {
	t = bytes.TrimSpace(t)
	if len(t) < minTokenBytes {
		return nil, fmt.Errorf("the alert receiver token must be at least %d bytes", minTokenBytes)
	}
	return t, nil
}

// tokenEqual compares in constant time; hashing first hides the token's length too.
func tokenEqual(got, want []byte) bool {
	g, w := sha256.Sum256(got), sha256.Sum256(want)
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}
