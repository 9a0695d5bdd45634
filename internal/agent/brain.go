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

package agent

import "context"

// Planner turns a session (and what was learned so far) into tasks.
type Planner interface {
	Plan(ctx context.Context, s Session, p Progress) ([]Task, error)
}

// Investigator runs one task. It must be a pure function of (session, task, cluster)
// so the in-process runner and a Kubernetes Job produce the same result.
type Investigator interface {
	Investigate(ctx context.Context, s Session, t Task) (TaskResult, error)
}

// Regulator judges the results: conclude, plan another round, or stop.
type Regulator interface {
	Judge(ctx context.Context, s Session, p Progress) (Verdict, error)
}

// Summarizer turns the results into a root cause and a remediation proposal.
type Summarizer interface {
	Summarize(ctx context.Context, s Session, p Progress) (Conclusion, error)
}

// Brain is everything the loop needs; the RuleEngine and the LLM brain both implement it.
type Brain interface {
	Planner
	Investigator
	Regulator
	Summarizer
}
