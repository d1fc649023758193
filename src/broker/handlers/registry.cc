// Every API ketch serves, with the versions it serves: the map of the protocol.
// ApiVersions answers from this table; the dispatcher refuses what is not here.
#include <array>

#include "broker/handlers/handlers.h"

namespace ketch::broker {

using namespace kafka;

namespace {

// A row: the API whose messages are <api>_request and <api>_response, its
// handler handle_<api>, the versions it serves and its error builder.
#define KETCH_API(api, min, max, error) entry<api##_request, api##_response, &handle_##api, min, max, error>()

constexpr handler_entry k_handlers[] = {
    // clang-format off
    //        api, min and max served version, error builder: the API's own (&<api>_error, beside
    //        its handler) or, where Kafka's getErrorResponse answers the top-level error alone,
    //        top_level::error or top_level::error_and_message (handler.h)
    KETCH_API(produce, 3, 13, &produce_error),
    KETCH_API(fetch, 4, 18, &fetch_error),
    KETCH_API(list_offsets, 1, 11, &list_offsets_error),
    KETCH_API(metadata, 0, 13, &metadata_error),
    KETCH_API(offset_commit, 2, 10, &offset_commit_error),
    KETCH_API(offset_fetch, 1, 10, &offset_fetch_error),
    KETCH_API(find_coordinator, 0, 6, &find_coordinator_error),
    KETCH_API(join_group, 0, 9, top_level::error),
    KETCH_API(heartbeat, 0, 4, top_level::error),
    KETCH_API(leave_group, 0, 5, top_level::error),
    KETCH_API(sync_group, 0, 5, top_level::error),
    KETCH_API(describe_groups, 0, 6, &describe_groups_error),
    KETCH_API(list_groups, 0, 5, top_level::error),
    KETCH_API(sasl_handshake, 0, 1, top_level::error),
    // UNSUPPORTED_VERSION has its own answer (unsupported_api_versions, dispatcher.cc).
    KETCH_API(api_versions, 0, 4, top_level::error),
    KETCH_API(create_topics, 2, 7, &create_topics_error),
    KETCH_API(delete_topics, 1, 6, &delete_topics_error),
    KETCH_API(delete_records, 0, 2, &delete_records_error),
    KETCH_API(init_producer_id, 0, 5, &init_producer_id_error),
    KETCH_API(sasl_authenticate, 0, 2, top_level::error_and_message),
    KETCH_API(offset_for_leader_epoch, 2, 4, &offset_for_leader_epoch_error),
    KETCH_API(describe_acls, 1, 3, top_level::error_and_message),
    KETCH_API(create_acls, 1, 3, &create_acls_error),
    KETCH_API(delete_acls, 1, 3, &delete_acls_error),
    KETCH_API(describe_configs, 1, 4, &describe_configs_error),
    KETCH_API(alter_configs, 0, 2, &alter_configs_error),
    // v1-2 have no error field: an empty answer.
    KETCH_API(describe_log_dirs, 1, 5, top_level::error),
    KETCH_API(alter_replica_log_dirs, 1, 2, &alter_replica_log_dirs_error),
    KETCH_API(create_partitions, 0, 3, &create_partitions_error),
    KETCH_API(create_delegation_token, 1, 3, &create_delegation_token_error),
    KETCH_API(renew_delegation_token, 1, 2, top_level::error),
    KETCH_API(expire_delegation_token, 1, 2, top_level::error),
    KETCH_API(describe_delegation_token, 1, 3, top_level::error),
    KETCH_API(add_partitions_to_txn, 0, 5, &add_partitions_to_txn_error),
    KETCH_API(add_offsets_to_txn, 0, 4, top_level::error),
    KETCH_API(end_txn, 0, 5, top_level::error),
    KETCH_API(txn_offset_commit, 0, 5, &txn_offset_commit_error),
    KETCH_API(delete_groups, 0, 2, &delete_groups_error),
    KETCH_API(elect_leaders, 0, 2, &elect_leaders_error),
    KETCH_API(incremental_alter_configs, 0, 1, &incremental_alter_configs_error),
    KETCH_API(alter_partition_reassignments, 0, 1, &alter_partition_reassignments_error),
    KETCH_API(list_partition_reassignments, 0, 0, &list_partition_reassignments_error),
    KETCH_API(offset_delete, 0, 0, top_level::error),
    KETCH_API(describe_client_quotas, 0, 1, &describe_client_quotas_error),
    KETCH_API(alter_client_quotas, 0, 1, &alter_client_quotas_error),
    KETCH_API(describe_user_scram_credentials, 0, 0, &describe_user_scram_credentials_error),
    KETCH_API(alter_user_scram_credentials, 0, 0, &alter_user_scram_credentials_error),
    KETCH_API(describe_quorum, 0, 2, &describe_quorum_error),
    // UpdateFeaturesResponse.createWithErrors: no per-feature results.
    KETCH_API(update_features, 0, 2, top_level::error_and_message),
    KETCH_API(describe_cluster, 0, 2, top_level::error_and_message),
    KETCH_API(describe_producers, 0, 0, &describe_producers_error),
    KETCH_API(describe_transactions, 0, 0, &describe_transactions_error),
    KETCH_API(list_transactions, 0, 2, top_level::error),
    KETCH_API(consumer_group_heartbeat, 0, 1, top_level::error),
    KETCH_API(consumer_group_describe, 0, 1, &consumer_group_describe_error),
    KETCH_API(get_telemetry_subscriptions, 0, 0, top_level::error),
    KETCH_API(push_telemetry, 0, 0, top_level::error),
    KETCH_API(list_config_resources, 0, 1, top_level::error),
    KETCH_API(describe_topic_partitions, 0, 0, &describe_topic_partitions_error),
    KETCH_API(share_group_heartbeat, 1, 1, top_level::error_and_message),
    KETCH_API(share_group_describe, 1, 1, &share_group_describe_error),
    KETCH_API(share_fetch, 1, 2, top_level::error_and_message),
    KETCH_API(share_acknowledge, 1, 2, top_level::error_and_message),
    KETCH_API(streams_group_heartbeat, 0, 0, top_level::error_and_message),
    KETCH_API(streams_group_describe, 0, 0, &streams_group_describe_error),
    KETCH_API(describe_share_group_offsets, 0, 1, &describe_share_group_offsets_error),
    KETCH_API(alter_share_group_offsets, 0, 0, top_level::error_and_message),
    KETCH_API(delete_share_group_offsets, 0, 0, top_level::error_and_message),
    // clang-format on
};

#undef KETCH_API

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
