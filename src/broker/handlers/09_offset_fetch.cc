// OffsetFetch v1-10 (v0 read ZooKeeper and left Kafka in 4.0, KIP-896). v2:
// null topics = every committed offset, and a top-level error_code. v3:
// throttle_time_ms. v5: committed_leader_epoch. v6: flexible. v7:
// require_stable. v8: a batch of groups, each with its own error_code. v9:
// member_id and member_epoch (checked for KIP-848 groups only). v10: topics by
// id (KIP-848).
// Behaviour: KafkaApis.handleOffsetFetchRequest / fetchOffsetsForGroup /
// fetchAllOffsetsForGroup, OffsetFetchRequest.groups and
// OffsetFetchResponse.{groupError, Builder.build} (Apache Kafka 4.3.1): one
// coordinator call per group (group/offsets.cc); before v8 the one group's
// answer becomes the top level; before v2 a group error is put on every
// requested partition. From v10 unknown topic ids are UNKNOWN_TOPIC_ID, and
// "all offsets" leaves out topics that no longer exist (no id to show).
// ACLs: DESCRIBE on the group (else GROUP_AUTHORIZATION_FAILED), DESCRIBE on
// each topic (named: TOPIC_AUTHORIZATION_FAILED after the others; all
// offsets: left out).
#include "broker/blocking.h"
#include "broker/handlers/error_rows.h"
#include "broker/handlers/handlers.h"
#include "group/coordinator.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

using namespace kafka;

namespace {

using request_group = offset_fetch_request::offset_fetch_request_group;
using response_group = offset_fetch_response::offset_fetch_response_group;
using fetch_response_topic = offset_fetch_response::offset_fetch_response_topics;

// One partition's row: the batched groups' (v8+) or the top level's (v1-7).
template <class Row>
void set_row(Row& rp, int32_t partition, int64_t offset, int32_t leader_epoch, std::optional<std::string> metadata,
             int16_t error) {
    rp.partition_index = partition;
    rp.committed_offset = offset;
    rp.committed_leader_epoch = leader_epoch;
    rp.metadata = std::move(metadata);
    rp.error_code = error;
}

// require_stable: a partition with a transactional offset pending is
// UNSTABLE_OFFSET_COMMIT, offset -1 (OffsetMetadataManager.fetchOffsets).
void fill_partitions(fetch_response_topic& out, const group::fetch_topic_result& t, request_context& ctx,
                     const std::string& group_id, bool require_stable) {
    for (auto& p : t.partitions) {
        auto& rp = out.partitions.emplace_back();
        if (require_stable && ctx.broker.groups.has_pending_txn_offset(group_id, t.name, p.partition))
            set_row(rp, p.partition, -1, -1, "", code(error_code::unstable_offset_commit));
        else
            set_row(rp, p.partition, p.offset, p.leader_epoch, p.metadata, code(p.error));
    }
}

// Every requested partition with `e`, offset -1.
fetch_response_topic error_topic(const offset_fetch_request::offset_fetch_request_topics& t, error_code e) {
    fetch_response_topic out;
    out.name = t.name;
    out.topic_id = t.topic_id;
    for (int32_t p : t.partition_indexes) {
        auto& rp = out.partitions.emplace_back();
        rp.partition_index = p;
        rp.committed_offset = -1;
        rp.error_code = code(e);
    }
    return out;
}

// OffsetFetchResponse.groupError
response_group group_error(const request_group& g, error_code e, int16_t version) {
    response_group out;
    out.group_id = g.group_id;
    if (version >= 2) {
        out.error_code = code(e);
    } else if (g.topics) {
        for (auto& t : *g.topics) out.topics.push_back(error_topic(t, e));
    }
    return out;
}

response_group fetch_group(request_context& ctx, request_group& g, bool require_stable) {
    auto& b = ctx.broker;
    const bool use_ids = ctx.api_version >= 10;
    if (!ctx.authorize(security::acl_operation::describe, security::resource_type::group, g.group_id))
        return group_error(g, error_code::group_authorization_failed, ctx.api_version);
    auto may_describe = [&](const std::string& topic) {
        return ctx.authorize(security::acl_operation::describe, security::resource_type::topic, topic);
    };
    group::fetch_args args;
    args.group_id = g.group_id;
    args.require_stable = require_stable;
    args.member_id = g.member_id;
    args.member_epoch = g.member_epoch;

    std::vector<fetch_response_topic> unknown, denied;
    std::vector<uuid> asked_ids;  // of args.topics, which the coordinator answers in order
    if (g.topics) {
        args.topics.emplace();
        for (auto& t : *g.topics) {
            if (use_ids) {
                auto topic = t.topic_id.is_zero() ? std::nullopt : b.topics.by_id(t.topic_id);
                if (!topic) {
                    unknown.push_back(error_topic(t, error_code::unknown_topic_id));
                    continue;
                }
                t.name = topic->name;
            }
            if (!may_describe(t.name)) {
                denied.push_back(error_topic(t, error_code::topic_authorization_failed));
                continue;
            }
            args.topics->push_back({t.name, t.partition_indexes});
            asked_ids.push_back(t.topic_id);
        }
    }
    auto r = b.groups.fetch_offsets(args);
    if (r.error != error_code::none) return group_error(g, r.error, ctx.api_version);

    response_group out;
    out.group_id = g.group_id;
    if (g.topics) {
        for (size_t i = 0; i < r.topics.size(); ++i) {
            auto& rt = out.topics.emplace_back();
            rt.name = r.topics[i].name;
            if (i < asked_ids.size()) rt.topic_id = asked_ids[i];
            fill_partitions(rt, r.topics[i], ctx, g.group_id, require_stable);
        }
        for (auto& t : unknown) out.topics.push_back(std::move(t));
        for (auto& t : denied) out.topics.push_back(std::move(t));
        return out;
    }
    for (auto& t : r.topics) {
        if (!may_describe(t.name)) continue;
        uuid id{};
        if (use_ids) {
            auto topic = b.topics.by_name(t.name);
            if (!topic) continue;
            id = topic->id;
        }
        auto& rt = out.topics.emplace_back();
        rt.name = t.name;
        rt.topic_id = id;
        fill_partitions(rt, t, ctx, g.group_id, require_stable);
    }
    return out;
}

// Cluster mode: the coordinator reads PostgreSQL on the way (a group taken
// over, its lease confirmed before offsets are answered from memory), so
// the call runs on the reads' threads, not on the reactor (inline otherwise).
awaitable<response_group> fetch_group_off_reactor(request_context& ctx, request_group& g, bool require_stable) {
    response_group out;
    co_await reads_call(ctx.broker, [&] { out = fetch_group(ctx, g, require_stable); });
    co_return out;
}

}  // namespace

