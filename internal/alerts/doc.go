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

// Package alerts is the operator's alert intake: an HTTP receiver for Alertmanager webhook
// payloads (version 4) that turns each firing alert into one Troubleshoot session, named
// deterministically from the alert's fingerprint and start time so that retries, repeats
// and storms never create a duplicate, and records resolved alerts on their session
// instead of investigating them again.
//
// The pieces are small and testable alone: ParsePayload (untrusted input, fuzzed),
// Policy (which alerts to investigate and with what defaults), BuildSession (alert →
// Troubleshoot, pure), Processor (API writes with de-duplication and cooldown),
// Journal (optional: sessions acknowledged once fsynced, created by the Processor's
// workers, replayed after a kill), RateLimiter, Handler (HTTP: auth, limits, JSON errors)
// and Server (a manager Runnable).
package alerts
