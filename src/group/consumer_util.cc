#include "group/consumer_util.h"

#include <re2/re2.h>

#include "group/current_assignment.h"

namespace ketch::group {

bool regex_cache::compile(const std::string& pattern, std::string& why) {
    if (compiled_.count(pattern)) return true;
    re2::RE2::Options options;
    options.set_log_errors(false);
    auto re = std::make_shared<const re2::RE2>(pattern, options);
    if (!re->ok()) {
        why = re->error();
        return false;
    }
    compiled_[pattern] = std::move(re);
    return true;
}

bool regex_cache::matches(const std::string& pattern, const std::string& name) {
    std::string why;
    if (!compile(pattern, why)) return false;
    return re2::RE2::FullMatch(name, *compiled_[pattern]);
}

std::set<std::string> member_topic_names(const consumer_member& m, const topic_index& topics, regex_cache& rx) {
    std::set<std::string> out;
    for (const auto& t : m.subscribed_topic_names)
        if (topics.count(t)) out.insert(t);
    if (m.subscribed_topic_regex)
        for (const auto& [name, meta] : topics)
            if (rx.matches(*m.subscribed_topic_regex, name)) out.insert(name);
    return out;
}

std::set<uuid> member_topic_ids(const consumer_member& m, const topic_index& topics, regex_cache& rx) {
    std::set<uuid> out;
    for (const auto& name : member_topic_names(m, topics, rx)) out.insert(topics.at(name).id);
    return out;
}

bool refresh_subscription_metadata(consumer_group& g, const topic_index& topics, regex_cache& rx) {
    std::map<std::string, topic_meta> meta;
    for (const auto& [id, m] : g.members())
        for (const auto& name : member_topic_names(m, topics, rx)) meta[name] = topics.at(name);
    if (meta == g.subscription_metadata()) return false;
    g.set_subscription_metadata(std::move(meta));
    return true;
}

void compute_target_assignment(consumer_group& g, const topic_index& topics, regex_cache& rx, int64_t now_ms) {
    std::map<uuid, int32_t> counts;
    for (const auto& [name, meta] : topics) counts[meta.id] = meta.partitions;
    assignor_input in;
    for (const auto& [id, m] : g.members()) {
        auto& am = in.members.emplace_back();
        am.member_id = id;
        am.topics = member_topic_ids(m, topics, rx);
        am.current = g.target_of(id);
        for (const auto& t : am.topics) in.partitions[t] = counts.at(t);
    }
    auto name = g.preferred_assignor().value_or(std::string(default_assignor));
    g.set_target(assign(name, in), g.group_epoch(), now_ms);
}

bool can_compute_next_target(int64_t last_computed_ms, int32_t interval_ms, int64_t now_ms) {
    if (last_computed_ms == 0 || interval_ms == 0) return true;
    return now_ms >= last_computed_ms + interval_ms;
}

bool maybe_update_target_assignment(consumer_group& g, const topic_index& topics, regex_cache& rx, int32_t interval_ms,
                                    int64_t now_ms) {
    if (g.assignment_epoch() >= g.group_epoch()) return false;
    if (!can_compute_next_target(g.assignment_timestamp_ms(), interval_ms, now_ms)) return false;
    compute_target_assignment(g, topics, rx, now_ms);
    return true;
}

void store_member(consumer_group& g, const consumer_member& upd, bool subscription_changed, const topic_index& topics,
                  regex_cache& rx) {
    g.update_member(upd);
    if (refresh_subscription_metadata(g, topics, rx)) subscription_changed = true;
    if (subscription_changed) g.set_group_epoch(g.group_epoch() + 1);
}

consumer_member reconcile_member(consumer_group& g, const consumer_member& upd,
                                 const std::optional<topic_partitions>& owned, const topic_index& topics,
                                 regex_cache& rx) {
    if (upd.reconciled_to(g.assignment_epoch())) return upd;
    consumer_member next = reconcile(
        upd, g.assignment_epoch(), g.target_of(upd.member_id),
        [&g](const uuid& t, int32_t p) { return g.partition_epoch(t, p); }, owned, member_topic_ids(upd, topics, rx));
    if (next != upd) g.update_member(next);
    return next;
}

consumer_member update_member_step(consumer_group& g, const consumer_member& upd, bool subscription_changed,
                                   const std::optional<topic_partitions>& owned, const topic_index& topics,
                                   regex_cache& rx, int32_t interval_ms, int64_t now_ms) {
    store_member(g, upd, subscription_changed, topics, rx);
    maybe_update_target_assignment(g, topics, rx, interval_ms, now_ms);
    return reconcile_member(g, upd, owned, topics, rx);
}

}  // namespace ketch::group
