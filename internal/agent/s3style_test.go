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

package agent_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// An S3 client that puts the bucket in front of the in-cluster endpoint (virtual-hosted
// style) looks up bucket.minio, which resolves nowhere: its path-style setting is named.
func TestS3VirtualHostedBucketInCluster(t *testing.T) {
	objs := func(bucket string) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("media-api", 1, envFrom("media-api-config"), crashing)
			o = append(o, app("minio", 1, nil, nil)...)
			return append(o, cmWith("media-api-config", "S3_ENDPOINT", "http://minio:9000", "S3_BUCKET", bucket, "S3_FORCE_PATH_STYLE", "false"),
				svcAt("minio", "10.96.7.7", map[string]string{"app": "minio"}, 9000), fx.Node("node-1"))
		}
	}
	line := "Error: getaddrinfo ENOTFOUND media-uploads.minio\n    at GetAddrInfoReqWrap.onlookup [as oncomplete] (node:dns:107:26)\n"
	runDepCases(t, []depCase{
		{name: "bucket.minio", problem: "media-api never becomes ready", objs: objs("media-uploads"), logs: logBook{"media-api-": line},
			rule: "client-connection-setting", culprit: "ConfigMap/media-api-config", affected: []string{"Service/minio"},
			terms: []string{"S3_FORCE_PATH_STYLE = false", "virtual-hosted", "media-uploads"}},
	})
	e := engine(objs("avatars")()...)
	e.Logs = logBook{"media-api-": line}.source()
	if rc := drive(t, e, sessionFor("media-api never becomes ready")).RootCause; rc.Rule == "client-connection-setting" {
		t.Errorf("a name whose first label the client is not configured with was read as a bucket: %s", rc.Summary)
	}
}
