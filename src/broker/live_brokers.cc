#include "broker/live_brokers.h"

#include <algorithm>

#include "broker/request_context.h"
#include "cluster/membership.h"

namespace ketch::broker {

namespace {

std::vector<listed_broker> listed(const request_context& ctx, const cluster::broker_list& brokers) {
    const auto& c = ctx.broker.config;
    // The console's in-process calls come in on no listener of their own:
    // they see every broker at its first listener's address (as
    // advertised_for answers them for this broker).
    const std::string& name = ctx.conn.listener_name == "CONSOLE" ? c.listener_name : ctx.conn.listener_name;
    std::vector<listed_broker> out;
    for (auto& b : brokers) {
        if (b.node_id == c.node_id) {
            auto ep = c.advertised_for(name);
            out.push_back({b.node_id, ep.host, ep.port, b.rack});
        } else if (auto* e = b.find(name)) {
            out.push_back({b.node_id, e->host, e->port, b.rack});
        }
    }
    return out;
}

}  // namespace

std::vector<listed_broker> live_brokers(const request_context& ctx) { return listed(ctx, *ctx.broker.cluster->live()); }

std::vector<listed_broker> serving_brokers(const request_context& ctx) {
    return listed(ctx, *ctx.broker.cluster->serving());
}

std::set<int32_t> registered_brokers(const request_context& ctx) {
    std::set<int32_t> out{ctx.broker.config.node_id};
    if (ctx.broker.cluster)
        for (auto& b : *ctx.broker.cluster->live()) out.insert(b.node_id);
    return out;
}

namespace {

// FNV-1a, 64 bits: the same on every broker and every platform.
uint64_t fnv1a(std::string_view key, int32_t node) {
    uint64_t h = 0xcbf29ce484222325ull;
    auto mix = [&h](uint8_t b) { h = (h ^ b) * 0x100000001b3ull; };
    for (char ch : key) mix(uint8_t(ch));
    for (int i = 0; i < 4; ++i) mix(uint8_t(uint32_t(node) >> (8 * i)));
    // A final avalanche (splitmix64's), so that nearby node ids spread.
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

// The index in `live` of the broker whose hash of `key` is highest (ties: the
// lowest node id) among those `eligible(i)`; live.size() if none is.
template <class Eligible>
size_t highest_hash(const std::vector<listed_broker>& live, std::string_view key, Eligible eligible) {
    size_t best = live.size();
    uint64_t best_h = 0;
    for (size_t i = 0; i < live.size(); ++i) {
        if (!eligible(i)) continue;
        const uint64_t h = fnv1a(key, live[i].node_id);
        if (best == live.size() || h > best_h || (h == best_h && live[i].node_id < live[best].node_id)) {
            best = i;
            best_h = h;
        }
    }
    return best;
}

// The leaders of partitions 0 .. count-1 of a topic of `partitions` partitions
// (partition_leader: each depends only on those before it).
std::vector<int32_t> first_leaders(const std::vector<listed_broker>& live, std::string_view topic_id,
                                   int32_t partitions, int32_t count) {
    const int32_t n = int32_t(live.size());
    const int32_t cap = (partitions + n - 1) / n;
    std::vector<int32_t> led(live.size(), 0), out;
    out.reserve(size_t(std::max(count, 0)));
    std::string key(topic_id);
    key += ':';
    const size_t stem = key.size();
    for (int32_t p = 0; p < count; ++p) {
        key.resize(stem);
        key += std::to_string(p);
        const size_t best = highest_hash(live, key, [&](size_t i) { return led[i] < cap; });
        ++led[best];
        out.push_back(live[best].node_id);
    }
    return out;
}

}  // namespace

const listed_broker& owner_of(const std::vector<listed_broker>& live, std::string_view key) {
    return live[highest_hash(live, key, [](size_t) { return true; })];
}

std::vector<int32_t> partition_leaders(const std::vector<listed_broker>& live, std::string_view topic_id,
                                       int32_t partitions) {
    return first_leaders(live, topic_id, partitions, partitions);
}

int32_t partition_leader(const std::vector<listed_broker>& live, std::string_view topic_id, int32_t partition,
                         int32_t partitions) {
    return first_leaders(live, topic_id, std::max(partitions, partition + 1), partition + 1).back();
}

bool txn_coordinator_here(const request_context& ctx, std::string_view transactional_id) {
    if (!ctx.broker.cluster) return true;
    return owner_of(live_brokers(ctx), "txn:" + std::string(transactional_id)).node_id == ctx.broker.config.node_id;
}

error_code txn_coordinator_refusal(const request_context& ctx, std::string_view transactional_id) {
    if (!ctx.broker.txns) return error_code::coordinator_not_available;
    if (!txn_coordinator_here(ctx, transactional_id)) return error_code::not_coordinator;
    return error_code::none;
}

error_code txn_request_refusal(const request_context& ctx, const std::string& transactional_id,
                               const std::string* group) {
    using security::acl_operation, security::resource_type;
    if (!ctx.authorize(acl_operation::write, resource_type::transactional_id, transactional_id))
        return error_code::transactional_id_authorization_failed;
    if (group && !ctx.authorize(acl_operation::read, resource_type::group, *group))
        return error_code::group_authorization_failed;
    return txn_coordinator_refusal(ctx, transactional_id);
}

}  // namespace ketch::broker
