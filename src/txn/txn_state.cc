#include "txn/txn_state.h"

#include <array>

namespace ketch::txn {

namespace {
constexpr std::array<std::string_view, 8> k_names = {"Empty",        "Ongoing",          "PrepareCommit",
                                                     "PrepareAbort", "CompleteCommit",   "CompleteAbort",
                                                     "Dead",         "PrepareEpochFence"};
}

std::string_view state_name(txn_state s) { return k_names[size_t(s)]; }

std::optional<txn_state> state_from_name(std::string_view name) {
    for (size_t i = 0; i < k_names.size(); ++i)
        if (k_names[i] == name) return txn_state(i);
    return std::nullopt;
}

bool valid_transition(txn_state from, txn_state to) {
    using enum txn_state;
    switch (to) {
        case empty: return from == empty || from == complete_commit || from == complete_abort;
        case ongoing: return from == ongoing || from == empty || from == complete_commit || from == complete_abort;
        case prepare_commit: return from == ongoing;
        case prepare_abort: return from == ongoing || from == prepare_epoch_fence;
        case complete_commit: return from == prepare_commit;
        case complete_abort: return from == prepare_abort;
        case dead: return from == empty || from == complete_commit || from == complete_abort;
        case prepare_epoch_fence: return from == ongoing;
    }
    return false;
}

}  // namespace ketch::txn
