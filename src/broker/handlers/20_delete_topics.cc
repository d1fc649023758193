// DeleteTopics v1-6. v4: flexible. v5: error_message. v6: topics by name or
// id (KIP-516). Behaviour: ControllerApis.deleteTopics. The deleted topics'
// committed offsets go from every group (GroupCoordinatorService.onPartitionsDeleted).
// controller_mutation_rate (KIP-599): a topic that may be deleted is charged
// its partition count, strict from v5 (THROTTLING_QUOTA_EXCEEDED, no message:
// ReplicationControlManager.deleteTopic), permissive before
// (recorded: conformance/recordings/controller-mutation-quota.json).
#include <functional>
#include <map>
#include <set>

#include "broker/blocking.h"
#include "broker/handlers/handlers.h"
#include "broker/quota_accounting.h"
#include "broker/topic_read_through.h"
#include "broker/topics.h"
#include "group/coordinator.h"

namespace ketch::broker {

using namespace kafka;

namespace {

// One DeleteTopics request: the answer rows, the quota, what was deleted.
// ControllerApis.deleteTopics: DELETE on the cluster allows everything;
// otherwise a name needs DESCRIBE (else TOPIC_AUTHORIZATION_FAILED before the
// existence check) and DELETE; an id without DELETE is answered with its name
// only when the topic may be described.
class topic_deleter {
public:
    explicit topic_deleter(request_context& ctx)
        : ctx_(ctx),
          quota_(mutation_quota_for(ctx, 5)),
          cluster_delete_(ctx.authorize_cluster(security::acl_operation::remove)) {}

    void by_name(const std::string& name) {
        if (!may(security::acl_operation::describe, name)) return denied(name, {});
        auto t = ctx_.broker.topics.by_name(name);
        if (t && !may(security::acl_operation::remove, name)) return denied(name, {});
        if (!t)
            return answer(name, {},
                          failure{meta::error{meta::errc::unknown_topic_or_partition,
                                              "This server does not host this topic-partition."}});
        remove(name, *t);
    }

    void by_id(uuid id) {
        auto t = ctx_.broker.topics.by_id(id);
        if (!t)
            return answer(
                std::nullopt, id,
                failure{meta::error{meta::errc::unknown_topic_id, "This server does not host this topic ID."}});
        if (!may(security::acl_operation::remove, t->name))
            return denied(may(security::acl_operation::describe, t->name) ? std::optional(t->name) : std::nullopt,
                          t->id);
        remove(t->name, *t);
    }

    void invalid(std::optional<std::string> name, uuid id, const char* why) {
        answer(std::move(name), id, failure{meta::error{meta::errc::invalid_request, why}});
    }

    delete_topics_response finish() {
        finish_mutations(ctx_, quota_);
        if (!deleted_.empty()) ctx_.broker.groups.on_topics_deleted(deleted_);
        return std::move(resp_);
    }

private:
    bool may(security::acl_operation op, const std::string& name) {
        return cluster_delete_ || ctx_.authorize(op, security::resource_type::topic, name);
    }

    delete_topics_response::deletable_topic_result& row(std::optional<std::string> name, uuid id) {
        auto& out = resp_.responses.emplace_back();
        out.name = std::move(name);
        out.topic_id = id;
        return out;
    }

    void answer(std::optional<std::string> name, uuid id, const result<meta::topic, meta::error>& r) {
        if (r.ok()) deleted_.push_back(r.value().name);
        auto& out = row(std::move(name), id);
        if (!r.ok()) {
            out.error_code = code(to_kafka(r.error().code));
            out.error_message = r.error().message;
        }
    }

    void denied(std::optional<std::string> name, uuid id) {
        auto& out = row(std::move(name), id);
        out.error_code = code(error_code::topic_authorization_failed);
        out.error_message = std::string(error_message(error_code::topic_authorization_failed));
    }

    // Deletes `t` unless the quota refuses it (no message, Kafka's topic id).
    void remove(std::optional<std::string> name, const meta::topic& t) {
        if (charge_mutation(quota_, t.partition_count))
            return answer(std::move(name), t.id, delete_topic(ctx_.broker, t));
        row(std::move(name), t.id).error_code = code(error_code::throttling_quota_exceeded);
    }

    request_context& ctx_;
    security::mutation_quota quota_;
    bool cluster_delete_;
    delete_topics_response resp_;
    std::vector<std::string> deleted_;
};

// A name or id given twice is answered once, INVALID_REQUEST, and not deleted
// (recorded: conformance/recordings/deletetopics.json).
template <class Key>
class duplicates {
public:
    void count(const Key& k) { ++count_[k]; }
    // True when `k` is given twice; the first such call answers it.
    bool refuse(const Key& k, const std::function<void()>& answer) {
        if (count_[k] < 2) return false;
        if (answered_.insert(k).second) answer();
        return true;
    }

private:
    std::map<Key, int> count_;
    std::set<Key> answered_;
};

// Every entry of the request checked, and deleted unless refused.
delete_topics_response delete_each(request_context& ctx, const delete_topics_request& req) {
    topic_deleter d(ctx);
    duplicates<std::string> names;
    duplicates<uuid> ids;
    auto by_name = [&](const std::string& n) {
        if (!names.refuse(n, [&] { d.invalid(n, {}, "Duplicate topic name."); })) d.by_name(n);
    };
    if (ctx.api_version < 6) {
        for (auto& name : req.topic_names) names.count(name);
        for (auto& name : req.topic_names) by_name(name);
        return d.finish();
    }
    for (auto& st : req.topics) {
        if (st.name)
            names.count(*st.name);
        else if (!st.topic_id.is_zero())
            ids.count(st.topic_id);
    }
    for (auto& st : req.topics) {
        if (st.name && !st.topic_id.is_zero())
            d.invalid(st.name, st.topic_id, "You may not specify both topic name and topic id.");
        else if (!st.name && st.topic_id.is_zero())
            d.invalid(std::nullopt, st.topic_id, "Neither topic name nor id were specified.");
        else if (st.name)
            by_name(*st.name);
        else if (!ids.refuse(st.topic_id, [&] { d.invalid(std::nullopt, st.topic_id, "Duplicate topic id."); }))
            d.by_id(st.topic_id);
    }
    return d.finish();
}

}  // namespace

awaitable<delete_topics_response> handle_delete_topics(request_context& ctx, delete_topics_request& req) {
    if (ctx.api_version < 6)
        co_await read_through_topics(ctx, req.topic_names, [](auto& n) { return std::string_view(n); });
    else
        co_await read_through_topics(ctx, req.topics,
                                     [](auto& t) { return t.name ? std::string_view(*t.name) : std::string_view(); });
    // The deletes write the topics (cluster mode: in PostgreSQL) and the
    // deleted topics' committed offsets: store_answer.
    co_return co_await store_answer<delete_topics_response>(ctx.broker, [&ctx, &req] { return delete_each(ctx, req); });
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
