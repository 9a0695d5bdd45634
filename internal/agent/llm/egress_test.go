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

package llm

import (
	"context"
	"errors"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/kubage/kubage/internal/egress"
)

// A refused address is reported as EgressDenied on every call: it is not retried and does
// not open the endpoint's circuit breaker (which would hide the reason behind
// ModelCircuitOpen).
func TestEgressDenialIsNeitherRetriedNorABreakerFailure(t *testing.T) {
	policy, err := egress.NewPolicy(egress.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := egress.WithPolicy(context.Background(), policy)
	e := (&Pool{}).endpoint(Config{BaseURL: "http://169.254.169.254/v1", Model: "m", MaxRetries: 3, Timeout: time.Second})
	for i := 0; i < breakerThreshold+2; i++ {
		_, err := e.client.CreateChatCompletion(ctx, openai.ChatCompletionRequest{Model: "m",
			Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}})
		if !egress.IsDenied(err) || errors.Is(err, ErrCircuitOpen) {
			t.Fatalf("call %d: %v", i, err)
		}
		var ce *callError
		if !errors.As(classify(err), &ce) || ce.reason != ReasonEgressDenied {
			t.Fatalf("call %d classified as %v", i, classify(err))
		}
	}
	if got := e.attempts.Load(); got != int64(breakerThreshold+2) {
		t.Fatalf("%d attempts, want one per call", got)
	}
}
