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
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func TestSecretTokenRotatesAndSurvivesOutages(t *testing.T) {
	ctx := context.Background()
	key := types.NamespacedName{Namespace: "kubage-system", Name: "tok"}
	c := fake.NewClientBuilder().Build()
	src := &SecretToken{Reader: c, Key: key, TTL: time.Nanosecond}
	if _, err := src.Token(ctx); err == nil {
		t.Fatal("a missing Secret must not yield a token")
	}
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}, Data: map[string][]byte{TokenKey: []byte(testToken + "\n")}}
	if err := c.Create(ctx, sec); err != nil {
		t.Fatal(err)
	}
	if tok, err := src.Token(ctx); err != nil || string(tok) != testToken {
		t.Fatalf("token %q, %v (trailing newline must be trimmed)", tok, err)
	}
	sec.Data[TokenKey] = []byte("rotated-token-0123456789")
	if err := c.Update(ctx, sec); err != nil {
		t.Fatal(err)
	}
	if tok, _ := src.Token(ctx); string(tok) != "rotated-token-0123456789" {
		t.Fatalf("rotation not picked up: %q", tok)
	}
	sec.Data[TokenKey] = []byte("short")
	if err := c.Update(ctx, sec); err != nil {
		t.Fatal(err)
	}
	if tok, err := src.Token(ctx); err != nil || string(tok) != "rotated-token-0123456789" {
		t.Fatalf("a bad new value must keep the last good token: %q, %v", tok, err)
	}
	if err := c.Delete(ctx, sec); err != nil {
		t.Fatal(err)
	}
	if tok, err := src.Token(ctx); err != nil || string(tok) != "rotated-token-0123456789" {
		t.Fatalf("a vanished Secret must keep the last good token: %q, %v", tok, err)
	}
}

func TestFileToken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	src := &FileToken{Path: path, TTL: time.Nanosecond}
	if _, err := src.Token(context.Background()); err == nil {
		t.Fatal("a missing file must not yield a token")
	}
	if err := os.WriteFile(path, []byte("  "+testToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if tok, err := src.Token(context.Background()); err != nil || string(tok) != testToken {
		t.Fatalf("token %q, %v", tok, err)
	}
	big := &FileToken{Path: filepath.Join(t.TempDir(), "big"), TTL: time.Nanosecond}
	if err := os.WriteFile(big.Path, make([]byte, 8192), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := big.Token(context.Background()); err == nil {
		t.Fatal("an 8 KiB token file was accepted")
	}
}

func TestBearerToken(t *testing.T) {
	for h, want := range map[string]string{
		"Bearer abc":   "abc",
		"bearer abc ":  "abc",
		"Basic abc":    "",
		"Bearer":       "",
		"Bearer   ":    "",
		"":             "",
		"Bearerabc":    "",
		"Bearer a b c": "a b c",
	} {
		got, ok := bearerToken(h)
		if string(got) != want || ok != (want != "") {
			t.Errorf("bearerToken(%q) = %q, %v", h, got, ok)
		}
	}
	if !tokenEqual([]byte("same-token"), []byte("same-token")) || tokenEqual([]byte("same-token"), []byte("same-tokem")) || tokenEqual([]byte("same"), []byte("same-token")) {
		t.Error("tokenEqual")
	}
}
