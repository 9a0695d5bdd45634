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

package notify

import (
	"context"
	"fmt"
	"net/url"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// maxSecretValue bounds a URL, token or key read from a Secret.
const maxSecretValue = 8 << 10

// MissingSecretError says which Secret (or key) a sink needs and cannot find.
type MissingSecretError struct {
	Namespace, Name, Key string
	KeyMissing           bool
}

func (e *MissingSecretError) Error() string {
	if e.KeyMissing {
		return fmt.Sprintf("Secret %s/%s has no key %q", e.Namespace, e.Name, e.Key)
	}
	return fmt.Sprintf("Secret %s/%s not found", e.Namespace, e.Name)
}

// ResolveSink reads the Secrets of obj through reader (which carries the rights they are
// read with) and checks the URL's shape; nothing is sent.
func ResolveSink(ctx context.Context, reader client.Reader, obj *kubagev1alpha1.NotificationSink) (Sink, error) {
	s := Sink{Name: obj.Name, Type: obj.Spec.Type, MaxPerHour: obj.Spec.MaxPerHour}
	var err error
	if s.URL, err = secretValue(ctx, reader, obj.Namespace, &obj.Spec.URL); err != nil {
		return Sink{}, err
	}
	if s.Token, err = secretValue(ctx, reader, obj.Namespace, obj.Spec.Token); err != nil {
		return Sink{}, err
	}
	if s.SigningKey, err = secretValue(ctx, reader, obj.Namespace, obj.Spec.SigningKey); err != nil {
		return Sink{}, err
	}
	u, perr := url.Parse(s.URL)
	if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// The value is a credential: say where it came from, not what it is.
		return Sink{}, &PermanentError{Err: fmt.Errorf("the value of Secret %s key %s is not an http(s) URL", obj.Spec.URL.Name, obj.Spec.URL.Key)}
	}
	return s, nil
}

func secretValue(ctx context.Context, reader client.Reader, ns string, ref *kubagev1alpha1.SecretKeyReference) (string, error) {
	if ref == nil {
		return "", nil
	}
	sec := &corev1.Secret{}
	if err := reader.Get(ctx, client.ObjectKey{Namespace: ns, Name: ref.Name}, sec); err != nil {
		if apierrors.IsNotFound(err) {
			return "", &MissingSecretError{Namespace: ns, Name: ref.Name, Key: ref.Key}
		}
		return "", fmt.Errorf("reading Secret %s/%s: %w", ns, ref.Name, err)
	}
	v, ok := sec.Data[ref.Key]
	if !ok {
		return "", &MissingSecretError{Namespace: ns, Name: ref.Name, Key: ref.Key, KeyMissing: true}
	}
	if len(v) > maxSecretValue {
		return "", &PermanentError{Err: fmt.Errorf("Secret %s/%s key %s is longer than %d bytes", ns, ref.Name, ref.Key, maxSecretValue)}
	}
	return string(v), nil
}
