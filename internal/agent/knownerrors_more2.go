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

// The rest of moreKnownErrors (knownerrors_more.go): search and metrics back ends,
// coordination stores, pre-forking web servers, object storage, task queues and the JVM.
var moreKnownErrors2 = []knownError{
	{class: "server-limit-reached", software: "Elasticsearch",
		signs:     []string{`limit of total fields \[\d{1,9}\]( in index \[[^\]]{1,200}\])? has been exceeded`},
		mechanism: "Elasticsearch refuses a document that would add a field past index.mapping.total_fields.limit (a limit of 1000 fields per index by default), as dynamic mapping of free-form keys (labels, JSON payloads) does",
		provider:  esTotalFields, consumer: esTotalFields,
		runs:   `elasticsearch|opensearch`,
		fix:    "stop mapping free-form keys (dynamic: false or flattened in the index template), or raise index.mapping.total_fields.limit in the template",
		source: "https://github.com/elastic/elasticsearch/pull/17357; https://www.elastic.co/guide/en/elasticsearch/reference/current/mapping-settings-limit.html"},
	{class: "server-limit-reached", software: "Elasticsearch",
		signs:     []string{`too_many_buckets_exception`, `trying to create too many buckets`},
		mechanism: "Elasticsearch aborts an aggregation that would return more buckets than search.max_buckets (a limit of 65536 by default, 10000 before 7.9)",
		provider:  esBuckets, consumer: esBuckets,
		runs:   `elasticsearch|opensearch`,
		fix:    "narrow the aggregation (fewer terms, a coarser histogram, composite pagination), or raise search.max_buckets",
		source: "https://github.com/elastic/elasticsearch/pull/57621; https://github.com/Graylog2/graylog2-server/issues/10148"},
	{class: "server-limit-reached", software: "Elasticsearch",
		signs:     []string{`this action would add \[\d{1,9}\] (total )?shards, but this cluster currently has \[\d{1,9}\]/\[\d{1,9}\] maximum (normal )?shards open`},
		mechanism: "Elasticsearch refuses to create an index whose shards would take the cluster past cluster.max_shards_per_node times its data nodes (a limit of 1000 shards per node by default), as daily indices with several shards each reach",
		provider:  esShards, consumer: esShards,
		runs:   `elasticsearch|opensearch`,
		fix:    "delete or shrink old indices (an ILM policy, fewer shards per index), or raise cluster.max_shards_per_node",
		source: "https://github.com/elastic/elasticsearch/pull/110993; https://www.elastic.co/guide/en/elasticsearch/reference/current/size-your-shards.html"},
	{class: "server-limit-reached", software: "Grafana Mimir",
		signs:     []string{`err-mimir-max-series-per-user`, `per-user series limit of \d{1,12} exceeded`},
		mechanism: "Mimir (and Cortex) refuses samples of new series once a tenant has max_global_series_per_user active series (a limit of 150000 by default), so remote write drops them",
		provider:  mimirSeries, consumer: mimirSeries,
		runs:   `mimir|cortex`,
		fix:    "drop high-cardinality labels in the senders (relabeling), or raise max_global_series_per_user in the limits (runtime overrides)",
		source: "https://github.com/grafana/mimir/discussions/2443; https://grafana.com/docs/mimir/latest/manage/mimir-runbooks/#err-mimir-max-series-per-user"},
	{class: "server-limit-reached", software: "etcd",
		signs:     []string{`etcdserver: request is too large`},
		mechanism: "etcd refuses a request larger than --max-request-bytes (a limit of 1.5 MiB by default), as a large object (a big ConfigMap, a CRD status) or a transaction with many keys makes",
		provider:  etcdRequest, consumer: etcdRequest,
		runs:   `etcd`,
		fix:    "store smaller values (split the object), or raise --max-request-bytes (and the client's send limit with it)",
		source: "https://github.com/etcd-io/etcd/issues/9925; https://etcd.io/docs/v3.5/dev-guide/limit/#request-size-limit"},
	{class: "server-limit-reached", software: "Apache httpd",
		signs:     []string{`server reached maxrequestworkers setting`, `server reached maxclients setting`},
		mechanism: "Apache httpd serves at most MaxRequestWorkers requests at once (a limit of 256 with prefork, 400 with event or worker, bounded by ServerLimit), and queues the rest until clients time out",
		provider:  httpdWorkers, consumer: httpdWorkers,
		runs:   `httpd|apache2|[-:]apache\b|wordpress`,
		fix:    "raise MaxRequestWorkers (and ServerLimit) within the container's memory limit, or make requests faster",
		source: "https://httpd.apache.org/docs/2.4/mod/mpm_common.html#maxrequestworkers; https://github.com/matomo-org/docker/issues/359"},
	{class: "server-limit-reached", software: "PHP-FPM",
		signs:     []string{`server reached (pm\.)?max_children setting \(\d{1,5}\)`},
		mechanism: "php-fpm runs at most pm.max_children worker processes per pool (a limit of 5 in the php image's www pool), so further requests wait in the listen queue and the web server times out",
		provider:  fpmChildren, consumer: fpmChildren,
		runs:   `php|fpm|wordpress|nextcloud|drupal|matomo`,
		fix:    "raise pm.max_children in the pool's configuration (a www.conf mounted in php-fpm.d), sized to the memory limit",
		source: "https://github.com/matomo-org/docker/issues/227; https://www.php.net/manual/en/install.fpm.configuration.php#pm.max-children"},
	{class: "client-connection-setting", software: "Amazon S3",
		signs:     []string{`the region '[^']{1,40}' is wrong; expecting '[^']{1,40}'`},
		mechanism: "S3 checks the region a request is signed for (Signature V4) against the bucket's region and refuses a request signed for another one; the client's connection settings take the region from AWS_REGION or AWS_DEFAULT_REGION (or its config), us-east-1 when none is set",
		consumer:  []settingSpec{{key: `(^|_)(aws_region|aws_default_region|s3_region|bucket_region)$|^region$`, name: "AWS_REGION", absent: "no region setting, so the SDK signs for us-east-1"}},
		fix:       "set AWS_REGION (or the client's region option) to the bucket's region, the one the error expects",
		source:    "https://github.com/aws/aws-cli/issues/2954; https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-authenticating-requests.html"},
	{class: "request-timeout-setting", software: "Celery",
		signs:     []string{`hard time limit \(\d{1,9}(\.\d{1,3})?s\) exceeded for`},
		mechanism: "a Celery worker kills the child process running a task that outlives its hard time limit, a timeout set by --time-limit, task_time_limit or the task's time_limit, and the task fails with TimeLimitExceeded",
		consumer:  celeryLimit,
		fix:       "raise the time limit where it is set (--time-limit, task_time_limit), or split the task into shorter ones",
		source:    "https://docs.celeryq.dev/en/stable/userguide/workers.html#time-limits; https://github.com/celery/celery/issues/137"},
	{class: "request-timeout-setting", software: "ClickHouse",
		signs:     []string{`timeout exceeded: elapsed [\d.]{1,20} (seconds|ms), maximum: [\d.]{1,20}`},
		mechanism: "ClickHouse aborts (TIMEOUT_EXCEEDED) a query that runs longer than max_execution_time, a timeout that a settings profile of the server or the client's connection settings set",
		provider:  clickhouseTimeout, consumer: clickhouseTimeout,
		fix:    "raise max_execution_time where it is set (the user's profile, the client's settings), or make the query cheaper",
		source: "https://github.com/ClickHouse/ClickHouse/issues/44257; https://clickhouse.com/docs/en/operations/settings/query-complexity#max-execution-time"},
	{class: "runtime-memory-setting", software: "the JVM",
		signs:     []string{`outofmemoryerror: direct buffer memory`, `cannot reserve \d{1,15} bytes of direct buffer memory`},
		mechanism: "the JVM throws OutOfMemoryError: Direct buffer memory when NIO direct buffers (Netty, gRPC, Kafka clients) outgrow -XX:MaxDirectMemorySize, which defaults to the maximum heap size; that memory lies outside the heap and inside the container's memory limit",
		consumer: []settingSpec{{key: `^-xx:maxdirectmemorysize$`, value: `\d`}, {key: jvmOpts, value: `maxdirectmemorysize`},
			{key: jvmOpts, value: `maxdirectmemorysize`, name: "-XX:MaxDirectMemorySize", absent: "no -XX:MaxDirectMemorySize: direct buffers capped at the heap's maximum size"}},
		fix:    "raise -XX:MaxDirectMemorySize within the memory limit, or find the buffers that leak (Netty's leak detector)",
		source: "https://github.com/apache/druid/issues/2856; https://github.com/apache/hertzbeat/issues/3964"},
}

