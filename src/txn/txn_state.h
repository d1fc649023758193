// The states of a transactional id, as Kafka's TransactionState names them
// (transaction-coordinator module, Kafka 4.3.1). The numeric values are what
// meta::txn_store persists: never renumber.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ketch::txn {

enum class txn_state : int8_t {
    empty = 0,
    ongoing = 1,
    prepare_commit = 2,
    prepare_abort = 3,
    complete_commit = 4,
    complete_abort = 5,
    dead = 6,
    prepare_epoch_fence = 7,
};

// "Empty", "Ongoing", ... as DescribeTransactions and ListTransactions show them.
std::string_view state_name(txn_state s);
std::optional<txn_state> state_from_name(std::string_view name);

// TransactionState.validPreviousStates: may `to` follow `from`?
bool valid_transition(txn_state from, txn_state to);

// Empty, CompleteCommit, CompleteAbort: no transaction in progress, the id may expire.
inline bool is_expiration_allowed(txn_state s) {
    return s == txn_state::empty || s == txn_state::complete_commit || s == txn_state::complete_abort;
}

}  // namespace ketch::txn
