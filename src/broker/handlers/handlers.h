// Declarations of every API handler (one file per API key: NN_<api>.cc).
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

awaitable<kafka::api_versions_response> handle_api_versions(request_context&, kafka::api_versions_request&);
// ApiVersions at a version ketch does not serve: v0-shaped UNSUPPORTED_VERSION (KIP-511).
net::handler_result unsupported_api_versions(request_context&);

awaitable<kafka::produce_response> handle_produce(request_context&, kafka::produce_request&);
awaitable<kafka::fetch_response> handle_fetch(request_context&, kafka::fetch_request&);
awaitable<kafka::list_offsets_response> handle_list_offsets(request_context&, kafka::list_offsets_request&);
awaitable<kafka::metadata_response> handle_metadata(request_context&, kafka::metadata_request&);
awaitable<kafka::create_topics_response> handle_create_topics(request_context&, kafka::create_topics_request&);
awaitable<kafka::delete_topics_response> handle_delete_topics(request_context&, kafka::delete_topics_request&);
awaitable<kafka::init_producer_id_response> handle_init_producer_id(request_context&, kafka::init_producer_id_request&);
awaitable<kafka::delete_records_response> handle_delete_records(request_context&, kafka::delete_records_request&);
awaitable<kafka::describe_cluster_response> handle_describe_cluster(request_context&, kafka::describe_cluster_request&);
awaitable<kafka::describe_producers_response> handle_describe_producers(request_context&,
                                                                        kafka::describe_producers_request&);
awaitable<kafka::find_coordinator_response> handle_find_coordinator(request_context&, kafka::find_coordinator_request&);

// SASL (security/sasl_session.h) and SCRAM credentials (meta/credential_store.h).
awaitable<kafka::sasl_handshake_response> handle_sasl_handshake(request_context&, kafka::sasl_handshake_request&);
awaitable<kafka::sasl_authenticate_response> handle_sasl_authenticate(request_context&,
                                                                      kafka::sasl_authenticate_request&);
awaitable<kafka::describe_acls_response> handle_describe_acls(request_context&, kafka::describe_acls_request&);
awaitable<kafka::create_acls_response> handle_create_acls(request_context&, kafka::create_acls_request&);
awaitable<kafka::delete_acls_response> handle_delete_acls(request_context&, kafka::delete_acls_request&);
awaitable<kafka::describe_client_quotas_response> handle_describe_client_quotas(request_context&,
                                                                                kafka::describe_client_quotas_request&);
awaitable<kafka::alter_client_quotas_response> handle_alter_client_quotas(request_context&,
                                                                          kafka::alter_client_quotas_request&);
awaitable<kafka::describe_user_scram_credentials_response> handle_describe_user_scram_credentials(
    request_context&, kafka::describe_user_scram_credentials_request&);
awaitable<kafka::alter_user_scram_credentials_response> handle_alter_user_scram_credentials(
    request_context&, kafka::alter_user_scram_credentials_request&);
// Configs and partition administration.
awaitable<kafka::describe_configs_response> handle_describe_configs(request_context&, kafka::describe_configs_request&);
awaitable<kafka::alter_configs_response> handle_alter_configs(request_context&, kafka::alter_configs_request&);
awaitable<kafka::incremental_alter_configs_response> handle_incremental_alter_configs(
    request_context&, kafka::incremental_alter_configs_request&);
awaitable<kafka::create_partitions_response> handle_create_partitions(request_context&,
                                                                      kafka::create_partitions_request&);
awaitable<kafka::describe_log_dirs_response> handle_describe_log_dirs(request_context&,
                                                                      kafka::describe_log_dirs_request&);
awaitable<kafka::alter_replica_log_dirs_response> handle_alter_replica_log_dirs(request_context&,
                                                                                kafka::alter_replica_log_dirs_request&);
awaitable<kafka::describe_quorum_response> handle_describe_quorum(request_context&, kafka::describe_quorum_request&);
awaitable<kafka::offset_for_leader_epoch_response> handle_offset_for_leader_epoch(
    request_context&, kafka::offset_for_leader_epoch_request&);
awaitable<kafka::elect_leaders_response> handle_elect_leaders(request_context&, kafka::elect_leaders_request&);
awaitable<kafka::alter_partition_reassignments_response> handle_alter_partition_reassignments(
    request_context&, kafka::alter_partition_reassignments_request&);
awaitable<kafka::list_partition_reassignments_response> handle_list_partition_reassignments(
    request_context&, kafka::list_partition_reassignments_request&);
awaitable<kafka::describe_topic_partitions_response> handle_describe_topic_partitions(
    request_context&, kafka::describe_topic_partitions_request&);
awaitable<kafka::update_features_response> handle_update_features(request_context&, kafka::update_features_request&);
awaitable<kafka::list_config_resources_response> handle_list_config_resources(request_context&,
                                                                              kafka::list_config_resources_request&);
// KIP-714 client telemetry (telemetry/client_metrics_manager.h); only with the console.
awaitable<kafka::get_telemetry_subscriptions_response> handle_get_telemetry_subscriptions(
    request_context&, kafka::get_telemetry_subscriptions_request&);
