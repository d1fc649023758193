#include "group/group_state.h"

#include <cctype>
#include <string>

namespace ketch::group {

std::string_view state_name(group_state s) {
    switch (s) {
        case group_state::empty: return "Empty";
        case group_state::preparing_rebalance: return "PreparingRebalance";
        case group_state::completing_rebalance: return "CompletingRebalance";
        case group_state::stable: return "Stable";
        case group_state::dead: return "Dead";
    }
    return "Unknown";
}

std::string_view state_name_lower(group_state s) {
    switch (s) {
        case group_state::empty: return "empty";
        case group_state::preparing_rebalance: return "preparingrebalance";
        case group_state::completing_rebalance: return "completingrebalance";
        case group_state::stable: return "stable";
        case group_state::dead: return "dead";
    }
    return "unknown";
}

bool valid_transition(group_state from, group_state to) {
    using enum group_state;
    switch (to) {
        case empty: return from == preparing_rebalance;
        case preparing_rebalance: return from == stable || from == completing_rebalance || from == empty;
        case completing_rebalance: return from == preparing_rebalance;
        case stable: return from == completing_rebalance;
        case dead: return true;
    }
    return false;
}

std::string_view type_name(group_type t) {
    switch (t) {
        case group_type::classic: return "classic";
        case group_type::consumer: return "consumer";
        case group_type::streams: return "streams";
    }
    return "classic";
}

std::optional<group_type> parse_type(std::string_view name) {
    std::string lower(name);
    for (auto& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "classic") return group_type::classic;
    if (lower == "consumer") return group_type::consumer;
    if (lower == "streams") return group_type::streams;
    return std::nullopt;
}

}  // namespace ketch::group
