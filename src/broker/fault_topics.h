// The topics and partitions a decoded request names, for matching scripted
// faults (--faults, docs/design/faults.md). Read from the generated request by
// the field names Kafka's schemas use: a top-level `topics` or `topic_data`
// list whose entries carry `name`/`topic` (or a `topic_id`, resolved to its
// name) and `partitions`/`partition_data`/`partition_indexes`. A request
// without such a list names no topic. Only instantiated while a fault is
// active.
#pragma once

#include <concepts>
#include <string>
#include <string_view>
#include <vector>

#include "base/uuid.h"
#include "fault/rule.h"
#include "meta/topic_registry.h"

namespace ketch::broker::fault_detail {

template <class P>
int32_t partition_of(const P& p) {
    if constexpr (std::is_integral_v<P>)
        return int32_t(p);
    else if constexpr (requires {
                           { p.partition_index } -> std::convertible_to<int32_t>;
                       })
        return p.partition_index;
    else if constexpr (requires {
                           { p.partition } -> std::convertible_to<int32_t>;
                       })
        return p.partition;
    else if constexpr (requires {
                           { p.index } -> std::convertible_to<int32_t>;
                       })
        return p.index;
    else
        return -1;
}

template <class List>
void add_partitions(const List& list, std::vector<int32_t>& out) {
    for (auto& p : list)
        if (int32_t i = partition_of(p); i >= 0) out.push_back(i);
}

template <class T>
std::string topic_name(const T& t, const meta::topic_registry& topics) {
    std::string name;
    if constexpr (std::is_convertible_v<const T&, std::string_view>)
        name = std::string(std::string_view(t));
    else if constexpr (requires {
                           { t.name } -> std::convertible_to<std::string_view>;
                       })
        name = t.name;
    else if constexpr (requires {
                           { *t.name } -> std::convertible_to<std::string_view>;
                       })
        name = t.name.value_or("");
    else if constexpr (requires {
                           { t.topic } -> std::convertible_to<std::string_view>;
                       })
        name = t.topic;
    if constexpr (requires {
                      { t.topic_id } -> std::convertible_to<uuid>;
                  }) {
        if (name.empty() && !(t.topic_id == uuid{}))
            if (auto r = topics.find(t.topic_id)) name = r->t.name;
    }
    return name;
}

template <class T>
fault::topic_ref topic_of(const T& t, const meta::topic_registry& topics) {
    fault::topic_ref ref{topic_name(t, topics), {}};
    if constexpr (!std::is_convertible_v<const T&, std::string_view>) {
        if constexpr (requires { t.partition_data.begin(); })
            add_partitions(t.partition_data, ref.partitions);
        else if constexpr (requires { t.partitions.begin(); })
            add_partitions(t.partitions, ref.partitions);
        else if constexpr (requires { t.partition_indexes.begin(); })
            add_partitions(t.partition_indexes, ref.partitions);
    }
    return ref;
}

template <class List>
void add_topics(const List& list, const meta::topic_registry& topics, std::vector<fault::topic_ref>& out) {
    for (auto& t : list) out.push_back(topic_of(t, topics));
}

}  // namespace ketch::broker::fault_detail

namespace ketch::broker {

template <class Req>
std::vector<fault::topic_ref> fault_topics(const Req& req, const meta::topic_registry& topics) {
    std::vector<fault::topic_ref> out;
    if constexpr (requires { req.topic_data.begin(); })
        fault_detail::add_topics(req.topic_data, topics, out);
    else if constexpr (requires { req.topics.begin(); })
        fault_detail::add_topics(req.topics, topics, out);
    else if constexpr (requires { req.topics->begin(); }) {
        if (req.topics) fault_detail::add_topics(*req.topics, topics, out);
    }
    return out;
}

}  // namespace ketch::broker
