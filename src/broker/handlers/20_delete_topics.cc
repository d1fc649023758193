// DeleteTopics v1-6. v4: flexible. v5: error_message. v6: topics by name or
// id (KIP-516). Behaviour: ControllerApis.deleteTopics. The deleted topics'
// committed offsets go from every group (GroupCoordinatorService.onPartitionsDeleted).
// controller_mutation_rate (KIP-599): a topic that may be deleted is charged
// its partition count, strict from v5 (THROTTLING_QUOTA_EXCEEDED, no message:
// ReplicationControlManager.deleteTopic), permissive before
// (recorded: conformance/recordings/controller-mutation-quota.json).
#include <map>
#include <set>

#include "broker/handlers/handlers.h"
#include "broker/quota_accounting.h"
#include "broker/topics.h"
#include "group/coordinator.h"

namespace ketch::broker {

using namespace kafka;

awaitable<delete_topics_response> handle_delete_topics(request_context& ctx, delete_topics_request& req) {
    auto& b = ctx.broker;
    delete_topics_response resp;
    std::vector<std::string> deleted;
    auto quota = mutation_quota_for(ctx, 5);
    auto answer = [&](std::optional<std::string> name, uuid id, const result<meta::topic, meta::error>& r) {
        if (r.ok()) deleted.push_back(r.value().name);
        auto& out = resp.responses.emplace_back();
        out.name = std::move(name);
        out.topic_id = id;
        if (!r.ok()) {
            out.error_code = code(to_kafka(r.error().code));
            out.error_message = r.error().message;
        }
    };
    // ControllerApis.deleteTopics: DELETE on the cluster allows everything;
    // otherwise a name needs DESCRIBE (else TOPIC_AUTHORIZATION_FAILED before
    // the existence check) and DELETE; an id without DELETE is answered with
    // its name only when the topic may be described.
    const bool cluster_delete = ctx.authorize_cluster(security::acl_operation::remove);
    auto may = [&](security::acl_operation op, const std::string& name) {
        return cluster_delete || ctx.authorize(op, security::resource_type::topic, name);
    };
    // Deletes `t` unless the quota refuses it (no message, Kafka's topic id).
    auto remove = [&](std::optional<std::string> name, const meta::topic& t) {
        if (charge_mutation(quota, t.partition_count)) return answer(std::move(name), t.id, delete_topic(b, t));
        auto& out = resp.responses.emplace_back();
        out.name = std::move(name);
        out.topic_id = t.id;
        out.error_code = code(error_code::throttling_quota_exceeded);
    };
    auto denied = [&](std::optional<std::string> name, uuid id) {
        auto& out = resp.responses.emplace_back();
        out.name = std::move(name);
        out.topic_id = id;
        out.error_code = code(error_code::topic_authorization_failed);
        out.error_message = std::string(error_message(error_code::topic_authorization_failed));
    };
    auto delete_named = [&](const std::string& name) {
        if (!may(security::acl_operation::describe, name)) return denied(name, {});
        auto t = b.topics.by_name(name);
        if (t && !may(security::acl_operation::remove, name)) return denied(name, {});
        if (!t) {
            answer(name, {}, failure{meta::error{meta::errc::unknown_topic_or_partition,
                                                 "This server does not host this topic-partition."}});
            return;
        }
        remove(name, *t);
    };

    auto invalid = [&](std::optional<std::string> name, uuid id, const char* why) {
        answer(std::move(name), id, failure{meta::error{meta::errc::invalid_request, why}});
    };
    // ControllerApis.deleteTopics: a name or id given twice is answered once,
    // INVALID_REQUEST, and not deleted (recorded: conformance/recordings/deletetopics.json).
    std::map<std::string, int> name_count;
    std::map<uuid, int> id_count;
    if (ctx.api_version < 6) {
        for (auto& name : req.topic_names) ++name_count[name];
    } else {
        for (auto& st : req.topics) {
            if (st.name) ++name_count[*st.name];
            else if (!st.topic_id.is_zero()) ++id_count[st.topic_id];
        }
    }
    std::set<std::string> answered_names;
    std::set<uuid> answered_ids;
    auto duplicate_name = [&](const std::string& n) {
        if (name_count[n] < 2) return false;
        if (answered_names.insert(n).second) invalid(n, {}, "Duplicate topic name.");
        return true;
    };
    if (ctx.api_version < 6) {
        for (auto& name : req.topic_names)
            if (!duplicate_name(name)) delete_named(name);
    } else {
        for (auto& st : req.topics) {
            if (st.name && !st.topic_id.is_zero()) {
                invalid(st.name, st.topic_id, "You may not specify both topic name and topic id.");
                continue;
            }
            if (!st.name && st.topic_id.is_zero()) {
                invalid(std::nullopt, st.topic_id, "Neither topic name nor id were specified.");
                continue;
            }
            if (st.name) {
                if (!duplicate_name(*st.name)) delete_named(*st.name);
                continue;
            }
            if (id_count[st.topic_id] > 1) {
                if (answered_ids.insert(st.topic_id).second)
                    invalid(std::nullopt, st.topic_id, "Duplicate topic id.");
                continue;
            }
            auto t = b.topics.by_id(st.topic_id);
            if (!t) {
                answer(std::nullopt, st.topic_id,
                       failure{meta::error{meta::errc::unknown_topic_id, "This server does not host this topic ID."}});
                continue;
            }
            if (!may(security::acl_operation::remove, t->name)) {
                denied(may(security::acl_operation::describe, t->name) ? std::optional(t->name) : std::nullopt, t->id);
                continue;
            }
            remove(t->name, *t);
        }
    }
    finish_mutations(ctx, quota);
    if (!deleted.empty()) b.groups.on_topics_deleted(deleted);
    co_return resp;
}

// DeleteTopicsRequest.getErrorResponse: each topic, by name or id (v6+) or by
// name (v0-5), with the error.
std::optional<delete_topics_response> delete_topics_error(const delete_topics_request& req, int16_t,
                                                          const error_answer& e) {
    delete_topics_response resp;
    for (auto& t : req.topics) {
        auto& rt = error_row(resp.responses, e);
        rt.name = t.name;
        rt.topic_id = t.topic_id;
    }
    for (auto& n : req.topic_names) error_row(resp.responses, e).name = n;
    return resp;
}

}  // namespace ketch::broker
