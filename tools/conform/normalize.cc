#include "normalize.h"

#include <algorithm>
#include <regex>

#include "json_path.h"

namespace ketch::conform {
namespace {

constexpr const char* k_zero_uuid = "AAAAAAAAAAAAAAAAAAAAAA";

bool has_placeholder(const json& name) {
    return name.is_string() && name.get<std::string>().find("${") != std::string::npos;
}

bool all_have_string(const json& arr, const char* field) {
    for (auto& e : arr)
        if (!e.is_object() || !e.contains(field) || !e[field].is_string()) return false;
    return true;
}

// The partition-number field of a partition entry, or nullptr.
const char* partition_field(const json& arr) {
    for (const char* f : {"partition_index", "index", "partition"}) {
        bool all = !arr.empty();
        for (auto& e : arr) all = all && e.is_object() && e.contains(f) && e[f].is_number_integer();
        if (all) return f;
    }
    return nullptr;
}

// DescribeClientQuotas / AlterClientQuotas entries: each has an entity list.
bool is_quota_entries(const json& arr) {
    for (auto& e : arr)
        if (!e.is_object() || !e.contains("entity") || !e["entity"].is_array()) return false;
    return true;
}

void sort_by(json& arr, const char* field) {
    std::stable_sort(arr.begin(), arr.end(), [&](const json& a, const json& b) {
        return a[field].get<std::string>() < b[field].get<std::string>();
    });
}

// A DescribeQuorum replica state: /topics/*/partitions/*/{current_voters,observers}/*/<key>.
bool is_quorum_replica(const std::string& path, const std::string& key) {
    return path_matches("/topics/*/partitions/*/current_voters/*/" + key, path) ||
           path_matches("/topics/*/partitions/*/observers/*/" + key, path);
}

class normalizer {
public:
    normalizer(side_context& ctx, const step_rules& rules) : ctx_(ctx), rules_(rules) {}

