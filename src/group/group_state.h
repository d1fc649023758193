// The classic group's states and the group types, with Kafka's names
// (ClassicGroupState.java, Group.java).
#pragma once

#include <optional>
#include <string_view>

namespace ketch::group {

//   Empty -> PreparingRebalance -> CompletingRebalance -> Stable
//   Stable | CompletingRebalance -> PreparingRebalance
//   PreparingRebalance -> Empty (the last member left)
//   any -> Dead (the group is being removed)
enum class group_state { empty, preparing_rebalance, completing_rebalance, stable, dead };

// "Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead".
std::string_view state_name(group_state s);
// The same names in lower case, as ListGroups' states filter compares them.
std::string_view state_name_lower(group_state s);

// Whether a group may move from `from` to `to`.
bool valid_transition(group_state from, group_state to);

// The group's type: "classic", "consumer" (KIP-848) or "streams" (KIP-1071).
// ListGroups v5 filters on these names.
enum class group_type { classic, consumer, streams };

std::string_view type_name(group_type t);
// Kafka's GroupType.parse: case-insensitive; nullopt for a name that is no
// type this coordinator has (Kafka's UNKNOWN; "share" groups are the share
// coordinator's, listed by the handler).
std::optional<group_type> parse_type(std::string_view name);

}  // namespace ketch::group
