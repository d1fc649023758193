// OffsetCommit v2-10 (v0-1 left Kafka in 4.0, KIP-896). v2-4: retention_time_ms.
// v3: throttle_time_ms. v5: retention only by broker config. v6:
// committed_leader_epoch. v7: group_instance_id (KIP-345). v8: flexible. v9:
// an unknown group with a generation is GROUP_ID_NOT_FOUND (KIP-848). v10:
// topics by id (KIP-848).
// Behaviour: KafkaApis.handleOffsetCommitRequest and OffsetCommitResponse.Builder
// (Apache Kafka 4.3.1): unknown topics and partitions are answered
// UNKNOWN_TOPIC_OR_PARTITION (an unknown topic id UNKNOWN_TOPIC_ID) without
// the coordinator; the rest go to group/offsets.cc, whose answer is merged in,
// topic by topic. The commit's fsync runs on broker_context::run_blocking.
#include <map>

#include "broker/async.h"
#include "broker/handlers/handlers.h"
#include "group/coordinator.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

using namespace kafka;

namespace {

using response_topic = offset_commit_response::offset_commit_response_topic;

// The response as OffsetCommitResponse.Builder makes it: one entry per topic
// (by id from v10, else by name), partitions appended in arrival order.
class commit_response_builder {
public:
    explicit commit_response_builder(bool use_ids) : use_ids_(use_ids) {}

    void add(const uuid& id, const std::string& name, int32_t partition, error_code e) {
        auto& t = topic(id, name);
        auto& p = t.partitions.emplace_back();
        p.partition_index = partition;
        p.error_code = code(e);
    }

    offset_commit_response take() { return std::move(resp_); }

private:
    response_topic& topic(const uuid& id, const std::string& name) {
        for (auto& t : resp_.topics)
            if (use_ids_ ? t.topic_id == id : t.name == name) return t;
        auto& t = resp_.topics.emplace_back();
        t.topic_id = id;
        t.name = name;
        return t;
    }

    bool use_ids_;
    offset_commit_response resp_;
};

}  // namespace

awaitable<offset_commit_response> handle_offset_commit(request_context& ctx, offset_commit_request& req) {
    auto& b = ctx.broker;
    const bool use_ids = ctx.api_version >= 10;
    commit_response_builder out(use_ids);
    // KafkaApis.handleOffsetCommitRequest: READ on the group (else every
    // partition GROUP_AUTHORIZATION_FAILED), READ on each topic (else its
    // partitions TOPIC_AUTHORIZATION_FAILED, before the existence check).
    if (!ctx.authorize(security::acl_operation::read, security::resource_type::group, req.group_id)) {
        for (auto& t : req.topics)
            for (auto& p : t.partitions)
                out.add(t.topic_id, t.name, p.partition_index, error_code::group_authorization_failed);
        co_return out.take();
    }

    group::commit_args args{{req.group_id, req.generation_id_or_member_epoch, req.member_id, req.group_instance_id}};
    args.retention_time_ms = req.retention_time_ms;
    args.api_version = ctx.api_version;
    std::map<std::string, uuid> ids;  // topic name -> id, to answer by id from v10

    for (auto& t : req.topics) {
        std::optional<meta::topic> topic = use_ids ? b.topics.by_id(t.topic_id) : b.topics.by_name(t.name);
        if ((!use_ids || topic) && !ctx.authorize(security::acl_operation::read, security::resource_type::topic,
                                                  use_ids ? topic->name : t.name)) {
            for (auto& p : t.partitions)
                out.add(t.topic_id, use_ids ? topic->name : t.name, p.partition_index,
                        error_code::topic_authorization_failed);
            continue;
        }
        if (!topic) {
            auto e = use_ids ? error_code::unknown_topic_id : error_code::unknown_topic_or_partition;
            for (auto& p : t.partitions) out.add(use_ids ? t.topic_id : uuid{}, t.name, p.partition_index, e);
            continue;
        }
        group::commit_topic valid{topic->name, {}};
        for (auto& p : t.partitions) {
            if (p.partition_index < 0 || p.partition_index >= topic->partition_count) {
                out.add(topic->id, topic->name, p.partition_index, error_code::unknown_topic_or_partition);
                continue;
            }
            valid.partitions.push_back(
                {p.partition_index, p.committed_offset, p.committed_leader_epoch, std::move(p.committed_metadata)});
        }
        if (!valid.partitions.empty()) {
            ids[topic->name] = topic->id;
            args.topics.push_back(std::move(valid));
        }
    }
    if (args.topics.empty()) co_return out.take();

    // References only in the lambda (see 11_join_group.cc); `args` lives in
    // this frame until `done` runs.
    auto r = co_await on_callback<group::commit_result>([&b, &args](std::function<void(group::commit_result)> done) {
        std::function<void()> work = [&b, &args, done = std::move(done)]() mutable {
            b.groups.commit_offsets(std::move(args), std::move(done));
        };
        if (b.run_blocking)
            b.run_blocking(std::move(work));
        else
            work();
    });
    for (auto& t : r.topics)
        for (auto& p : t.partitions) out.add(ids[t.name], t.name, p.partition, p.error);
    co_return out.take();
}

// OffsetCommitRequest.getErrorResponse: every partition with the error.
std::optional<offset_commit_response> offset_commit_error(const offset_commit_request& req, int16_t,
                                                          const error_answer& e) {
    return per_partition_error<offset_commit_response>(req, e);
}

}  // namespace ketch::broker
