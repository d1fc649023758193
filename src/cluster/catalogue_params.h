// The statement parameters the catalogue and the flush commit build alike.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>

#include "cluster/catalogue.h"

namespace ketch::cluster {

// A partition's key columns: its topic id and partition number.
inline pg_params key(const partition_key& tp) { return {tp.topic_id, std::to_string(tp.partition)}; }

// `p` followed by `more`.
inline pg_params with(pg_params p, std::initializer_list<std::optional<std::string>> more) {
    p.insert(p.end(), more);
    return p;
}

}  // namespace ketch::cluster
