// What AlterConfigs (legacy: a resource's overrides become exactly the given
// set) and IncrementalAlterConfigs share per resource: Kafka's duplicate-key
// check, a topic change's error wording and effect, and how an outcome is
// written into the answer. The per-version checks and their order stay in the
// two handlers, as recorded against Kafka.
#pragma once

#include <set>
#include <span>
#include <string>

#include "broker/broker_context.h"
#include "broker/runtime_configs.h"
#include "meta/config_ops.h"
#include "meta/topic.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

// ConfigAdminManager.preprocess: a key named twice in one resource.
template <class Configs>
config_error duplicate_config_keys(const Configs& configs) {
    std::set<std::string> keys;
    for (auto& c : configs)
        if (!keys.insert(c.name).second) return {error_code::invalid_request, "Error due to duplicate config keys"};
    return {};
}

// The outcome of a topic registry change of `topic`'s configs: an unknown
// topic in Kafka's words, any other error as the registry gives it; on success
// (and unless validate_only) the new settings act at once on its open partitions.
config_error topic_alter_outcome(broker_context& b, const std::string& topic,
                                 const result<meta::topic, meta::error>& res, bool validate_only);

// A BROKER / BROKER_LOGGER, GROUP or CLIENT_METRICS resource altered by `ops`
// (incremental = false: its configs become exactly the SET ops); any other
// type is unsupported_resource. Topics are each handler's own.
config_error alter_non_topic_resource(broker_context& b, int8_t type, const std::string& name,
                                      std::span<const meta::config_op> ops, bool incremental, bool validate_only);

// Writes one resource's code and message (none, or null when asked) into its answer.
template <class Entry>
void set_alter_outcome(Entry& out, const config_error& e) {
    out.error_code = int16_t(e.code);
    if (e.code == error_code::none || e.null_message)
        out.error_message.reset();
    else
        out.error_message.emplace(e.message);
}

// The answer of AlterConfigs and IncrementalAlterConfigs: an entry for each
// resource, in order, refused by authorize_alter_resource, else by check(r)
// (the handler's own checks), else alter(r)'s outcome.
template <class Resp, class Req, class Check, class Alter>
Resp alter_each_resource(const request_context& ctx, Req& req, Check&& check, Alter&& alter) {
    Resp resp;
    for (auto& r : req.resources) {
        auto& out = resp.responses.emplace_back();
        out.resource_type = r.resource_type;
        out.resource_name = r.resource_name;
        config_error e = authorize_alter_resource(ctx, r.resource_type, r.resource_name);
        if (e.code == error_code::none) e = check(r);
        if (e.code == error_code::none) e = alter(r);
        set_alter_outcome(out, e);
    }
    return resp;
}

}  // namespace ketch::broker
