// Package kwok only pins the kwok version that hack/tools.mk builds into bin/k8s.
package kwok