    json walk(const json& v, const std::string& path, const std::string& key) {
        json out;
        if (v.is_object()) {
            out = json::object();
            for (auto& [k, child] : v.items()) out[k] = walk(child, path + "/" + k, k);
        } else if (v.is_array()) {
            out = json::array();
            size_t i = 0;
            for (auto& child : v) out.push_back(walk(child, path + "/" + std::to_string(i++), ""));
        } else {
            out = v;
        }
        apply(out, path, key);
        return out;
    }

private:
    // Rule bodies; names and paths match all_rules() below.
    void apply(json& v, const std::string& path, const std::string& key) {
        if (key == "throttle_time_ms") {  // throttle_time, throttle_sign
            v = rules_.has("throttle_sign") && v.is_number_integer() ? (v.get<int64_t>() > 0 ? "<positive>" : "<zero>")
                                                                     : "<any>";
        } else if (key == "cluster_id" && v.is_string()) {  // cluster_id
            static const std::regex id_re("[A-Za-z0-9_-]{22}");
            if (std::regex_match(v.get<std::string>(), id_re)) v = "<cluster-id>";
        } else if (key == "client_instance_id" && v.is_string() && v != "AAAAAAAAAAAAAAAAAAAAAA") {
            static const std::regex id_re("[A-Za-z0-9_-]{22}");  // client_instance_id
            if (std::regex_match(v.get<std::string>(), id_re)) v = "<client-instance-id>";
        } else if (key == "subscription_id" && v.is_number_integer() && v.get<int64_t>() != 0) {
            v = "<subscription-id>";                                    // subscription_id
        } else if (key == "host" && v.is_string() && v == ctx_.host) {  // self_address
            v = "<self-host>";
        } else if (key == "port" && v.is_number_integer() && v == ctx_.port) {  // self_address
            v = "<self-port>";
        } else if ((key == "error_message" || key == "batch_index_error_message") && v.is_string() &&
                   !rules_.exact_error_messages) {  // error_message
            v = "<message>";
        } else if ((key == "total_bytes" || key == "usable_bytes") && v.is_number_integer() && v.get<int64_t>() >= 0 &&
                   path_matches("/results/*/" + key, path)) {
            v = "<bytes>";  // log_dir_space
        } else if ((key == "last_fetch_timestamp" || key == "last_caught_up_timestamp") && v.is_number_integer() &&
                   v.get<int64_t>() >= 0 && is_quorum_replica(path, key)) {
            v = "<time>";  // quorum_progress
        } else if (((key == "high_watermark" && path_matches("/topics/*/partitions/*/high_watermark", path)) ||
                    (key == "log_end_offset" && is_quorum_replica(path, key))) &&
                   v.is_number_integer() && v.get<int64_t>() >= 0) {
            v = "<offset>";  // quorum_progress
        } else if (key == "transaction_start_time_ms" && v.is_number_integer() && v.get<int64_t>() >= 0) {
            v = "<time>";  // transaction_start_time
        } else if (key == "finalized_features_epoch" && v.is_number_integer() && v.get<int64_t>() >= 0) {
            v = "<epoch>";  // finalized_features_epoch
        } else if (key == "documentation" && v.is_string() && path_matches("/**/configs/*/documentation", path)) {
            v = "<text>";  // config_documentation
        } else if (key == "configs" && v.is_array() && all_have_string(v, "name")) {
            sort_by(v, "name");  // config_order
        } else if ((key == "topics" || key == "responses" || key == "results_by_topic_v3_and_below" ||
                    key == "topic_results") &&
                   v.is_array() && all_have_string(v, "name")) {
            sort_by(v, "name");  // topic_order
        } else if (key == "results" && v.is_array() && !v.empty() && all_have_string(v, "topic_name")) {
            sort_by(v, "topic_name");  // topic_order (AlterReplicaLogDirs)
        } else if (key == "topics" && v.is_array() && !v.empty() && all_have_string(v, "topic")) {
            sort_by(v, "topic");  // txn_topic_order
            for (auto& t : v) {
                if (t.contains("partitions") && t["partitions"].is_array())
                    std::sort(t["partitions"].begin(), t["partitions"].end());
                if (t["topic"] == "__consumer_offsets") t["partitions"] = "<offsets-partition>";  // offsets_partition
            }
        } else if ((key == "acls" || key == "matching_acls" || key == "resources") && v.is_array() &&
                   (key != "resources" || all_have_string(v, "resource_name"))) {
            std::sort(v.begin(), v.end());  // acl_order (children are normalised first)
        } else if ((key == "member_id" || key == "leader") && v.is_string()) {
            v = member_token(v.get<std::string>(), ctx_);  // member_id
        } else if (key == "results" && v.is_array() && !v.empty() && all_have_string(v, "user")) {
            sort_by(v, "user");  // scram_user_order
        } else if (key == "credential_infos" && v.is_array()) {
            std::stable_sort(v.begin(), v.end(),  // scram_user_order
                             [](const json& a, const json& b) { return a.dump() < b.dump(); });
        } else if ((key == "groups" || key == "results") && v.is_array() && all_have_string(v, "group_id")) {
            sort_by(v, "group_id");  // group_order
        } else if (key == "members" && v.is_array() && all_have_string(v, "member_id")) {
            sort_by(v, "member_id");  // member_order (after member_id: children come first)
        } else if (key == "entity" && v.is_array() && all_have_string(v, "entity_type")) {
            sort_by(v, "entity_type");  // quota_entry_order
        } else if (key == "values" && v.is_array() && all_have_string(v, "key")) {
            sort_by(v, "key");  // quota_entry_order
        } else if (key == "entries" && v.is_array() && is_quota_entries(v)) {
            std::stable_sort(v.begin(), v.end(),  // quota_entry_order
                             [](const json& a, const json& b) { return a["entity"].dump() < b["entity"].dump(); });
        } else if (key == "auth_bytes" && v.is_string() && !v.get<std::string>().empty() &&
                   opted_in("sasl_server_token")) {
            v = "<token>";  // sasl_server_token
        } else if ((key == "partitions" || key == "partition_responses" || key == "results_by_partition") &&
                   v.is_array()) {
            if (const char* f = partition_field(v))  // partition_order
                std::stable_sort(v.begin(), v.end(), [&](const json& a, const json& b) { return a[f] < b[f]; });
        }
    }