awaitable<offset_fetch_response> handle_offset_fetch(request_context& ctx, offset_fetch_request& req) {
    offset_fetch_response resp;
    if (ctx.api_version >= 8) {
        for (auto& g : req.groups) resp.groups.push_back(co_await fetch_group_off_reactor(ctx, g, req.require_stable));
        co_return resp;
    }
    // OffsetFetchRequest.groups: the one group of v1-7 in the batched shape.
    request_group g;
    g.group_id = req.group_id;
    if (req.topics) {
        for (auto& t : *req.topics) {
            auto& rt = g.topics->emplace_back();
            rt.name = t.name;
            rt.partition_indexes = t.partition_indexes;
        }
    } else {
        g.topics = std::nullopt;
    }
    auto out = co_await fetch_group_off_reactor(ctx, g, req.require_stable);
    resp.error_code = out.error_code;
    for (auto& t : out.topics) {
        auto& rt = resp.topics.emplace_back();
        rt.name = t.name;
        for (auto& p : t.partitions)
            set_row(rt.partitions.emplace_back(), p.partition_index, p.committed_offset, p.committed_leader_epoch,
                    p.metadata, p.error_code);
    }
    co_return resp;
}

// OffsetFetchRequest.getErrorResponse: each group with the error (v8+), the
// top-level error (v2-7), or every partition with it (v0-1).
std::optional<offset_fetch_response> offset_fetch_error(const offset_fetch_request& req, int16_t version,
                                                        const error_answer& e) {
    offset_fetch_response resp;
    if (version >= 8) {
        for (auto& g : req.groups) error_row(resp.groups, e).group_id = g.group_id;
    } else if (version >= 2) {
        resp.error_code = e.code;
    } else if (req.topics) {
        partition_error_rows(resp.topics, *req.topics, e, [](auto& rp) { rp.committed_offset = -1; });
    }
    return resp;
}

}  // namespace ketch::broker
