package main

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

func TestParseModelSecret(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want types.NamespacedName
		err  bool
	}{
		{in: "", want: types.NamespacedName{}},
		{in: "kubage-system/model", want: types.NamespacedName{Namespace: "kubage-system", Name: "model"}},
		{in: "model", err: true},
		{in: "/model", err: true},
		{in: "ns/", err: true},
		{in: "a/b/c", err: true},
	} {
		got, err := parseModelSecret(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("parseModelSecret(%q) error = %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if got != tc.want {
			t.Errorf("parseModelSecret(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
