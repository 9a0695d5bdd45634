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

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubage/kubage/internal/tools"
)

// PostgreSQL keeps every write-ahead log segment until archive_command succeeds for it: when
// archiving fails (rotated object-store keys, a missing bucket), pg_wal grows until the
// volume is full and the server stops. "No space left on device" is then the symptom; the
// archiver's own error, earlier in the same log, and the Secret its credentials come from
// are the cause.

var (
	archiveFailed = regexp.MustCompile(`(?i)archive command failed|archiving (?:write-ahead log|wal) file .* failed`)
	uploadError   = regexp.MustCompile(`(?i)(?:error|failed|denied).{0,80}(?:upload|push|bucket|storage|s3|gcs|blob)|(?:upload|push).{0,80}(?:error|failed|denied)`)
	storageCred   = regexp.MustCompile(`(?i)^(?:AWS_|WALG_|WALE_|GOOGLE_|GCS_|AZURE_|S3_|MINIO_|PGBACKREST_)|ACCESS_KEY|SECRET_KEY|CREDENTIALS`)
)

// walArchiveCause explains a full volume by a failing WAL archiver when the container's log
// says archiving failed: the archiver's error line, and the Secrets with object-store
// credentials the container loads.
func (pc *podCheck) walArchiveCause(ctx context.Context, d *depCheck) (string, []ObjectRef) {
	lines := pc.logTail(d.cs.Name)
	failed, upload := false, ""
	for _, l := range lines {
		l = clipBytes(l, maxClueLineLen)
		failed = failed || archiveFailed.MatchString(l)
		if upload == "" && uploadError.MatchString(l) && !archiveFailed.MatchString(l) {
			upload = tools.Sanitize(l, 200, true)
		}
	}
	if !failed {
		return "", nil
	}
	var refs []ObjectRef
	var names []string
	for _, ef := range d.spec.EnvFrom {
		if ef.SecretRef == nil {
			continue
		}
		s, err := getAs[*corev1.Secret](ctx, pc.e, "Secret", ef.SecretRef.Name)
		if err != nil {
			continue
		}
		for _, k := range tools.SecretKeys(s) {
			if storageCred.MatchString(k) {
				refs = append(refs, pc.e.ref("Secret", s.Name))
				names = append(names, "Secret "+s.Name)
				break
			}
		}
	}
	note := " PostgreSQL keeps every WAL segment until archive_command succeeds, and its log says the archive command failed"
	if upload != "" {
		note += ": " + quoteLine(upload)
	}
	note += "; so pg_wal grew until the volume filled"
	if len(names) > 0 {
		note += fmt.Sprintf(". The archiver's object-store credentials come from %s (envFrom): fix them (or the bucket) first, then the archived segments are removed", strings.Join(names, ", "))
	}
	return note, refs
}
