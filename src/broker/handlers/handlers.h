// Declarations of every API handler (one file per API key: NN_<api>.cc) and
// of the error builders of their own.
#pragma once

#include "broker/handler.h"
#include "broker/handlers/error_rows.h"
#include "protocol/messages/add_offsets_to_txn.h"
#include "protocol/messages/add_partitions_to_txn.h"
#include "protocol/messages/alter_client_quotas.h"
#include "protocol/messages/alter_configs.h"
#include "protocol/messages/alter_partition_reassignments.h"
#include "protocol/messages/alter_replica_log_dirs.h"
#include "protocol/messages/alter_share_group_offsets.h"
#include "protocol/messages/alter_user_scram_credentials.h"
#include "protocol/messages/api_table.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/consumer_group_describe.h"
#include "protocol/messages/consumer_group_heartbeat.h"
#include "protocol/messages/create_acls.h"
#include "protocol/messages/create_delegation_token.h"
#include "protocol/messages/create_partitions.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/delete_acls.h"
#include "protocol/messages/delete_groups.h"
#include "protocol/messages/delete_records.h"
#include "protocol/messages/delete_share_group_offsets.h"
#include "protocol/messages/delete_topics.h"
#include "protocol/messages/describe_acls.h"
#include "protocol/messages/describe_client_quotas.h"
#include "protocol/messages/describe_cluster.h"
#include "protocol/messages/describe_configs.h"
#include "protocol/messages/describe_delegation_token.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/describe_log_dirs.h"
#include "protocol/messages/describe_producers.h"
#include "protocol/messages/describe_quorum.h"
#include "protocol/messages/describe_share_group_offsets.h"
#include "protocol/messages/describe_topic_partitions.h"
#include "protocol/messages/describe_transactions.h"
#include "protocol/messages/describe_user_scram_credentials.h"
#include "protocol/messages/elect_leaders.h"
#include "protocol/messages/end_txn.h"
#include "protocol/messages/expire_delegation_token.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/get_telemetry_subscriptions.h"
#include "protocol/messages/heartbeat.h"
#include "protocol/messages/incremental_alter_configs.h"
#include "protocol/messages/init_producer_id.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/leave_group.h"
#include "protocol/messages/list_config_resources.h"
#include "protocol/messages/list_groups.h"
#include "protocol/messages/list_offsets.h"
#include "protocol/messages/list_partition_reassignments.h"
#include "protocol/messages/list_transactions.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/offset_commit.h"
#include "protocol/messages/offset_delete.h"
#include "protocol/messages/offset_fetch.h"
#include "protocol/messages/offset_for_leader_epoch.h"
#include "protocol/messages/produce.h"
#include "protocol/messages/push_telemetry.h"
#include "protocol/messages/renew_delegation_token.h"
#include "protocol/messages/sasl_authenticate.h"
#include "protocol/messages/sasl_handshake.h"
#include "protocol/messages/share_acknowledge.h"
#include "protocol/messages/share_fetch.h"
#include "protocol/messages/share_group_describe.h"
#include "protocol/messages/share_group_heartbeat.h"
#include "protocol/messages/streams_group_describe.h"
#include "protocol/messages/streams_group_heartbeat.h"
#include "protocol/messages/sync_group.h"
#include "protocol/messages/txn_offset_commit.h"
#include "protocol/messages/update_features.h"