    bool opted_in(const char* rule) const {
        return std::find(rules_.opt_in.begin(), rules_.opt_in.end(), rule) != rules_.opt_in.end();
    }

    side_context& ctx_;
    const step_rules& rules_;
};

// topic_id: a nonzero id is marked "<uuid:...>" and compared by
// correspondence (compare.h), not by value.
void mark_ids(json& v) {
    if (v.is_object()) {
        for (auto& [k, child] : v.items()) {
            if (k == "topic_id" && child.is_string() && child != k_zero_uuid)
                child = "<uuid:" + child.get<std::string>() + ">";
            else if (k == "producer_id" && child.is_number_integer() && child.get<int64_t>() >= 0 &&
                     !(v.contains("error_code") && v["error_code"] != 0))  // an error's is a default
                child = "<pid:" + child.dump() + ">";
            else
                mark_ids(child);
        }
    } else if (v.is_array()) {
        for (auto& child : v) mark_ids(child);
    }
}

}  // namespace

std::string member_token(const std::string& id, side_context& ctx) {
    static const std::regex placeholder_re(R"(\$\{[A-Za-z0-9_]+(:[0-9]+)?\})");
    if (id.empty() || std::regex_match(id, placeholder_re)) return id;
    auto it = ctx.member_ids.find(id);
    if (it != ctx.member_ids.end()) return it->second;
    // Kafka's classic member id: "<group.instance.id or client.id>-<java.util.UUID>"
    // (GroupMetadataManager); the KIP-848 one a bare Uuid. The prefix is behaviour.
    static const std::regex java_uuid_re("(.*)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    std::smatch m;
    std::string n = "member-" + std::to_string(ctx.member_ids.size() + 1);
    std::string token = std::regex_match(id, m, java_uuid_re) ? m[1].str() + "-" + n : n;
    ctx.member_ids.emplace(id, token);
    return token;
}

const std::vector<rule_info>& all_rules() {
    static const std::vector<rule_info> rules = {
        {"throttle_time", "/**/throttle_time_ms", "ignored: quota throttling is timing, not behaviour"},
        {"throttle_sign", "/**/throttle_time_ms",
         "(opt-in per step) only zero vs positive is compared (\"<zero>\", \"<positive>\"): whether a request was "
         "throttled is behaviour, how many ms depends on timing",
         true},
        {"cluster_id", "/**/cluster_id", "any 22-character base64url id compares equal (\"<cluster-id>\")"},
        {"client_instance_id", "/client_instance_id",
         "a nonzero KIP-714 client instance id (random, chosen by the broker) compares equal "
         "(\"<client-instance-id>\"); "
         "the zero uuid is kept"},
        {"subscription_id", "/subscription_id",
         "a nonzero telemetry subscription id (a CRC32C of the subscription XOR the random instance id's hash) "
         "compares equal (\"<subscription-id>\"); 0 (an error answer) is kept"},
        {"topic_id", "/**/topic_id",
         "a nonzero uuid compares equal to any nonzero uuid, provided the correspondence stays one-to-one "
         "across the whole scenario (the same topic keeps its id, two topics never share one); the zero "
         "uuid is kept"},
        {"producer_id", "/**/producer_id",
         "a producer id >= 0 compares equal to any other, provided the correspondence stays one-to-one "
         "across the whole scenario (each broker allocates its own ids); -1, and the (default) id next to "
         "a nonzero error_code, are kept"},
        {"transaction_start_time", "/**/transaction_start_time_ms",
         "a start time >= 0 compares equal (\"<time>\"); -1 (no transaction) is kept"},
        {"self_address", "/**/host, /**/port",
         "the broker's own advertised host and port become \"<self-host>\" / \"<self-port>\""},
        {"error_message", "/**/error_message, /**/batch_index_error_message",
         "only null vs non-null is compared (\"<message>\"), unless the step or scenario sets "
         "exact_error_messages"},
        {"finalized_features_epoch", "/finalized_features_epoch",
         "any epoch >= 0 compares equal: it is an offset in Kafka's metadata log; -1 (none) is kept"},
        {"quorum_progress",
         "/topics/*/partitions/*/high_watermark, /topics/*/partitions/*/{current_voters,observers}/*/"
         "{log_end_offset,last_fetch_timestamp,last_caught_up_timestamp}",
         "DescribeQuorum: the metadata log's offsets (>= 0, \"<offset>\") and the replicas' fetch and caught-up "
         "times (>= 0, \"<time>\") compare equal: Kafka's controller appends to its log every "
         "metadata.max.idle.interval.ms, so no two answers agree; -1 (unknown) is kept"},
        {"log_dir_space", "/results/*/total_bytes, /results/*/usable_bytes",
         "a log directory's disk capacity and free space (>= 0) compare equal (\"<bytes>\"): they belong to the "
         "machine, not the protocol; -1 (unknown) is kept"},
        {"config_documentation", "/**/configs/*/documentation", "non-null documentation text compares equal"},
        {"config_order", "/**/configs", "config entries sorted by name (ketch lists configs in its own order)"},
        {"topic_order", "/**/topics, /**/responses, /**/results_by_topic_v3_and_below, /**/topic_results, /results",
         "topic entries sorted by name (topic_name in AlterReplicaLogDirs results): Kafka's order comes from hash "
         "maps and clients key topics by name"},
        {"partition_order", "/**/partitions, /**/partition_responses, /**/results_by_partition",
         "partition entries sorted by partition number (partition_index, index or partition): Kafka's "
         "order comes from hash maps, clients key partitions by number"},
        {"acl_order", "/resources, /resources/*/acls, /filter_results/*/matching_acls",
         "DescribeAcls resources and their ACLs, DeleteAcls matching ACLs sorted: Kafka's order comes from "
         "hash maps and hash sets"},
        {"quota_entry_order", "/entries, /entries/*/entity, /entries/*/values",
         "client quota entries sorted by entity, entity parts by type and values by key: Kafka's come from "
         "hash maps (ClientQuotasImage, AlterClientQuotasResponse.fromQuotaEntities)"},
        {"txn_topic_order", "/transaction_states/*/topics",
         "DescribeTransactions: topics sorted by name and their partition numbers sorted (Kafka's come "
         "from a hash set)"},
        {"offsets_partition", "/transaction_states/*/topics/topic=__consumer_offsets/partitions",
         "the __consumer_offsets partition of a group (hash of a per-run group id) compares equal"},
        {"member_id", "/**/member_id, /**/leader",
         "a member id the broker generated becomes \"member-N\", numbered by first appearance in the run "
         "(\"<prefix>-member-N\" for Kafka's \"<client or instance id>-<uuid>\" form, so the prefix is "
         "compared): the same member keeps its number across steps, two members never share one; empty ids "
         "and ids the scenario chose (placeholders) are kept"},
        {"group_order", "/groups, /results",
         "per-group entries (ListGroups, DescribeGroups, ConsumerGroupDescribe, DeleteGroups) sorted by group "
         "id: Kafka answers a multi-group request shard by shard, in no fixed order"},
        {"scram_user_order", "/results, /results/*/credential_infos",
         "Describe/AlterUserScramCredentials results sorted by user, credentials by mechanism: Kafka's order "
         "comes from hash maps (ScramImage, ScramControlManager)"},
        {"member_order", "/**/members",
         "member entries sorted by (normalised) member_id: Kafka's order comes from hash maps. Scenarios "
         "let each member id appear first on its own (a JoinGroup answer), so the numbering does not "
         "depend on that order"},
        {"own_topics_only", "/topics",
         "(opt-in per step) keeps only topics this scenario named, dropping whatever else lives on the "
         "broker (other runs, internal topics) from all-topics listings",
         true},
        {"own_groups_only", "/groups",
         "(opt-in per step) keeps only group ids this scenario named, dropping other runs' groups from "
         "ListGroups",
         true},
        {"own_users_only", "/results",
         "(opt-in per step) keeps only users this scenario named in DescribeUserScramCredentials results, "
         "dropping other runs' users and the broker's configured ones",
         true},
        {"sasl_server_token", "/auth_bytes",
         "(opt-in per step) a non-empty SaslAuthenticate token compares equal (\"<token>\"): a SCRAM "
         "server-first message carries a random nonce and salt",
         true},
        {"own_transactions_only", "/transaction_states",
         "(opt-in per step) keeps only transactional ids this scenario named, dropping other runs' from "
         "ListTransactions",
         true},
        {"own_config_resources", "/config_resources",
         "(opt-in per step) ListConfigResources: keeps the resources this scenario named and the broker's own "
         "(BROKER, BROKER_LOGGER), sorted by type and name, dropping other runs' groups, subscriptions and "
         "topics and Kafka's internal topics; Kafka's order comes from hash maps",
         true},
        {"consumer_protocol", "/**/assignment, /**/metadata",
         "(opt-in per step) shows embedded consumer-protocol subscriptions and assignments decoded, with "
         "topic names (tools/conform/consumer_protocol.h)",
         true},
    };
    return rules;
}

bool keep_own_topics(json& response, const std::vector<std::string>& rules) {
    if (std::find(rules.begin(), rules.end(), "own_groups_only") != rules.end() && response.is_object() &&
        response.contains("groups") && response["groups"].is_array()) {
        json kept = json::array();
        for (auto& g : response["groups"])
            if (g.is_object() && g.contains("group_id") && has_placeholder(g["group_id"])) kept.push_back(g);
        response["groups"] = kept;
    }
    if (std::find(rules.begin(), rules.end(), "own_transactions_only") != rules.end() && response.is_object() &&
        response.contains("transaction_states") && response["transaction_states"].is_array()) {
        json kept = json::array();
        for (auto& t : response["transaction_states"])
            if (t.is_object() && t.contains("transactional_id") && has_placeholder(t["transactional_id"]))
                kept.push_back(t);
        response["transaction_states"] = kept;
    }
    if (std::find(rules.begin(), rules.end(), "own_users_only") != rules.end() && response.is_object() &&
        response.contains("results") && response["results"].is_array()) {
        json kept = json::array();
        for (auto& r : response["results"])
            if (r.is_object() && r.contains("user") && has_placeholder(r["user"])) kept.push_back(r);
        response["results"] = kept;
    }
    if (std::find(rules.begin(), rules.end(), "own_config_resources") != rules.end() && response.is_object() &&
        response.contains("config_resources") && response["config_resources"].is_array()) {
        auto type_of = [](const json& r) { return r.contains("resource_type") ? r["resource_type"].get<int>() : 16; };
        json kept = json::array();
        for (auto& r : response["config_resources"])
            if (r.is_object() && r.contains("resource_name") &&
                (has_placeholder(r["resource_name"]) || type_of(r) == 4 || type_of(r) == 8))
                kept.push_back(r);
        std::sort(kept.begin(), kept.end(), [&](const json& a, const json& b) {
            return std::pair(type_of(a), a["resource_name"].dump()) < std::pair(type_of(b), b["resource_name"].dump());
        });
        response["config_resources"] = kept;
    }
    if (std::find(rules.begin(), rules.end(), "own_topics_only") == rules.end()) return false;
    if (!response.is_object() || !response.contains("topics") || !response["topics"].is_array()) return true;
    json kept = json::array();
    for (auto& t : response["topics"])
        if (t.is_object() && t.contains("name") && has_placeholder(t["name"])) kept.push_back(t);
    response["topics"] = kept;
    return true;
}

json normalize(const json& response, side_context& ctx, const step_rules& rules) {
    normalizer n(ctx, rules);
    json pruned = response;
    keep_own_topics(pruned, rules.opt_in);
    json out = n.walk(pruned, "", "");
    mark_ids(out);
    return out;
}

}  // namespace ketch::conform
