// Every API ketch serves, with the versions it serves: the map of the protocol.
// ApiVersions answers from this table; the dispatcher refuses what is not here.
#include <array>

#include "broker/handlers/handlers.h"
#include "broker/handlers/token_handlers.h"

namespace ketch::broker {

using namespace kafka;

namespace {
constexpr handler_entry k_handlers[] = {
    // clang-format off
    //    request, response, handler, min and max served version, error builder (its end): the
    //    API's own (<api>_error, beside its handler) or, where Kafka's getErrorResponse answers
    //    the top-level error alone, top_level::error or top_level::error_and_message (handler.h)
    entry<produce_request, produce_response, &handle_produce, 3, 13, &produce_error>(),
    entry<fetch_request, fetch_response, &handle_fetch, 4, 18, &fetch_error>(),
    entry<list_offsets_request, list_offsets_response, &handle_list_offsets, 1, 11, &list_offsets_error>(),
    entry<metadata_request, metadata_response, &handle_metadata, 0, 13, &metadata_error>(),
    entry<offset_commit_request, offset_commit_response, &handle_offset_commit, 2, 10, &offset_commit_error>(),
    entry<offset_fetch_request, offset_fetch_response, &handle_offset_fetch, 1, 10, &offset_fetch_error>(),
    entry<find_coordinator_request, find_coordinator_response,
          &handle_find_coordinator, 0, 6, &find_coordinator_error>(),
    entry<join_group_request, join_group_response, &handle_join_group, 0, 9, top_level::error>(),
    entry<heartbeat_request, heartbeat_response, &handle_heartbeat, 0, 4, top_level::error>(),
    entry<leave_group_request, leave_group_response, &handle_leave_group, 0, 5, top_level::error>(),
    entry<sync_group_request, sync_group_response, &handle_sync_group, 0, 5, top_level::error>(),
    entry<describe_groups_request, describe_groups_response, &handle_describe_groups, 0, 6, &describe_groups_error>(),
    entry<list_groups_request, list_groups_response, &handle_list_groups, 0, 5, top_level::error>(),
    entry<sasl_handshake_request, sasl_handshake_response, &handle_sasl_handshake, 0, 1, top_level::error>(),
    // UNSUPPORTED_VERSION has its own answer (unsupported_api_versions, dispatcher.cc).
    entry<api_versions_request, api_versions_response, &handle_api_versions, 0, 4, top_level::error>(),
    entry<create_topics_request, create_topics_response, &handle_create_topics, 2, 7, &create_topics_error>(),
    entry<delete_topics_request, delete_topics_response, &handle_delete_topics, 1, 6, &delete_topics_error>(),
    entry<delete_records_request, delete_records_response, &handle_delete_records, 0, 2, &delete_records_error>(),
    entry<init_producer_id_request, init_producer_id_response,
          &handle_init_producer_id, 0, 5, &init_producer_id_error>(),
    entry<sasl_authenticate_request, sasl_authenticate_response,
          &handle_sasl_authenticate, 0, 2, top_level::error_and_message>(),
    entry<offset_for_leader_epoch_request, offset_for_leader_epoch_response,
          &handle_offset_for_leader_epoch, 2, 4, &offset_for_leader_epoch_error>(),
    entry<describe_acls_request, describe_acls_response, &handle_describe_acls, 1, 3, top_level::error_and_message>(),
    entry<create_acls_request, create_acls_response, &handle_create_acls, 1, 3, &create_acls_error>(),
    entry<delete_acls_request, delete_acls_response, &handle_delete_acls, 1, 3, &delete_acls_error>(),
    entry<describe_configs_request, describe_configs_response,
          &handle_describe_configs, 1, 4, &describe_configs_error>(),
    entry<alter_configs_request, alter_configs_response, &handle_alter_configs, 0, 2, &alter_configs_error>(),
    // v1-2 have no error field: an empty answer.
    entry<describe_log_dirs_request, describe_log_dirs_response, &handle_describe_log_dirs, 1, 5, top_level::error>(),
    entry<alter_replica_log_dirs_request, alter_replica_log_dirs_response,
          &handle_alter_replica_log_dirs, 1, 2, &alter_replica_log_dirs_error>(),
    entry<create_partitions_request, create_partitions_response,
          &handle_create_partitions, 0, 3, &create_partitions_error>(),
    entry<create_delegation_token_request, create_delegation_token_response,
          &handle_create_delegation_token, 1, 3, &create_delegation_token_error>(),
    entry<renew_delegation_token_request, renew_delegation_token_response,
          &handle_renew_delegation_token, 1, 2, top_level::error>(),
    entry<expire_delegation_token_request, expire_delegation_token_response,
          &handle_expire_delegation_token, 1, 2, top_level::error>(),
    entry<describe_delegation_token_request, describe_delegation_token_response,
          &handle_describe_delegation_token, 1, 3, top_level::error>(),
    entry<add_partitions_to_txn_request, add_partitions_to_txn_response,
          &handle_add_partitions_to_txn, 0, 5, &add_partitions_to_txn_error>(),
    entry<add_offsets_to_txn_request, add_offsets_to_txn_response,
          &handle_add_offsets_to_txn, 0, 4, top_level::error>(),
    entry<end_txn_request, end_txn_response, &handle_end_txn, 0, 5, top_level::error>(),
    entry<txn_offset_commit_request, txn_offset_commit_response,
          &handle_txn_offset_commit, 0, 5, &txn_offset_commit_error>(),
    entry<delete_groups_request, delete_groups_response, &handle_delete_groups, 0, 2, &delete_groups_error>(),
    entry<elect_leaders_request, elect_leaders_response, &handle_elect_leaders, 0, 2, &elect_leaders_error>(),
    entry<incremental_alter_configs_request, incremental_alter_configs_response,
          &handle_incremental_alter_configs, 0, 1, &incremental_alter_configs_error>(),
    entry<alter_partition_reassignments_request, alter_partition_reassignments_response,
          &handle_alter_partition_reassignments, 0, 1, &alter_partition_reassignments_error>(),
    entry<list_partition_reassignments_request, list_partition_reassignments_response,
          &handle_list_partition_reassignments, 0, 0, &list_partition_reassignments_error>(),
    entry<offset_delete_request, offset_delete_response, &handle_offset_delete, 0, 0, top_level::error>(),
    entry<describe_client_quotas_request, describe_client_quotas_response,
          &handle_describe_client_quotas, 0, 1, &describe_client_quotas_error>(),
    entry<alter_client_quotas_request, alter_client_quotas_response,
          &handle_alter_client_quotas, 0, 1, &alter_client_quotas_error>(),
    entry<describe_user_scram_credentials_request, describe_user_scram_credentials_response,
          &handle_describe_user_scram_credentials, 0, 0, &describe_user_scram_credentials_error>(),
    entry<alter_user_scram_credentials_request, alter_user_scram_credentials_response,
          &handle_alter_user_scram_credentials, 0, 0, &alter_user_scram_credentials_error>(),
    entry<describe_quorum_request, describe_quorum_response, &handle_describe_quorum, 0, 2, &describe_quorum_error>(),
    // UpdateFeaturesResponse.createWithErrors: no per-feature results.
    entry<update_features_request, update_features_response, &handle_update_features, 0, 2, top_level::error_and_message>(),
    entry<describe_cluster_request, describe_cluster_response,
          &handle_describe_cluster, 0, 2, top_level::error_and_message>(),
    entry<describe_producers_request, describe_producers_response,
          &handle_describe_producers, 0, 0, &describe_producers_error>(),
    entry<describe_transactions_request, describe_transactions_response,
          &handle_describe_transactions, 0, 0, &describe_transactions_error>(),
    entry<list_transactions_request, list_transactions_response, &handle_list_transactions, 0, 2, top_level::error>(),
    entry<consumer_group_heartbeat_request, consumer_group_heartbeat_response,
          &handle_consumer_group_heartbeat, 0, 1, top_level::error>(),
    entry<consumer_group_describe_request, consumer_group_describe_response,
          &handle_consumer_group_describe, 0, 1, &consumer_group_describe_error>(),
    entry<get_telemetry_subscriptions_request, get_telemetry_subscriptions_response,
          &handle_get_telemetry_subscriptions, 0, 0, top_level::error>(),
    entry<push_telemetry_request, push_telemetry_response, &handle_push_telemetry, 0, 0, top_level::error>(),
    entry<list_config_resources_request, list_config_resources_response,
          &handle_list_config_resources, 0, 1, top_level::error>(),
    entry<describe_topic_partitions_request, describe_topic_partitions_response,
          &handle_describe_topic_partitions, 0, 0, &describe_topic_partitions_error>(),
    entry<share_group_heartbeat_request, share_group_heartbeat_response,
          &handle_share_group_heartbeat, 1, 1, top_level::error_and_message>(),
    entry<share_group_describe_request, share_group_describe_response,
          &handle_share_group_describe, 1, 1, &share_group_describe_error>(),
    entry<share_fetch_request, share_fetch_response, &handle_share_fetch, 1, 2, top_level::error_and_message>(),
    entry<share_acknowledge_request, share_acknowledge_response,
          &handle_share_acknowledge, 1, 2, top_level::error_and_message>(),
    entry<streams_group_heartbeat_request, streams_group_heartbeat_response,
          &handle_streams_group_heartbeat, 0, 0, top_level::error_and_message>(),
    entry<streams_group_describe_request, streams_group_describe_response,
          &handle_streams_group_describe, 0, 0, &streams_group_describe_error>(),
    entry<describe_share_group_offsets_request, describe_share_group_offsets_response,
          &handle_describe_share_group_offsets, 0, 1, &describe_share_group_offsets_error>(),
    entry<alter_share_group_offsets_request, alter_share_group_offsets_response,
          &handle_alter_share_group_offsets, 0, 0, top_level::error_and_message>(),
    entry<delete_share_group_offsets_request, delete_share_group_offsets_response,
          &handle_delete_share_group_offsets, 0, 0, top_level::error_and_message>(),
    // clang-format on
};
}  // namespace

std::span<const handler_entry> served_apis() { return k_handlers; }

bool api_enabled(const broker_context& b, int16_t key) {
    // KIP-714: telemetry only with a receiver (the console), as Kafka's
    // ApiVersionsResponse leaves the two APIs out without a metrics plugin.
    if (key == int16_t(kafka::api_key::get_telemetry_subscriptions) || key == int16_t(kafka::api_key::push_telemetry))
        return b.telemetry != nullptr;
    return true;
}

const handler_entry* find_handler(int16_t key) {
    for (auto& h : k_handlers)
        if (h.key == key) return &h;
    return nullptr;
}

}  // namespace ketch::broker
