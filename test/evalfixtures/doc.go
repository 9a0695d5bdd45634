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

// Package evalfixtures holds the kubage eval fixtures recorded from the real-cluster
// scenario corpus (corpus/, written by make eval-fixtures) and the test that scores the
// rule engine and the scripted stand-in model on them. They stay out of the binary: they
// are regenerated from the test harness, weigh megabytes, and kubage eval reads them
// with --scenarios from a checkout; the binary embeds only a handful of hand-written ones.
package evalfixtures