var (
	esTotalFields = []settingSpec{{key: `(^|_)(index_)?mapping_total_fields_limit$`, value: `\d`},
		{key: `(^|_)(index_)?mapping_total_fields_limit$`, name: "index.mapping.total_fields.limit", absent: "1000 fields per index, Elasticsearch's default index.mapping.total_fields.limit"}}
	esBuckets = []settingSpec{{key: `(^|_)search_max_buckets$`, name: "search.max_buckets", absent: "65536 buckets, the default search.max_buckets"}}
	esShards  = []settingSpec{{key: `(^|_)cluster_max_shards_per_node$`, value: `\d`},
		{key: `(^|_)cluster_max_shards_per_node$`, name: "cluster.max_shards_per_node", absent: "1000 shards per data node, the default cluster.max_shards_per_node"}}
	mimirSeries = []settingSpec{{key: `(^|_)max_global_series_per_user$`, name: "max_global_series_per_user", absent: "150000 series per tenant, Mimir's default max_global_series_per_user"}}
	etcdRequest = []settingSpec{{key: `(^|_)max_request_bytes$`, value: `\d`},
		{key: `(^|_)max_request_bytes$`, name: "--max-request-bytes", absent: "1.5 MiB per request, etcd's default --max-request-bytes"}}
	httpdWorkers = []settingSpec{{key: `^(maxrequestworkers|maxclients)$`, value: `\d`},
		{key: `^(maxrequestworkers|maxclients)$`, name: "MaxRequestWorkers", absent: "its MPM's default MaxRequestWorkers (256 with prefork)"}}
	fpmChildren = []settingSpec{{key: `(^|_)pm_max_children$|^max_children$`, name: "pm.max_children", absent: "pm.max_children = 5, the php image's www pool default"}}
	celeryLimit = []settingSpec{{key: `^(--time_limit|time_limit|task_time_limit|celery_task_time_limit|celeryd_task_time_limit)$`, value: `\d`},
		{key: `^(--soft_time_limit|soft_time_limit|task_soft_time_limit|celery_task_soft_time_limit)$`, value: `\d`}}
	clickhouseTimeout = []settingSpec{{key: `(^|_)max_execution_time$`, value: `\d`}}
)
