#include "group/assignor.h"

#include <algorithm>

namespace ketch::group {

bool is_known_assignor(std::string_view name) { return name == "uniform" || name == "range"; }

// Kafka lists its assignors from a HashMap keyed by name: "uniform" hashes
// to an earlier bucket than "range".
std::string known_assignors() { return "uniform, range"; }

namespace {

struct partition_ref {
    uuid topic;
    int32_t partition;
    auto operator<=>(const partition_ref&) const = default;
};

size_t assigned_count(const topic_partitions& a) {
    size_t n = 0;
    for (const auto& [t, ps] : a) n += ps.size();
    return n;
}

}  // namespace

assignment_map assign_uniform(const assignor_input& in) {
    assignment_map out;
    std::map<partition_ref, std::string> owner;
    // 1. Stickiness: every member keeps what it had that still exists and
    //    that it still subscribes to.
    for (const auto& m : in.members) {
        auto& mine = out[m.member_id];
        for (const auto& [topic, ps] : m.current) {
            auto count = in.partitions.find(topic);
            if (count == in.partitions.end() || !m.topics.count(topic)) continue;
            for (int32_t p : ps) {
                if (p >= count->second || owner.count({topic, p})) continue;
                owner[{topic, p}] = m.member_id;
                mine[topic].insert(p);
            }
        }
    }
    auto size_of = [&](const std::string& id) { return assigned_count(out[id]); };
    // 2. Every free partition goes to the subscribed member with the fewest.
    for (const auto& [topic, count] : in.partitions) {
        for (int32_t p = 0; p < count; ++p) {
            if (owner.count({topic, p})) continue;
            const assignor_member* best = nullptr;
            for (const auto& m : in.members)
                if (m.topics.count(topic) && (!best || size_of(m.member_id) < size_of(best->member_id))) best = &m;
            if (!best) continue;  // nobody subscribes (cannot happen: only subscribed topics are given)
            owner[{topic, p}] = best->member_id;
            out[best->member_id][topic].insert(p);
        }
    }
    // 3. Balance: move a partition from a member with more than one above
    //    another member that could take it, until none can move.
    bool moved = true;
    for (size_t rounds = 0; moved && rounds < owner.size() * (in.members.size() + 1); ++rounds) {
        moved = false;
        for (const auto& rich : in.members) {
            for (const auto& poor : in.members) {
                if (size_of(rich.member_id) <= size_of(poor.member_id) + 1) continue;
                auto& from = out[rich.member_id];
                std::optional<uuid> topic;
                for (auto it = from.rbegin(); it != from.rend(); ++it)
                    if (poor.topics.count(it->first) && !it->second.empty()) {
                        topic = it->first;
                        break;
                    }
                if (!topic) continue;
                auto& ps = from[*topic];
                const int32_t p = *ps.rbegin();
                ps.erase(p);
                if (ps.empty()) from.erase(*topic);
                out[poor.member_id][*topic].insert(p);
                owner[{*topic, p}] = poor.member_id;
                moved = true;
                if (moved) break;
            }
            if (moved) break;
        }
    }
    for (auto& [id, a] : out)
        for (auto it = a.begin(); it != a.end();) it = it->second.empty() ? a.erase(it) : std::next(it);
    return out;
}

assignment_map assign_range(const assignor_input& in) {
    assignment_map out;
    for (const auto& m : in.members) out[m.member_id];
    for (const auto& [topic, count] : in.partitions) {
        std::vector<const assignor_member*> subs;
        for (const auto& m : in.members)
            if (m.topics.count(topic)) subs.push_back(&m);
        if (subs.empty()) continue;
        const int32_t n = int32_t(subs.size());
        const int32_t quota = count / n, extra = count % n;
        int32_t next = 0;
        for (int32_t i = 0; i < n; ++i) {
            const int32_t take = quota + (i < extra ? 1 : 0);
            for (int32_t k = 0; k < take; ++k) out[subs[size_t(i)]->member_id][topic].insert(next++);
        }
    }
    return out;
}

assignment_map assign(std::string_view name, const assignor_input& in) {
    return name == "range" ? assign_range(in) : assign_uniform(in);
}

}  // namespace ketch::group
