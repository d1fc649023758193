// The table of ILLEGAL_SASL_STATE refusals, one entry per API (see
// sasl_refusal.h; recorded: conformance/recordings/acl-sasl-states.json).
#include "broker/sasl_refusal.h"
#include "broker/sasl_refusal_detail.h"

#include <cctype>

#include "protocol/messages/add_offsets_to_txn.h"
#include "protocol/messages/api_table.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/consumer_group_heartbeat.h"
#include "protocol/messages/describe_acls.h"
#include "protocol/messages/describe_cluster.h"
#include "protocol/messages/describe_log_dirs.h"
#include "protocol/messages/end_txn.h"
#include "protocol/messages/heartbeat.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/leave_group.h"
#include "protocol/messages/list_groups.h"
#include "protocol/messages/list_transactions.h"
#include "protocol/messages/offset_delete.h"
#include "protocol/messages/sasl_handshake.h"
#include "protocol/messages/sync_group.h"

namespace ketch::broker {
namespace {

using namespace sasl_refusal_detail;
using namespace kafka;
using k = api_key;

struct refusal_entry {
    api_key api;
    refusal_fn* respond;
};

constexpr auto with_text = with_message::exception;

// Every API Kafka 4.3.1 was recorded answering during SASL authentication.
constexpr refusal_entry k_refusals[] = {
    {k::produce, lists::produce},
    {k::fetch, lists::fetch},
    {k::list_offsets, lists::list_offsets},
    {k::metadata, lists::metadata},
    {k::offset_commit, lists::offset_commit},
    {k::offset_fetch, lists::offset_fetch},
    {k::find_coordinator, lists::find_coordinator},
    {k::join_group, whole<join_group_request, join_group_response>},
    {k::heartbeat, whole<heartbeat_request, heartbeat_response>},
    {k::leave_group, whole<leave_group_request, leave_group_response>},
    {k::sync_group, whole<sync_group_request, sync_group_response>},
    {k::describe_groups, lists::describe_groups},
    {k::list_groups, whole<list_groups_request, list_groups_response>},
    {k::sasl_handshake, whole<sasl_handshake_request, sasl_handshake_response>},
    {k::api_versions, whole<api_versions_request, api_versions_response>},
    {k::create_topics, lists::create_topics},
    {k::delete_topics, lists::delete_topics},
    {k::delete_records, lists::delete_records},
    {k::init_producer_id, lists::init_producer_id},
    {k::offset_for_leader_epoch, lists::offset_for_leader_epoch},
    {k::add_partitions_to_txn, lists::add_partitions_to_txn},
    {k::add_offsets_to_txn, whole<add_offsets_to_txn_request, add_offsets_to_txn_response>},
    {k::end_txn, whole<end_txn_request, end_txn_response>},
    {k::txn_offset_commit, lists::txn_offset_commit},
    {k::describe_acls, whole<describe_acls_request, describe_acls_response, with_text>},
    {k::create_acls, lists::create_acls},
    {k::delete_acls, lists::delete_acls},
    {k::describe_configs, lists::describe_configs},
    {k::alter_configs, lists::alter_configs},
    {k::describe_log_dirs, whole<describe_log_dirs_request, describe_log_dirs_response>},
    {k::create_partitions, lists::create_partitions},
    {k::delete_groups, lists::delete_groups},
    {k::incremental_alter_configs, lists::incremental_alter_configs},
    {k::offset_delete, whole<offset_delete_request, offset_delete_response>},
    {k::describe_client_quotas, lists::describe_client_quotas},
    {k::alter_client_quotas, lists::alter_client_quotas},
    {k::describe_cluster, whole<describe_cluster_request, describe_cluster_response, with_text>},
    {k::describe_producers, lists::describe_producers},
    {k::describe_transactions, lists::describe_transactions},
    {k::list_transactions, whole<list_transactions_request, list_transactions_response>},
    {k::consumer_group_heartbeat, whole<consumer_group_heartbeat_request, consumer_group_heartbeat_response>},
    {k::consumer_group_describe, lists::consumer_group_describe},
};

}  // namespace

std::string api_enum_name(std::string_view camel) {
    std::string out;
    for (size_t i = 0; i < camel.size(); ++i) {
        char c = camel[i];
        if (i > 0 && std::isupper(static_cast<unsigned char>(c))) out += '_';
        out += char(std::toupper(static_cast<unsigned char>(c)));
    }
    return out;
}

std::optional<net::handler_result> illegal_sasl_state_response(const request_context& ctx, kafka::reader& r) {
    const kafka::api_info* api = kafka::find_api(ctx.api_key);
    if (!api) return std::nullopt;
    for (const refusal_entry& e : k_refusals)
        if (int16_t(e.api) == ctx.api_key)
            return e.respond(ctx, r, "Unexpected Kafka request of type " + api_enum_name(api->name) +
                                         " during SASL authentication.");
    return std::nullopt;
}

}  // namespace ketch::broker