namespace ketch::broker {

// handle_<api>: the handler of the API whose messages are kafka::<api>_request
// and kafka::<api>_response (handler.h), in its file NN_<api>.cc.
#define KETCH_HANDLER(api) awaitable<kafka::api##_response> handle_##api(request_context&, kafka::api##_request&)
// <api>_error: the API's own error builder (handler.h), at the end of its file.
#define KETCH_ERROR_BUILDER(api) \
    std::optional<kafka::api##_response> api##_error(const kafka::api##_request&, int16_t, const error_answer&)

KETCH_HANDLER(api_versions);
// ApiVersions at a version ketch does not serve: v0-shaped UNSUPPORTED_VERSION (KIP-511).
net::handler_result unsupported_api_versions(request_context&);

KETCH_HANDLER(produce);
KETCH_HANDLER(fetch);
KETCH_HANDLER(list_offsets);
KETCH_HANDLER(metadata);
KETCH_HANDLER(create_topics);
KETCH_HANDLER(delete_topics);
KETCH_HANDLER(init_producer_id);
KETCH_HANDLER(delete_records);
KETCH_HANDLER(describe_cluster);
KETCH_HANDLER(describe_producers);
KETCH_HANDLER(find_coordinator);

// SASL (security/sasl_session.h) and SCRAM credentials (meta/credential_store.h).
KETCH_HANDLER(sasl_handshake);
KETCH_HANDLER(sasl_authenticate);
KETCH_HANDLER(describe_acls);
KETCH_HANDLER(create_acls);
KETCH_HANDLER(delete_acls);
KETCH_HANDLER(describe_client_quotas);
KETCH_HANDLER(alter_client_quotas);
KETCH_HANDLER(describe_user_scram_credentials);
KETCH_HANDLER(alter_user_scram_credentials);
// Configs and partition administration.
KETCH_HANDLER(describe_configs);
KETCH_HANDLER(alter_configs);
KETCH_HANDLER(incremental_alter_configs);
KETCH_HANDLER(create_partitions);
KETCH_HANDLER(describe_log_dirs);
KETCH_HANDLER(alter_replica_log_dirs);
KETCH_HANDLER(describe_quorum);
KETCH_HANDLER(offset_for_leader_epoch);
KETCH_HANDLER(elect_leaders);
KETCH_HANDLER(alter_partition_reassignments);
KETCH_HANDLER(list_partition_reassignments);
KETCH_HANDLER(describe_topic_partitions);
KETCH_HANDLER(update_features);
KETCH_HANDLER(list_config_resources);
// KIP-714 client telemetry (telemetry/client_metrics_manager.h); only with the console.
KETCH_HANDLER(get_telemetry_subscriptions);
KETCH_HANDLER(push_telemetry);

// The group coordinator's APIs (group/coordinator.h).
KETCH_HANDLER(offset_commit);
KETCH_HANDLER(offset_fetch);
KETCH_HANDLER(join_group);
KETCH_HANDLER(heartbeat);
KETCH_HANDLER(leave_group);
KETCH_HANDLER(sync_group);
KETCH_HANDLER(describe_groups);
KETCH_HANDLER(list_groups);
KETCH_HANDLER(delete_groups);
KETCH_HANDLER(offset_delete);
KETCH_HANDLER(consumer_group_heartbeat);
KETCH_HANDLER(consumer_group_describe);
KETCH_HANDLER(share_group_heartbeat);
KETCH_HANDLER(share_group_describe);
KETCH_HANDLER(streams_group_heartbeat);
KETCH_HANDLER(streams_group_describe);
KETCH_HANDLER(share_fetch);
KETCH_HANDLER(share_acknowledge);
KETCH_HANDLER(describe_share_group_offsets);
KETCH_HANDLER(alter_share_group_offsets);
KETCH_HANDLER(delete_share_group_offsets);

// The client's address as Kafka shows it to group APIs (InetAddress.toString()
// without a host name): "/127.0.0.1". `peer` is "ip:port" (11_join_group.cc).
std::string java_client_host(const std::string& peer);

// The transaction coordinator's APIs (txn/coordinator.h).
KETCH_HANDLER(add_partitions_to_txn);
KETCH_HANDLER(add_offsets_to_txn);
KETCH_HANDLER(end_txn);
KETCH_HANDLER(txn_offset_commit);
KETCH_HANDLER(describe_transactions);
KETCH_HANDLER(list_transactions);
// The group's partition of __consumer_offsets (GroupCoordinator.partitionFor, 50 partitions).
int32_t offsets_partition_for(const std::string& group_id);

// The error builders of the APIs whose error response has rows (handler.h's
// error column; the others answer top_level_error), at the end of each
// handler file: the response refusing the request with one error.
KETCH_ERROR_BUILDER(produce);
KETCH_ERROR_BUILDER(fetch);
KETCH_ERROR_BUILDER(list_offsets);
KETCH_ERROR_BUILDER(metadata);
KETCH_ERROR_BUILDER(offset_commit);
KETCH_ERROR_BUILDER(offset_fetch);
KETCH_ERROR_BUILDER(find_coordinator);
KETCH_ERROR_BUILDER(describe_groups);
KETCH_ERROR_BUILDER(create_topics);
KETCH_ERROR_BUILDER(delete_topics);
KETCH_ERROR_BUILDER(delete_records);
KETCH_ERROR_BUILDER(init_producer_id);
KETCH_ERROR_BUILDER(offset_for_leader_epoch);
KETCH_ERROR_BUILDER(add_partitions_to_txn);
KETCH_ERROR_BUILDER(txn_offset_commit);
KETCH_ERROR_BUILDER(create_acls);
KETCH_ERROR_BUILDER(delete_acls);
KETCH_ERROR_BUILDER(describe_configs);
KETCH_ERROR_BUILDER(alter_configs);
KETCH_ERROR_BUILDER(alter_replica_log_dirs);
KETCH_ERROR_BUILDER(describe_quorum);
KETCH_ERROR_BUILDER(create_partitions);
KETCH_ERROR_BUILDER(delete_groups);
KETCH_ERROR_BUILDER(elect_leaders);
KETCH_ERROR_BUILDER(incremental_alter_configs);
KETCH_ERROR_BUILDER(alter_partition_reassignments);
KETCH_ERROR_BUILDER(list_partition_reassignments);
KETCH_ERROR_BUILDER(describe_client_quotas);
KETCH_ERROR_BUILDER(alter_client_quotas);
KETCH_ERROR_BUILDER(describe_user_scram_credentials);
KETCH_ERROR_BUILDER(alter_user_scram_credentials);
KETCH_ERROR_BUILDER(describe_producers);
KETCH_ERROR_BUILDER(describe_transactions);
KETCH_ERROR_BUILDER(consumer_group_describe);
KETCH_ERROR_BUILDER(share_group_describe);
KETCH_ERROR_BUILDER(streams_group_describe);
KETCH_ERROR_BUILDER(describe_share_group_offsets);
KETCH_ERROR_BUILDER(describe_topic_partitions);

// Delegation tokens (security/delegation_tokens.h).
KETCH_HANDLER(create_delegation_token);
KETCH_HANDLER(renew_delegation_token);
KETCH_HANDLER(expire_delegation_token);
KETCH_HANDLER(describe_delegation_token);

KETCH_ERROR_BUILDER(create_delegation_token);

#undef KETCH_HANDLER
#undef KETCH_ERROR_BUILDER

}  // namespace ketch::broker
