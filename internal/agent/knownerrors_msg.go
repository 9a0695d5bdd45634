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

// Well-known errors of message brokers and their clients.
// Each entry's source names where its text and mechanism come from.
var messagingErrors = []knownError{
	{class: "topic-not-created", software: "Kafka",
		signs:     []string{`unknown_topic_or_part`, `unknowntopicorpartitionexception`, `unknown topic or partition`, `this server does not host this topic-partition`},
		mechanism: "the broker answers UNKNOWN_TOPIC_OR_PARTITION for a topic nobody created, and with auto.create.topics.enable=false it never creates one on first use",
		provider:  []settingSpec{{key: `(^|_)auto_create_topics_enable$`, value: `false`}},
		consumer:  []settingSpec{{key: `(^|_)topics?(_name)?$`}},
		fix:       "create the topic, or let the broker create topics on first use",
		source:    "https://kafka.apache.org/documentation/#brokerconfigs_auto.create.topics.enable"},
	{class: "server-limit-reached", software: "Kafka",
		signs: []string{`recordtoolargeexception`, `message_too_large`, `messagesizetoolarge`, `broker: message size too large`,
			`the request included a message larger than the max message size the server will accept`},
		mechanism: "a Kafka broker refuses a record batch larger than its message.max.bytes limit (about 1 MB by default, or the topic's max.message.bytes), and the producer's max.request.size bounds what it sends",
		provider:  []settingSpec{{key: `(^|_)message_max_bytes$`, value: `\d`}, {key: `(^|_)message_max_bytes$`, absent: "1048588 bytes (about 1 MB), the broker's default"}},
		consumer:  []settingSpec{{key: `(^|_)max_request_size$`, value: `\d`}},
		runs:      `kafka`,
		fix:       "raise message.max.bytes on the broker (and max.request.size on the producer, fetch.max.bytes on consumers) or send smaller records",
		source:    "https://kafka.apache.org/documentation/#brokerconfigs_message.max.bytes"},
	{class: "server-limit-reached", software: "Kafka",
		signs:     []string{`not_enough_replicas`, `notenoughreplicas(afterappend)?exception`, `messages are rejected since there are fewer in-sync replicas than required`},
		mechanism: "with acks=all a Kafka broker accepts a write only when at least min.insync.replicas copies of the partition are in sync, so a limit above the number of brokers that run refuses every write",
		provider:  []settingSpec{{key: `(^|_)min_insync_replicas$`, value: `^\d{1,3}$`, overReplicas: true}},
		consumer:  []settingSpec{{key: `(^|_)min_insync_replicas$`, value: `^\d{1,3}$`, overReplicas: true}, {key: `(^|_)acks$`}},
		fix:       "set min.insync.replicas at most the brokers that run (and below the topic's replication factor), or run more brokers",
		source:    "https://kafka.apache.org/documentation/#brokerconfigs_min.insync.replicas"},
	{class: "server-limit-reached", software: "Kafka",
		signs:     []string{`does not meet the required replication factor '?\d{1,3}'? for the offsets topic`},
		mechanism: "a Kafka broker creates the consumer offsets topic on first use with offsets.topic.replication.factor copies (3 by default), and cannot while fewer brokers run, so every consumer group waits for a coordinator: a limit a single-broker install never meets",
		provider:  kafkaOffsetsRF, consumer: kafkaOffsetsRF,
		runs:   `kafka`,
		fix:    "set offsets.topic.replication.factor (and transaction.state.log.replication.factor) at most the brokers that run, or run more brokers",
		source: "https://kafka.apache.org/documentation/#brokerconfigs_offsets.topic.replication.factor"},
	// A client only sees the coordinator missing, which a starting broker also causes: only
	// a factor written above the brokers explains it (images differ in their default).
	{class: "server-limit-reached", software: "Kafka",
		signs:     []string{`coordinator_not_available`, `the coordinator is not available`, `group coordinator not available`},
		mechanism: "a Kafka broker creates the consumer offsets topic on first use with offsets.topic.replication.factor copies, and cannot while fewer brokers run, so every consumer group waits for a coordinator: a limit above the brokers is never met",
		provider:  kafkaOffsetsRF[:1], consumer: kafkaOffsetsRF[:1],
		fix:    "set offsets.topic.replication.factor (and transaction.state.log.replication.factor) at most the brokers that run, or run more brokers",
		source: "https://kafka.apache.org/documentation/#brokerconfigs_offsets.topic.replication.factor"},
	{class: "server-limit-reached", software: "Kafka",
		signs:     []string{`replication factor: \d{1,3} larger than available brokers: \d{1,3}`, `invalid_replication_factor`, `invalidreplicationfactorexception`},
		mechanism: "Kafka refuses to create a topic with more copies (its replication factor) than brokers run, so a topic the client or the broker default asks for with a larger factor is never created: the number of brokers is the limit",
		provider:  []settingSpec{{key: `(^|_)default_replication_factor$`, value: `^\d{1,3}$`, overReplicas: true}},
		consumer:  []settingSpec{{key: `replication_factor$`, value: `^\d{1,3}$`, overReplicas: true}},
		fix:       "ask for a replication factor at most the brokers that run (default.replication.factor, the client's topic settings), or run more brokers",
		source:    "https://kafka.apache.org/documentation/#brokerconfigs_default.replication.factor"},
	{class: "client-connection-setting", software: "Kafka",
		signs:     []string{`unsupportedsaslmechanismexception`, `client sasl mechanism '?[a-z0-9_-]{1,30}'? not enabled in the server`, `unsupported sasl mechanism`},
		mechanism: "a Kafka broker accepts only the SASL mechanisms its listener enables (sasl.enabled.mechanisms), and refuses a connection whose client asks for another (PLAIN against SCRAM-SHA-512, for one)",
		provider:  []settingSpec{{key: `(^|_)sasl_enabled_mechanisms$`, value: `\S`}},
		consumer:  []settingSpec{{key: `(^|_)sasl_mechanisms?$`, value: `\S`}},
		fix:       "make the client's sasl.mechanism one the broker enables",
		source:    "https://kafka.apache.org/documentation/#security_sasl_config"},
	{class: "request-timeout-setting", software: "Kafka",
		signs:     []string{`commitfailedexception`, `longer than the configured max\.poll\.interval\.ms`, `application maximum poll interval \(\d{1,9}ms\) exceeded`},
		mechanism: "a Kafka consumer that takes longer than max.poll.interval.ms between two poll() calls (a timeout of 5 minutes by default) is dropped from its group and its partitions are reassigned, so its offset commit fails; each poll hands it max.poll.records records to process",
		consumer: []settingSpec{{key: `(^|_)max_poll_interval_ms$`, value: `\d`}, {key: `(^|_)max_poll_records$`, value: `\d`},
			{key: `(^|_)max_poll_interval_ms$`, absent: "300000 ms (5 minutes), the default"}},
		fix:    "raise max.poll.interval.ms or lower max.poll.records so one batch is processed in time",
		source: "https://kafka.apache.org/documentation/#consumerconfigs_max.poll.interval.ms"},
	{class: "server-limit-reached", software: "RabbitMQ",
		signs:     []string{`memory resource limit alarm set on node`, `blocked by (the )?broker: low on memory`},
		mechanism: "RabbitMQ blocks every publishing connection while its memory use is above vm_memory_high_watermark (a limit of 0.6 of the memory it sees by default, 0.4 before 3.13), until consumers drain the queues",
		provider:  rabbitMemory, consumer: rabbitMemory,
		runs:   `rabbitmq`,
		fix:    "drain or bound the queues (consumers, max-length), or raise the container's memory limit with the watermark",
		source: "https://www.rabbitmq.com/docs/memory"},
	{class: "server-limit-reached", software: "RabbitMQ",
		signs:     []string{`disk resource limit alarm set on node`, `blocked by (the )?broker: low on disk`, `connection blocked.{0,60}\breason: low on disk`, `free disk space is insufficient`},
		mechanism: "RabbitMQ blocks every publishing connection while the free space of its data volume is below disk_free_limit (a limit of 50MB by default), until messages are consumed or the volume grows",
		provider:  rabbitDisk, consumer: rabbitDisk,
		runs:   `rabbitmq`,
		fix:    "grow the broker's data volume or drain its queues; set disk_free_limit to what the volume can keep free",
		source: "https://www.rabbitmq.com/docs/disk-alarms"},
	{class: "server-access-rule", software: "Postfix",
		signs:     []string{`relay access denied`},
		mechanism: "an SMTP relay such as Postfix forwards mail to other domains only for clients inside its mynetworks (or clients that authenticate, smtpd_relay_restrictions) and refuses every other client (554 5.7.1 Relay access denied), such as pods whose addresses lie outside the networks it lists",
		provider:  []settingSpec{{key: `(^|_)mynetworks$`, value: `\S`}, {key: `(^|_)(mynetworks|relay_networks)$`, name: "mynetworks", absent: "Postfix's default mynetworks: only the server's own subnet"}},
		runs:      `postfix|smtp|exim|relay`,
		fix:       "add the pod network's CIDR to the relay's mynetworks (or have the client authenticate)",
		source:    "https://www.postfix.org/postconf.5.html#mynetworks; https://www.postfix.org/SMTPD_ACCESS_README.html"},
	{class: "server-access-rule", software: "RabbitMQ",
		signs:     []string{`user '?guest'? can only connect via localhost`, `access_refused - login was refused using authentication mechanism plain`},
		mechanism: "RabbitMQ lets its default user guest connect only from localhost (loopback_users), so it refuses a client in another pod that logs in as guest, even with the right password",
		provider:  []settingSpec{{key: `(^|_)loopback_users(_guest)?$`, value: `guest|true`}},
		consumer: []settingSpec{{key: `(url|uri|dsn)$`, value: `^amqps?://guest:`},
			{key: `(^|_)(rabbitmq_|amqp_|broker_)?(default_)?user(name)?$`, value: `^guest$`}},
		fix:    "create a user for the application on the broker and put it in the client's URL (or, for a test broker only, loopback_users.guest = false)",
		source: "https://www.rabbitmq.com/docs/access-control#loopback-users"},
}

var kafkaOffsetsRF = []settingSpec{{key: `(^|_)offsets_topic_replication_factor$`, value: `^\d{1,3}$`, overReplicas: true},
	{key: `(^|_)offsets_topic_replication_factor$`, absent: "3 copies of the offsets topic, the default", overReplicas: true}}

var (
	rabbitMemory = []settingSpec{{key: `(^|_)vm_memory_high_watermark(_relative|_absolute)?$`, value: `\S`},
		{key: `(^|_)vm_memory_high_watermark(_relative|_absolute)?$`, name: "vm_memory_high_watermark", absent: "0.6 of the memory RabbitMQ sees (0.4 before 3.13)"}}
	rabbitDisk = []settingSpec{{key: `(^|_)disk_free_limit(_absolute|_relative)?$`, value: `\S`},
		{key: `(^|_)disk_free_limit(_absolute|_relative)?$`, name: "disk_free_limit", absent: "50MB, the default disk_free_limit"}}
)
