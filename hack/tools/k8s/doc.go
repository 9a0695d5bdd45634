// Package k8s only pins the versions of the control-plane binaries that
// hack/tools.mk builds into bin/k8s; it has no code of its own.
package k8s
