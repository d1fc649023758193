#include "base/error_code.h"

#include <array>

namespace ketch {
namespace {

struct error_entry {
    error_code code;
    std::string_view name;
    std::string_view message;
};

// Indexed by code - k_min_error_code; the codes are contiguous.
constexpr std::array k_errors{
    error_entry{error_code::unknown_server_error, "UNKNOWN_SERVER_ERROR",
                "The server hit an unexpected error while handling the request."},
    error_entry{error_code::none, "NONE", "No error."},
    error_entry{error_code::offset_out_of_range, "OFFSET_OUT_OF_RANGE",
                "The requested offset lies outside the range of offsets the server holds."},
    error_entry{error_code::corrupt_message, "CORRUPT_MESSAGE",
                "The message failed its CRC check, has an invalid size, or is otherwise corrupt."},
    error_entry{error_code::unknown_topic_or_partition, "UNKNOWN_TOPIC_OR_PARTITION",
                "This server hosts no such topic-partition."},
    error_entry{error_code::invalid_fetch_size, "INVALID_FETCH_SIZE", "The requested fetch size is not valid."},
    error_entry{error_code::leader_not_available, "LEADER_NOT_AVAILABLE",
                "The topic-partition has no leader at the moment; an election is under way."},
    error_entry{error_code::not_leader_or_follower, "NOT_LEADER_OR_FOLLOWER",
                "This broker is not the leader (or, for replica requests, not a replica) of the topic-partition."},
    error_entry{error_code::request_timed_out, "REQUEST_TIMED_OUT", "The request timed out."},
    error_entry{error_code::broker_not_available, "BROKER_NOT_AVAILABLE", "The broker is not available."},
    error_entry{error_code::replica_not_available, "REPLICA_NOT_AVAILABLE",
                "The replica for the requested topic-partition is not available."},
    error_entry{error_code::message_too_large, "MESSAGE_TOO_LARGE",
                "The request held a message larger than the server's maximum message size."},
    error_entry{error_code::stale_controller_epoch, "STALE_CONTROLLER_EPOCH",
                "The controller has moved to another broker."},
    error_entry{error_code::offset_metadata_too_large, "OFFSET_METADATA_TOO_LARGE",
                "The metadata of the offset commit is too large."},
    error_entry{error_code::network_exception, "NETWORK_EXCEPTION",
                "The server disconnected before a response arrived."},
    error_entry{error_code::coordinator_load_in_progress, "COORDINATOR_LOAD_IN_PROGRESS",
                "The coordinator is still loading and cannot serve requests yet."},
    error_entry{error_code::coordinator_not_available, "COORDINATOR_NOT_AVAILABLE",
                "The coordinator is not available."},
    error_entry{error_code::not_coordinator, "NOT_COORDINATOR", "This broker is not the right coordinator."},
    error_entry{error_code::invalid_topic_exception, "INVALID_TOPIC_EXCEPTION",
                "The request refers to an invalid topic."},
    error_entry{error_code::record_list_too_large, "RECORD_LIST_TOO_LARGE",
                "The message batch is larger than the configured segment size."},
    error_entry{error_code::not_enough_replicas, "NOT_ENOUGH_REPLICAS",
                "Rejected because fewer in-sync replicas are available than required."},
    error_entry{error_code::not_enough_replicas_after_append, "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
                "Written to the log, but to fewer in-sync replicas than required."},
    error_entry{error_code::invalid_required_acks, "INVALID_REQUIRED_ACKS",
                "The produce request carries an invalid acks value."},
    error_entry{error_code::illegal_generation, "ILLEGAL_GENERATION", "The group generation id is not valid."},
    error_entry{error_code::inconsistent_group_protocol, "INCONSISTENT_GROUP_PROTOCOL",
                "The member's protocols do not match the group's, or its protocol type or list is empty."},
    error_entry{error_code::invalid_group_id, "INVALID_GROUP_ID", "The group id is not valid."},
    error_entry{error_code::unknown_member_id, "UNKNOWN_MEMBER_ID", "The coordinator does not know this member."},
    error_entry{error_code::invalid_session_timeout, "INVALID_SESSION_TIMEOUT",
                "The session timeout is outside the range the broker allows (group.min.session.timeout.ms .. "
                "group.max.session.timeout.ms)."},
    error_entry{error_code::rebalance_in_progress, "REBALANCE_IN_PROGRESS",
                "The group is rebalancing; the member has to rejoin."},
    error_entry{error_code::invalid_commit_offset_size, "INVALID_COMMIT_OFFSET_SIZE",
                "The size of the committed offset data is not valid."},
    error_entry{error_code::topic_authorization_failed, "TOPIC_AUTHORIZATION_FAILED",
                "Not authorized to access the topic."},
    error_entry{error_code::group_authorization_failed, "GROUP_AUTHORIZATION_FAILED",
                "Not authorized to access the group."},
    error_entry{error_code::cluster_authorization_failed, "CLUSTER_AUTHORIZATION_FAILED",
                "Not authorized to perform the cluster operation."},
    error_entry{error_code::invalid_timestamp, "INVALID_TIMESTAMP",
                "The message timestamp is outside the accepted range."},
    error_entry{error_code::unsupported_sasl_mechanism, "UNSUPPORTED_SASL_MECHANISM",
                "The broker does not support the requested SASL mechanism."},
    error_entry{error_code::illegal_sasl_state, "ILLEGAL_SASL_STATE",
                "The request is not allowed in the current SASL state."},
    error_entry{error_code::unsupported_version, "UNSUPPORTED_VERSION", "This API version is not supported."},
    error_entry{error_code::topic_already_exists, "TOPIC_ALREADY_EXISTS", "A topic with this name already exists."},
    error_entry{error_code::invalid_partitions, "INVALID_PARTITIONS", "The number of partitions is not valid."},
    error_entry{error_code::invalid_replication_factor, "INVALID_REPLICATION_FACTOR",
                "The replication factor is below 1 or above the number of available brokers."},
    error_entry{error_code::invalid_replica_assignment, "INVALID_REPLICA_ASSIGNMENT",
                "The replica assignment is not valid."},
    error_entry{error_code::invalid_config, "INVALID_CONFIG", "The configuration is not valid."},
    error_entry{error_code::not_controller, "NOT_CONTROLLER", "This broker is not the cluster's active controller."},
    error_entry{error_code::invalid_request, "INVALID_REQUEST",
                "The request is malformed or was sent to an incompatible broker."},
    error_entry{error_code::unsupported_for_message_format, "UNSUPPORTED_FOR_MESSAGE_FORMAT",
                "The message format on the broker does not support this request."},
    error_entry{error_code::policy_violation, "POLICY_VIOLATION",
                "The request parameters violate the configured policy."},
    error_entry{error_code::out_of_order_sequence_number, "OUT_OF_ORDER_SEQUENCE_NUMBER",
                "The broker received an out-of-order sequence number."},
    error_entry{error_code::duplicate_sequence_number, "DUPLICATE_SEQUENCE_NUMBER",
                "The broker received a duplicate sequence number."},
    error_entry{error_code::invalid_producer_epoch, "INVALID_PRODUCER_EPOCH", "The producer used an outdated epoch."},
    error_entry{error_code::invalid_txn_state, "INVALID_TXN_STATE",
                "The transactional operation is not valid in the producer's current state."},
    error_entry{error_code::invalid_producer_id_mapping, "INVALID_PRODUCER_ID_MAPPING",
                "The producer id is not the one currently assigned to this transactional id."},
    error_entry{error_code::invalid_transaction_timeout, "INVALID_TRANSACTION_TIMEOUT",
                "The transaction timeout exceeds the broker's maximum (transaction.max.timeout.ms)."},
    error_entry{error_code::concurrent_transactions, "CONCURRENT_TRANSACTIONS",
                "Another operation on the same transaction is still in progress."},
    error_entry{error_code::transaction_coordinator_fenced, "TRANSACTION_COORDINATOR_FENCED",
                "The transaction coordinator that sent the marker is no longer the current one."},
    error_entry{error_code::transactional_id_authorization_failed, "TRANSACTIONAL_ID_AUTHORIZATION_FAILED",
                "Not authorized to use this transactional id."},
    error_entry{error_code::security_disabled, "SECURITY_DISABLED", "Security features are disabled."},
    error_entry{error_code::operation_not_attempted, "OPERATION_NOT_ATTEMPTED",
                "The broker did not attempt this operation because another operation in the batch failed."},
    error_entry{error_code::kafka_storage_error, "KAFKA_STORAGE_ERROR",
                "A disk error occurred while accessing the log."},
    error_entry{error_code::log_dir_not_found, "LOG_DIR_NOT_FOUND",
                "The requested log directory is not in the broker's configuration."},
    error_entry{error_code::sasl_authentication_failed, "SASL_AUTHENTICATION_FAILED", "SASL authentication failed."},
    error_entry{error_code::unknown_producer_id, "UNKNOWN_PRODUCER_ID",
                "The broker holds no state for this producer id (for example, its records have expired)."},
    error_entry{error_code::reassignment_in_progress, "REASSIGNMENT_IN_PROGRESS",
                "A partition reassignment is in progress."},
    error_entry{error_code::delegation_token_auth_disabled, "DELEGATION_TOKEN_AUTH_DISABLED",
                "Delegation tokens are not enabled."},
    error_entry{error_code::delegation_token_not_found, "DELEGATION_TOKEN_NOT_FOUND",
                "The delegation token was not found."},
    error_entry{error_code::delegation_token_owner_mismatch, "DELEGATION_TOKEN_OWNER_MISMATCH",
                "The principal is not the token's owner or renewer."},
    error_entry{error_code::delegation_token_request_not_allowed, "DELEGATION_TOKEN_REQUEST_NOT_ALLOWED",
                "Delegation token requests are not allowed on this kind of channel."},
    error_entry{error_code::delegation_token_authorization_failed, "DELEGATION_TOKEN_AUTHORIZATION_FAILED",
                "Delegation token authorization failed."},
    error_entry{error_code::delegation_token_expired, "DELEGATION_TOKEN_EXPIRED", "The delegation token has expired."},
    error_entry{error_code::invalid_principal_type, "INVALID_PRINCIPAL_TYPE", "The principal type is not supported."},
    error_entry{error_code::non_empty_group, "NON_EMPTY_GROUP", "The group is not empty."},
    error_entry{error_code::group_id_not_found, "GROUP_ID_NOT_FOUND", "The group does not exist."},
    error_entry{error_code::fetch_session_id_not_found, "FETCH_SESSION_ID_NOT_FOUND",
                "The fetch session id was not found."},
    error_entry{error_code::invalid_fetch_session_epoch, "INVALID_FETCH_SESSION_EPOCH",
                "The fetch session epoch is not valid."},
    error_entry{error_code::listener_not_found, "LISTENER_NOT_FOUND",
                "The leader has no listener matching the one the metadata request arrived on."},
    error_entry{error_code::topic_deletion_disabled, "TOPIC_DELETION_DISABLED", "Topic deletion is disabled."},
    error_entry{error_code::fenced_leader_epoch, "FENCED_LEADER_EPOCH",
                "The leader epoch in the request is older than the broker's."},
    error_entry{error_code::unknown_leader_epoch, "UNKNOWN_LEADER_EPOCH",
                "The leader epoch in the request is newer than the broker's."},
    error_entry{error_code::unsupported_compression_type, "UNSUPPORTED_COMPRESSION_TYPE",
                "The client does not support the compression type of the partition."},
    error_entry{error_code::stale_broker_epoch, "STALE_BROKER_EPOCH", "The broker epoch has changed."},
    error_entry{
        error_code::offset_not_available, "OFFSET_NOT_AVAILABLE",
        "The leader's high watermark has not caught up since the election, so offsets are not yet safe to serve."},
    error_entry{error_code::member_id_required, "MEMBER_ID_REQUIRED",
                "The member needs a member id before it can join the group."},
    error_entry{error_code::preferred_leader_not_available, "PREFERRED_LEADER_NOT_AVAILABLE",
                "The preferred leader is not available."},
    error_entry{error_code::group_max_size_reached, "GROUP_MAX_SIZE_REACHED",
                "The group has reached its maximum size."},
    error_entry{error_code::fenced_instance_id, "FENCED_INSTANCE_ID",
                "Another member with the same group.instance.id has registered with a different member id."},
    error_entry{error_code::eligible_leaders_not_available, "ELIGIBLE_LEADERS_NOT_AVAILABLE",
                "No eligible leader is available for the partition."},
    error_entry{error_code::election_not_needed, "ELECTION_NOT_NEEDED",
                "No leader election is needed for the partition."},
    error_entry{error_code::no_reassignment_in_progress, "NO_REASSIGNMENT_IN_PROGRESS",
                "No partition reassignment is in progress."},
    error_entry{error_code::group_subscribed_to_topic, "GROUP_SUBSCRIBED_TO_TOPIC",
                "Offsets of a topic cannot be deleted while the group is subscribed to it."},
    error_entry{error_code::invalid_record, "INVALID_RECORD",
                "The record failed validation on the broker and was rejected."},
    error_entry{error_code::unstable_offset_commit, "UNSTABLE_OFFSET_COMMIT",
                "There are pending (unstable) offsets that must be resolved first."},
    error_entry{error_code::throttling_quota_exceeded, "THROTTLING_QUOTA_EXCEEDED",
                "The throttling quota was exceeded."},
    error_entry{error_code::producer_fenced, "PRODUCER_FENCED",
                "A newer producer with the same transactional id has fenced this one."},
    error_entry{error_code::resource_not_found, "RESOURCE_NOT_FOUND",
                "The request refers to a resource that does not exist."},
    error_entry{error_code::duplicate_resource, "DUPLICATE_RESOURCE", "The request refers to the same resource twice."},
    error_entry{error_code::unacceptable_credential, "UNACCEPTABLE_CREDENTIAL",
                "The requested credential does not meet the acceptance criteria."},
    error_entry{error_code::inconsistent_voter_set, "INCONSISTENT_VOTER_SET",
                "The sender or the recipient is not one of the expected voters."},
    error_entry{error_code::invalid_update_version, "INVALID_UPDATE_VERSION", "The update version is not valid."},
    error_entry{error_code::feature_update_failed, "FEATURE_UPDATE_FAILED",
                "Finalized features could not be updated because of an unexpected server error."},
    error_entry{error_code::principal_deserialization_failure, "PRINCIPAL_DESERIALIZATION_FAILURE",
                "The principal of the forwarded request could not be deserialized."},
    error_entry{error_code::snapshot_not_found, "SNAPSHOT_NOT_FOUND", "The requested snapshot was not found."},
    error_entry{error_code::position_out_of_range, "POSITION_OUT_OF_RANGE",
                "The requested position is negative or beyond the size of the snapshot."},
    error_entry{error_code::unknown_topic_id, "UNKNOWN_TOPIC_ID", "This server hosts no topic with this id."},
    error_entry{error_code::duplicate_broker_registration, "DUPLICATE_BROKER_REGISTRATION",
                "This broker id is already in use."},
    error_entry{error_code::broker_id_not_registered, "BROKER_ID_NOT_REGISTERED", "The broker id is not registered."},
    error_entry{error_code::inconsistent_topic_id, "INCONSISTENT_TOPIC_ID",
                "The topic id of the log does not match the one in the request."},
    error_entry{error_code::inconsistent_cluster_id, "INCONSISTENT_CLUSTER_ID",
                "The cluster id in the request does not match the server's."},
    error_entry{error_code::transactional_id_not_found, "TRANSACTIONAL_ID_NOT_FOUND",
                "The transactional id was not found."},
    error_entry{error_code::fetch_session_topic_id_error, "FETCH_SESSION_TOPIC_ID_ERROR",
                "The fetch session used topic ids inconsistently."},
    error_entry{error_code::ineligible_replica, "INELIGIBLE_REPLICA", "The new ISR contains an ineligible replica."},
    error_entry{error_code::new_leader_elected, "NEW_LEADER_ELECTED",
                "The partition state was updated, but the leader has changed."},
    error_entry{error_code::offset_moved_to_tiered_storage, "OFFSET_MOVED_TO_TIERED_STORAGE",
                "The requested offset has moved to tiered storage."},
    error_entry{error_code::fenced_member_epoch, "FENCED_MEMBER_EPOCH",
                "The member epoch is fenced; the member must give up its partitions and rejoin."},
    error_entry{error_code::unreleased_instance_id, "UNRELEASED_INSTANCE_ID",
                "The instance id is still held by another member, which must leave first."},
    error_entry{error_code::unsupported_assignor, "UNSUPPORTED_ASSIGNOR",
                "The assignor or its version range is not supported by the group."},
    error_entry{error_code::stale_member_epoch, "STALE_MEMBER_EPOCH",
                "The member epoch is stale; retry once a heartbeat has returned the current epoch."},
    error_entry{error_code::mismatched_endpoint_type, "MISMATCHED_ENDPOINT_TYPE",
                "The request was sent to the wrong type of endpoint."},
    error_entry{error_code::unsupported_endpoint_type, "UNSUPPORTED_ENDPOINT_TYPE",
                "This endpoint type is not supported yet."},
    error_entry{error_code::unknown_controller_id, "UNKNOWN_CONTROLLER_ID", "The controller id is unknown."},
    error_entry{error_code::unknown_subscription_id, "UNKNOWN_SUBSCRIPTION_ID",
                "The telemetry push used an invalid or outdated subscription id."},
    error_entry{error_code::telemetry_too_large, "TELEMETRY_TOO_LARGE",
                "The telemetry push exceeds the maximum size the broker accepts."},
    error_entry{error_code::invalid_registration, "INVALID_REGISTRATION",
                "The controller considers the broker registration invalid."},
    error_entry{error_code::transaction_abortable, "TRANSACTION_ABORTABLE",
                "The transaction hit a server error; the client can abort it and keep using the transactional id."},
    error_entry{error_code::invalid_record_state, "INVALID_RECORD_STATE",
                "The record state is not valid; the delivery acknowledgement failed."},
    error_entry{error_code::share_session_not_found, "SHARE_SESSION_NOT_FOUND", "The share session was not found."},
    error_entry{error_code::invalid_share_session_epoch, "INVALID_SHARE_SESSION_EPOCH",
                "The share session epoch is not valid."},
    error_entry{error_code::fenced_state_epoch, "FENCED_STATE_EPOCH", "The share-group state epoch did not match."},
    error_entry{error_code::invalid_voter_key, "INVALID_VOTER_KEY",
                "The voter key does not match the receiving replica's key."},
    error_entry{error_code::duplicate_voter, "DUPLICATE_VOTER", "The voter is already in the voter set."},
    error_entry{error_code::voter_not_found, "VOTER_NOT_FOUND", "The voter is not in the voter set."},
    error_entry{error_code::invalid_regular_expression, "INVALID_REGULAR_EXPRESSION",
                "The regular expression is not valid."},
    error_entry{error_code::rebootstrap_required, "REBOOTSTRAP_REQUIRED",
                "The client's metadata is stale; it should rebootstrap."},
    error_entry{error_code::streams_invalid_topology, "STREAMS_INVALID_TOPOLOGY", "The topology is not valid."},
    error_entry{error_code::streams_invalid_topology_epoch, "STREAMS_INVALID_TOPOLOGY_EPOCH",
                "The topology epoch is not valid."},
    error_entry{error_code::streams_topology_fenced, "STREAMS_TOPOLOGY_FENCED", "The topology epoch is outdated."},
    error_entry{error_code::share_session_limit_reached, "SHARE_SESSION_LIMIT_REACHED",
                "The share session limit has been reached."},
};

static_assert(k_errors.size() == size_t(k_max_error_code - k_min_error_code + 1));

constexpr bool table_is_dense() {
    for (size_t i = 0; i < k_errors.size(); ++i)
        if (to_int(k_errors[i].code) != int(i) + k_min_error_code) return false;
    return true;
}
static_assert(table_is_dense(), "k_errors must be ordered by code without gaps");

const error_entry* find(error_code e) {
    int v = to_int(e);
    if (v < k_min_error_code || v > k_max_error_code) return nullptr;
    return &k_errors[size_t(v - k_min_error_code)];
}

}  // namespace

std::string_view error_name(error_code e) {
    const error_entry* x = find(e);
    return x ? x->name : std::string_view{};
}

std::string_view error_message(error_code e) {
    const error_entry* x = find(e);
    return x ? x->message : std::string_view{};
}

std::optional<error_code> error_from_name(std::string_view name) {
    for (const error_entry& x : k_errors)
        if (x.name == name) return x.code;
    return std::nullopt;
}

std::optional<error_code> error_from_int(int16_t value) {
    if (value < k_min_error_code || value > k_max_error_code) return std::nullopt;
    return error_code(value);
}

}  // namespace ketch
