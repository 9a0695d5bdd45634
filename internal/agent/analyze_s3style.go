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

	corev1 "k8s.io/api/core/v1"
)

// S3 clients address a bucket virtual-hosted style by default: bucket.endpoint. Against an
// in-cluster object store (MinIO, Ceph RGW) behind Service minio, that is the name
// "uploads.minio", which resolves nowhere (it reads as Service uploads in namespace minio),
// and every request fails on the lookup. Such servers are reached path-style
// (endpoint/bucket): the client's path-style setting is the fix. virtualHostedBucket
// recognises a failed name made of a value the client is configured with and a Service here.

// pathStyleKey is a setting that chooses S3 path-style or virtual-hosted addressing.
var pathStyleKey = regexp.MustCompile(`(?i)path[_.-]?style|force[_.-]?path|addressing[_.-]?style|virtual[_.-]?host`)

// virtualHostedBucket reports a lookup of bucket.service where service is a Service here
// and bucket a value of the client's configuration, not a pod of that Service.
func (pc *podCheck) virtualHostedBucket(ctx context.Context, d *depCheck, h HostPort, bucket string, svc *corev1.Service) bool {
	if _, err := getAs[*corev1.Pod](ctx, pc.e, "Pod", bucket); err == nil {
		return false // pod.service: a StatefulSet pod under its headless Service
	}
	src := pc.findValue(ctx, d, bucket)
	if src == nil || src.value == h.Host {
		return false
	}
	e := pc.e
	wl := e.workloadOf(ctx, pc.pod)
	culprit, setting := src.ref, ""
	for _, s := range e.configSettings(ctx, pc.pod, d.spec, wl) {
		if pathStyleKey.MatchString(s.name) {
			culprit, setting = s.ref, s.say()
			break
		}
	}
	fix := "turn path-style addressing on in the client (S3_FORCE_PATH_STYLE=true, forcePathStyle: true, s3.addressing_style = path, use_path_style_endpoint)"
	if setting != "" {
		fix = "set " + setting + " to path style (true)"
	}
	svcRef := e.ref("Service", svc.Name)
	summary := fmt.Sprintf("%s: it looks up %s, which is bucket %s (%s) put in front of Service %s: the S3 client addresses the bucket virtual-hosted style (bucket.endpoint), a name no DNS serves inside the cluster, instead of path style (endpoint/bucket) as an in-cluster object store such as MinIO needs. Fix: %s.",
		d.opening(), h.Host, bucket, src.where, svc.Name, fix)
	d.report(ctx, "client-connection-setting", 0, culprit, summary, nil, []ObjectRef{src.ref, svcRef},
		map[string]string{"key": orDefault(setting, "path-style setting"), "sourceResource": kubectlResource(culprit), "host": h.Host, "bucket": bucket})
	return true
}
