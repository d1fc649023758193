// DeleteTopics v1-6. v4: flexible. v5: error_message. v6: topics by name or
// id (KIP-516). Behaviour: ControllerApis.deleteTopics.
#include "broker/handlers/handlers.h"
#include "broker/topics.h"

namespace ketch::broker {

using namespace kafka;

awaitable<delete_topics_response> handle_delete_topics(request_context& ctx, delete_topics_request& req) {
    auto& b = ctx.broker;
    delete_topics_response resp;
    auto answer = [&](std::optional<std::string> name, uuid id, const result<meta::topic, meta::error>& r) {
        auto& out = resp.responses.emplace_back();
        out.name = std::move(name);
        out.topic_id = id;
        if (!r.ok()) {
            out.error_code = code(to_kafka(r.error().code));
            out.error_message = r.error().message;
        }
    };
    auto delete_named = [&](const std::string& name) {
        auto t = b.topics.by_name(name);
        if (!t) {
            answer(name, {}, failure{meta::error{meta::errc::unknown_topic_or_partition,
                                                 "This server does not host this topic-partition."}});
            return;
        }
        auto r = delete_topic(b, *t);
        answer(name, t->id, r);
    };

    if (ctx.api_version < 6) {
        for (auto& name : req.topic_names) delete_named(name);
        co_return resp;
    }
    for (auto& st : req.topics) {
        if (st.name) {
            delete_named(*st.name);
            continue;
        }
        auto t = b.topics.by_id(st.topic_id);
        if (!t) {
            answer(std::nullopt, st.topic_id,
                   failure{meta::error{meta::errc::unknown_topic_id, "This server does not host this topic ID."}});
            continue;
        }
        auto r = delete_topic(b, *t);
        answer(t->name, t->id, r);
    }
    co_return resp;
}

}  // namespace ketch::broker
