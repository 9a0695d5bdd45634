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

package v1alpha1

// ShardingKeyLabel assigns an object to one operator shard. An operator started with
// --watch-label-selector=sharding.kubage.io/key=<shard> caches and reconciles only the
// Troubleshoots, KnowledgeSources and ToolServers carrying that value, and the main
// operator runs with --watch-label-selector='!sharding.kubage.io/key' so that each object
// has exactly one owner. A session only sees the KnowledgeSources and ToolServers of its
// own shard.
const ShardingKeyLabel = "sharding.kubage.io/key"
