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
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubage/kubage/internal/knowledge"
)

// recordingSearcher answers every query with one snippet and remembers the queries.
type recordingSearcher struct{ queries []knowledge.Query }

func (s *recordingSearcher) Search(_ context.Context, q knowledge.Query) (*knowledge.Answer, error) {
	s.queries = append(s.queries, q)
	return &knowledge.Answer{Sources: 1, Snippets: []knowledge.Snippet{{
		Citation: knowledge.Citation{Namespace: q.Namespace, Source: "runbooks", Path: "crash.md"}, Text: "restart it", Score: 1,
	}}}, nil
}

// tokenServer is an API server that knows three tokens.
func tokenServer() (*fake.Clientset, *int) {
	users := map[string]string{
		"agent-a": "system:serviceaccount:team-a:kubage-agent",
		"other-a": "system:serviceaccount:team-a:default",
		"human":   "alice",
	}
	reviews := 0
	cs := fake.NewClientset()
	cs.PrependReactor("create", "tokenreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		reviews++
		tr := a.(k8stesting.CreateAction).GetObject().(*authenticationv1.TokenReview)
		out := tr.DeepCopy()
		if u, ok := users[tr.Spec.Token]; ok {
			out.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: authenticationv1.UserInfo{Username: u}}
		}
		return true, out, nil
	})
	return cs, &reviews
}

func TestEndpointScopesAgentsToTheirNamespace(t *testing.T) {
	cs, reviews := tokenServer()
	s := &recordingSearcher{}
	srv := httptest.NewServer(&Handler{Searcher: s, Auth: &TokenReviewer{Client: cs, ServiceAccount: "kubage-agent"}})
	defer srv.Close()

	search := func(token string) (*knowledge.Answer, error) {
		c := &Client{URL: srv.URL, Token: TokenFrom(token, "")}
		return c.Search(context.Background(), knowledge.Query{
			Namespace: "team-b", // ignored: the token decides
			Selector:  &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}},
			Text:      "pod keeps restarting", K: 3,
		})
	}
	ans, err := search("agent-a")
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Snippets) != 1 || ans.Snippets[0].Text != "restart it" {
		t.Fatalf("answer %+v", ans)
	}
	if len(s.queries) != 1 || s.queries[0].Namespace != "team-a" || s.queries[0].K != 3 ||
		s.queries[0].Selector.MatchLabels["team"] != "a" || s.queries[0].Text != "pod keeps restarting" {
		t.Fatalf("queries %+v", s.queries)
	}
	if _, err := search("agent-a"); err != nil {
		t.Fatal(err)
	}
	if *reviews != 1 {
		t.Errorf("reviews = %d, want 1 (a reviewed token is remembered)", *reviews)
	}

	for token, want := range map[string]string{"nope": "401", "other-a": "403", "human": "403", "": "no ServiceAccount token"} {
		_, err := search(token)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("token %q: err = %v, want %s", token, err, want)
		}
	}
	if len(s.queries) != 2 {
		t.Errorf("a refused caller reached the searcher: %d queries", len(s.queries))
	}
}

func TestEndpointRejectsMalformedRequests(t *testing.T) {
	cs, _ := tokenServer()
	h := &Handler{Searcher: &recordingSearcher{}, Auth: &TokenReviewer{Client: cs, ServiceAccount: "kubage-agent"}}
	for _, tc := range []struct {
		method, path, body string
		want               int
	}{
		{http.MethodGet, SearchPath, "", http.StatusMethodNotAllowed},
		{http.MethodPost, "/other", "{}", http.StatusNotFound},
		{http.MethodPost, SearchPath, "{", http.StatusBadRequest},
		{http.MethodPost, SearchPath, `{"text":"` + strings.Repeat("x", maxRequestBytes) + `"}`, http.StatusBadRequest},
	} {
		req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
		req.Header.Set("Authorization", "Bearer agent-a")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("%s %s: %d, want %d (%s)", tc.method, tc.path, rec.Code, tc.want, rec.Body)
		}
	}
}

func TestTokenReviewErrorsAreNotAuthFailures(t *testing.T) {
	cs := fake.NewClientset()
	cs.PrependReactor("create", "tokenreviews", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("apiserver down")
	})
	_, err := (&TokenReviewer{Client: cs, ServiceAccount: "kubage-agent"}).Authenticate(context.Background(), "t")
	if err == nil || errors.Is(err, ErrUnauthorized) || errors.Is(err, ErrForbidden) {
		t.Fatalf("err = %v, want a transient error", err)
	}
}
