// InternalTopicManager.configureTopics and its helpers (Apache Kafka 4.3.1,
// group-coordinator streams/topics): messages are Kafka's.
#include "group/streams_topology.h"

#include <algorithm>
#include <set>

namespace ketch::group {

namespace {

std::string joined_names(const std::set<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

struct not_ready {
    streams_status status;
};
struct topology_invalid {
    std::string message;
};

using counts = std::map<std::string, int32_t>;

std::optional<int32_t> count_of(const counts& known, const partition_count_lookup& lookup, const std::string& t) {
    if (auto it = known.find(t); it != known.end()) return it->second;
    return lookup(t);
}

// RepartitionTopics.setup: fixed counts first, then a repartition topic takes
// the largest count of the subtopologies writing to it, until nothing changes.
counts repartition_counts(const streams_topology& t, const partition_count_lookup& lookup) {
    counts known;
    std::set<std::string> unknown;
    std::set<std::string> sinks;
    for (const auto& s : t.subtopologies)
        sinks.insert(s.repartition_sink_topics.begin(), s.repartition_sink_topics.end());
    for (const auto& s : t.subtopologies)
        for (const auto& r : s.repartition_source_topics) {
            if (r.partitions > 0) {
                known[r.name] = r.partitions;
            } else {
                if (!sinks.count(r.name))
                    throw topology_invalid{
                        "Failed to compute number of partitions for all repartition topics, because a "
                        "repartition source topic is never used as a sink topic."};
                unknown.insert(r.name);
            }
        }
    bool progress = true;
    while (!unknown.empty() && progress) {
        progress = false;
        for (const auto& s : t.subtopologies) {
            std::optional<int32_t> max;
            bool complete = true;
            for (const auto& src : s.source_topics) {
                auto c = count_of(known, lookup, src);
                if (c) max = std::max(max.value_or(0), *c);
            }
            for (const auto& r : s.repartition_source_topics) {
                auto c = count_of(known, lookup, r.name);
                if (c)
                    max = std::max(max.value_or(0), *c);
                else
                    complete = false;
            }
            if (!max || !complete) continue;
            for (const auto& sink : s.repartition_sink_topics)
                if (unknown.count(sink)) {
                    known[sink] = std::max(known[sink], *max);
                    unknown.erase(sink);
                    progress = true;
                }
        }
    }
    if (!unknown.empty())
        throw topology_invalid{
            "Failed to compute number of partitions for all repartition topics. There may be loops in "
            "the topology that cannot be resolved."};
    return known;
}

// CopartitionedTopicsEnforcer.enforce for one group of topics.
void enforce_copartitioning(const std::set<std::string>& sources, const std::set<std::string>& repartitions,
                            const std::set<std::string>& fixed, counts& known, const partition_count_lookup& lookup) {
    std::optional<int32_t> n;
    if (!sources.empty()) {
        std::map<std::string, int32_t> by_topic;
        for (const auto& s : sources) by_topic[s] = count_of(known, lookup, s).value_or(0);
        std::set<int32_t> distinct;
        for (auto& [_, c] : by_topic) distinct.insert(c);
        if (distinct.size() > 1) {
            std::string list;
            for (auto& [name, c] : by_topic) list += (list.empty() ? "" : ", ") + name + "=" + std::to_string(c);
            throw not_ready{{streams_status_code::incorrectly_partitioned_topics,
                             "Following topics do not have the same number of partitions: [" + list + "]"}};
        }
        n = *distinct.begin();
    } else {
        for (const auto& r : repartitions) n = std::max(n.value_or(0), known[r]);
    }
    for (const auto& r : repartitions) {
        if (fixed.count(r) && known[r] != *n)
            throw topology_invalid{"Number of partitions [" + std::to_string(known[r]) + "] of repartition topic [" +
                                   r + "] doesn't match number of partitions [" + std::to_string(*n) +
                                   "] of the source topic."};
        known[r] = *n;
    }
}

void copartition(const streams_topology& t, counts& known, const partition_count_lookup& lookup) {
    std::set<std::string> fixed;
    for (const auto& s : t.subtopologies)
        for (const auto& r : s.repartition_source_topics)
            if (r.partitions > 0) fixed.insert(r.name);
    for (const auto& s : t.subtopologies)
        for (const auto& g : s.copartition_groups) {
            std::set<std::string> sources, repartitions;
            for (auto i : g.source_topics)
                if (i >= 0 && size_t(i) < s.source_topics.size()) sources.insert(s.source_topics[size_t(i)]);
            for (auto i : g.repartition_source_topics)
                if (i >= 0 && size_t(i) < s.repartition_source_topics.size())
                    repartitions.insert(s.repartition_source_topics[size_t(i)].name);
            if (sources.empty() && repartitions.empty()) continue;
            enforce_copartitioning(sources, repartitions, fixed, known, lookup);
        }
}

void add_internal(configured_topology& out, std::set<std::string>& missing, const streams_topic_info& info,
                  int32_t partitions, const partition_count_lookup& lookup) {
    auto existing = lookup(info.name);
    if (existing) {
        if (*existing != partitions)
            throw not_ready{{streams_status_code::incorrectly_partitioned_topics,
                             "Existing topic " + info.name + " has different number of partitions: expected " +
                                 std::to_string(partitions) + ", found " + std::to_string(*existing)}};
        return;
    }
    if (!missing.insert(info.name).second) return;
    out.topics_to_create.push_back(streams_topic_to_create{
        info.name, partitions, info.replication_factor == 0 ? int16_t(-1) : info.replication_factor, info.configs});
}

void configure(const streams_topology& t, const partition_count_lookup& lookup, configured_topology& out) {
    std::set<std::string> internal;
    for (const auto& s : t.subtopologies)
        for (const auto& r : s.repartition_source_topics) internal.insert(r.name);
    std::set<std::string> missing_sources;
    for (const auto& s : t.subtopologies)
        for (const auto& src : s.source_topics)
            if (!internal.count(src) && !lookup(src)) missing_sources.insert(src);
    if (!missing_sources.empty())
        throw not_ready{{streams_status_code::missing_source_topics,
                         "Source topics " + joined_names(missing_sources) + " are missing."}};
    counts known = repartition_counts(t, lookup);
    copartition(t, known, lookup);
    std::set<std::string> missing;
    for (const auto& s : t.subtopologies) {
        auto& c = out.subtopologies[s.id];
        for (const auto& src : s.source_topics) {
            c.number_of_tasks = std::max(c.number_of_tasks, count_of(known, lookup, src).value_or(0));
            c.source_topics.push_back(src);
        }
        for (const auto& r : s.repartition_source_topics) {
            c.number_of_tasks = std::max(c.number_of_tasks, known[r.name]);
            c.source_topics.push_back(r.name);
            add_internal(out, missing, r, known[r.name], lookup);
        }
        c.stateful = !s.state_changelog_topics.empty();
        for (const auto& ch : s.state_changelog_topics) add_internal(out, missing, ch, c.number_of_tasks, lookup);
    }
    if (!missing.empty()) {
        out.subtopologies.clear();
        out.status = streams_status{streams_status_code::missing_internal_topics,
                                    "Internal topics are missing: " + joined_names(missing)};
    }
}

}  // namespace

std::optional<std::string> invalid_topology(const streams_topology& t) {
    for (const auto& s : t.subtopologies)
        for (const auto& ch : s.state_changelog_topics)
            if (ch.partitions != 0)
                return "Changelog topic " + ch.name + " must have an undefined partition count, but it is set to " +
                       std::to_string(ch.partitions) + ".";
    return std::nullopt;
}

configured_topology configure_topics(const streams_topology& t, const partition_count_lookup& lookup) {
    configured_topology out;
    try {
        configure(t, lookup, out);
    } catch (const not_ready& e) {
        out = configured_topology{};
        out.status = e.status;
    } catch (const topology_invalid& e) {
        out = configured_topology{};
        out.invalid = e.message;
    }
    return out;
}

std::vector<std::string> topology_topics(const streams_topology& t) {
    std::set<std::string> all;
    for (const auto& s : t.subtopologies) {
        all.insert(s.source_topics.begin(), s.source_topics.end());
        for (const auto& r : s.repartition_source_topics) all.insert(r.name);
        for (const auto& c : s.state_changelog_topics) all.insert(c.name);
    }
    return {all.begin(), all.end()};
}

}  // namespace ketch::group