awaitable<kafka::push_telemetry_response> handle_push_telemetry(request_context&, kafka::push_telemetry_request&);

// The group coordinator's APIs (group/coordinator.h).
awaitable<kafka::offset_commit_response> handle_offset_commit(request_context&, kafka::offset_commit_request&);
awaitable<kafka::offset_fetch_response> handle_offset_fetch(request_context&, kafka::offset_fetch_request&);
awaitable<kafka::join_group_response> handle_join_group(request_context&, kafka::join_group_request&);
awaitable<kafka::heartbeat_response> handle_heartbeat(request_context&, kafka::heartbeat_request&);
awaitable<kafka::leave_group_response> handle_leave_group(request_context&, kafka::leave_group_request&);
awaitable<kafka::sync_group_response> handle_sync_group(request_context&, kafka::sync_group_request&);
awaitable<kafka::describe_groups_response> handle_describe_groups(request_context&, kafka::describe_groups_request&);
awaitable<kafka::list_groups_response> handle_list_groups(request_context&, kafka::list_groups_request&);
awaitable<kafka::delete_groups_response> handle_delete_groups(request_context&, kafka::delete_groups_request&);
awaitable<kafka::offset_delete_response> handle_offset_delete(request_context&, kafka::offset_delete_request&);
awaitable<kafka::consumer_group_heartbeat_response> handle_consumer_group_heartbeat(
    request_context&, kafka::consumer_group_heartbeat_request&);
awaitable<kafka::consumer_group_describe_response> handle_consumer_group_describe(
    request_context&, kafka::consumer_group_describe_request&);
awaitable<kafka::share_group_heartbeat_response> handle_share_group_heartbeat(request_context&,
                                                                              kafka::share_group_heartbeat_request&);
awaitable<kafka::share_group_describe_response> handle_share_group_describe(request_context&,
                                                                            kafka::share_group_describe_request&);
awaitable<kafka::streams_group_heartbeat_response> handle_streams_group_heartbeat(
    request_context&, kafka::streams_group_heartbeat_request&);
awaitable<kafka::streams_group_describe_response> handle_streams_group_describe(request_context&,
                                                                                kafka::streams_group_describe_request&);
awaitable<kafka::share_fetch_response> handle_share_fetch(request_context&, kafka::share_fetch_request&);
awaitable<kafka::share_acknowledge_response> handle_share_acknowledge(request_context&,
                                                                      kafka::share_acknowledge_request&);
awaitable<kafka::describe_share_group_offsets_response> handle_describe_share_group_offsets(
    request_context&, kafka::describe_share_group_offsets_request&);
awaitable<kafka::alter_share_group_offsets_response> handle_alter_share_group_offsets(
    request_context&, kafka::alter_share_group_offsets_request&);
awaitable<kafka::delete_share_group_offsets_response> handle_delete_share_group_offsets(
    request_context&, kafka::delete_share_group_offsets_request&);

// The client's address as Kafka shows it to group APIs (InetAddress.toString()
// without a host name): "/127.0.0.1". `peer` is "ip:port" (11_join_group.cc).
std::string java_client_host(const std::string& peer);

// The transaction coordinator's APIs (txn/coordinator.h).
awaitable<kafka::add_partitions_to_txn_response> handle_add_partitions_to_txn(request_context&,
                                                                              kafka::add_partitions_to_txn_request&);
awaitable<kafka::add_offsets_to_txn_response> handle_add_offsets_to_txn(request_context&,
                                                                        kafka::add_offsets_to_txn_request&);
awaitable<kafka::end_txn_response> handle_end_txn(request_context&, kafka::end_txn_request&);
awaitable<kafka::txn_offset_commit_response> handle_txn_offset_commit(request_context&,
                                                                      kafka::txn_offset_commit_request&);
awaitable<kafka::describe_transactions_response> handle_describe_transactions(request_context&,
                                                                              kafka::describe_transactions_request&);
awaitable<kafka::list_transactions_response> handle_list_transactions(request_context&,
                                                                      kafka::list_transactions_request&);
// The group's partition of __consumer_offsets (GroupCoordinator.partitionFor, 50 partitions).
int32_t offsets_partition_for(const std::string& group_id);

// The error builders of the APIs whose error response has rows (handler.h's
// error column; the others answer top_level_error), at the end of each
// handler file: the response refusing the request with one error.
std::optional<kafka::produce_response> produce_error(const kafka::produce_request&, int16_t, const error_answer&);
std::optional<kafka::fetch_response> fetch_error(const kafka::fetch_request&, int16_t, const error_answer&);
std::optional<kafka::list_offsets_response> list_offsets_error(const kafka::list_offsets_request&, int16_t,
                                                               const error_answer&);
std::optional<kafka::metadata_response> metadata_error(const kafka::metadata_request&, int16_t, const error_answer&);
std::optional<kafka::offset_commit_response> offset_commit_error(const kafka::offset_commit_request&, int16_t,
                                                                 const error_answer&);
std::optional<kafka::offset_fetch_response> offset_fetch_error(const kafka::offset_fetch_request&, int16_t,
                                                               const error_answer&);
