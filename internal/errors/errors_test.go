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

package errors_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	serror "github.com/kubage/kubage/internal/errors"
)

func TestTheVocabularyIsFoundThroughWrapping(t *testing.T) {
	cause := errors.New("secret llm not found")
	wrapped := fmt.Errorf("reading the model: %w", serror.NewStalling("SecretNotFound", cause))
	var stalling *serror.Stalling
	if !errors.As(wrapped, &stalling) || stalling.Reason != "SecretNotFound" {
		t.Fatalf("Stalling not found in %v", wrapped)
	}
	if !errors.Is(wrapped, cause) || stalling.Error() != cause.Error() {
		t.Errorf("Stalling must unwrap to and read as its cause: %q", stalling.Error())
	}
	var waiting *serror.Waiting
	if errors.As(wrapped, &waiting) {
		t.Error("a Stalling error is not Waiting")
	}
	w := fmt.Errorf("x: %w", &serror.Waiting{Reason: "AuthFailed", Err: cause, RequeueAfter: time.Minute})
	if !errors.As(w, &waiting) || waiting.RequeueAfter != time.Minute || !errors.Is(w, cause) {
		t.Errorf("Waiting lost its fields: %+v", waiting)
	}
	var generic *serror.Generic
	g := &serror.Generic{Reason: "Failed", Err: cause, Event: true}
	if !errors.As(error(g), &generic) || !generic.Event || g.Error() != cause.Error() || !errors.Is(g, cause) {
		t.Errorf("Generic lost its fields: %+v", generic)
	}
}
