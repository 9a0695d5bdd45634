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

// Package errors is the error vocabulary of the reconcilers and the session engine: an
// error says whether the object is stalled until its spec changes, waits for something
// outside it on its own schedule, or failed in a way that retrying may fix. Each carries
// the condition reason that explains it. Import it as serror.
package errors

import "time"

// Stalling means the object cannot progress until its spec (or an object the spec refers
// to, whose change is watched) changes: retrying alone will not help, so it is not retried.
type Stalling struct {
	// Reason is the UpperCamelCase condition reason, e.g. InvalidSpec.
	Reason string
	Err    error
}

// NewStalling returns a Stalling error with the given reason.
func NewStalling(reason string, err error) *Stalling { return &Stalling{Reason: reason, Err: err} }

func (e *Stalling) Error() string { return e.Err.Error() }
func (e *Stalling) Unwrap() error { return e.Err }

// Waiting means the object waits for something outside the cluster's API (a remote that
// is down, an endpoint that fails): the failure is expected weather, recorded in the
// conditions and retried after RequeueAfter instead of on the controller's fast backoff.
type Waiting struct {
	// Reason is the UpperCamelCase condition reason, e.g. AuthFailed.
	Reason string
	Err    error
	// RequeueAfter is when to try again; zero leaves it to the controller's backoff.
	RequeueAfter time.Duration
}

func (e *Waiting) Error() string { return e.Err.Error() }
func (e *Waiting) Unwrap() error { return e.Err }

// Generic is any other failure with a known reason: it is retried with the controller's
// backoff and, when Event is set, also announced with a Warning Event.
type Generic struct {
	// Reason is the UpperCamelCase condition reason, e.g. Failed.
	Reason string
	Err    error
	// Event asks for a Warning Event, for failures a user should see without reading conditions.
	Event bool
}

func (e *Generic) Error() string { return e.Err.Error() }
func (e *Generic) Unwrap() error { return e.Err }