std::optional<kafka::find_coordinator_response> find_coordinator_error(const kafka::find_coordinator_request&, int16_t,
                                                                       const error_answer&);
std::optional<kafka::describe_groups_response> describe_groups_error(const kafka::describe_groups_request&, int16_t,
                                                                     const error_answer&);
std::optional<kafka::create_topics_response> create_topics_error(const kafka::create_topics_request&, int16_t,
                                                                 const error_answer&);
std::optional<kafka::delete_topics_response> delete_topics_error(const kafka::delete_topics_request&, int16_t,
                                                                 const error_answer&);
std::optional<kafka::delete_records_response> delete_records_error(const kafka::delete_records_request&, int16_t,
                                                                   const error_answer&);
std::optional<kafka::init_producer_id_response> init_producer_id_error(const kafka::init_producer_id_request&, int16_t,
                                                                       const error_answer&);
std::optional<kafka::offset_for_leader_epoch_response> offset_for_leader_epoch_error(
    const kafka::offset_for_leader_epoch_request&, int16_t, const error_answer&);
std::optional<kafka::add_partitions_to_txn_response> add_partitions_to_txn_error(
    const kafka::add_partitions_to_txn_request&, int16_t, const error_answer&);
std::optional<kafka::txn_offset_commit_response> txn_offset_commit_error(const kafka::txn_offset_commit_request&,
                                                                         int16_t, const error_answer&);
std::optional<kafka::create_acls_response> create_acls_error(const kafka::create_acls_request&, int16_t,
                                                             const error_answer&);
std::optional<kafka::delete_acls_response> delete_acls_error(const kafka::delete_acls_request&, int16_t,
                                                             const error_answer&);
std::optional<kafka::describe_configs_response> describe_configs_error(const kafka::describe_configs_request&, int16_t,
                                                                       const error_answer&);
std::optional<kafka::alter_configs_response> alter_configs_error(const kafka::alter_configs_request&, int16_t,
                                                                 const error_answer&);
std::optional<kafka::alter_replica_log_dirs_response> alter_replica_log_dirs_error(
    const kafka::alter_replica_log_dirs_request&, int16_t, const error_answer&);
std::optional<kafka::describe_quorum_response> describe_quorum_error(const kafka::describe_quorum_request&, int16_t,
                                                                     const error_answer&);
std::optional<kafka::create_partitions_response> create_partitions_error(const kafka::create_partitions_request&,
                                                                         int16_t, const error_answer&);
std::optional<kafka::delete_groups_response> delete_groups_error(const kafka::delete_groups_request&, int16_t,
                                                                 const error_answer&);
std::optional<kafka::elect_leaders_response> elect_leaders_error(const kafka::elect_leaders_request&, int16_t,
                                                                 const error_answer&);
std::optional<kafka::incremental_alter_configs_response> incremental_alter_configs_error(
    const kafka::incremental_alter_configs_request&, int16_t, const error_answer&);
std::optional<kafka::alter_partition_reassignments_response> alter_partition_reassignments_error(
    const kafka::alter_partition_reassignments_request&, int16_t, const error_answer&);
std::optional<kafka::list_partition_reassignments_response> list_partition_reassignments_error(
    const kafka::list_partition_reassignments_request&, int16_t, const error_answer&);
std::optional<kafka::describe_client_quotas_response> describe_client_quotas_error(
    const kafka::describe_client_quotas_request&, int16_t, const error_answer&);
std::optional<kafka::alter_client_quotas_response> alter_client_quotas_error(const kafka::alter_client_quotas_request&,
                                                                             int16_t, const error_answer&);
std::optional<kafka::describe_user_scram_credentials_response> describe_user_scram_credentials_error(
    const kafka::describe_user_scram_credentials_request&, int16_t, const error_answer&);
std::optional<kafka::alter_user_scram_credentials_response> alter_user_scram_credentials_error(
    const kafka::alter_user_scram_credentials_request&, int16_t, const error_answer&);
std::optional<kafka::describe_producers_response> describe_producers_error(const kafka::describe_producers_request&,
                                                                           int16_t, const error_answer&);
std::optional<kafka::describe_transactions_response> describe_transactions_error(
    const kafka::describe_transactions_request&, int16_t, const error_answer&);
std::optional<kafka::consumer_group_describe_response> consumer_group_describe_error(
    const kafka::consumer_group_describe_request&, int16_t, const error_answer&);
std::optional<kafka::share_group_describe_response> share_group_describe_error(
    const kafka::share_group_describe_request&, int16_t, const error_answer&);
std::optional<kafka::streams_group_describe_response> streams_group_describe_error(
    const kafka::streams_group_describe_request&, int16_t, const error_answer&);
std::optional<kafka::describe_share_group_offsets_response> describe_share_group_offsets_error(
    const kafka::describe_share_group_offsets_request&, int16_t, const error_answer&);
std::optional<kafka::describe_topic_partitions_response> describe_topic_partitions_error(
    const kafka::describe_topic_partitions_request&, int16_t, const error_answer&);

}  // namespace ketch::broker
