// The transaction coordinator: transactional ids, their producer ids and
// epochs, and the two-phase end of a transaction. Behaviour follows Kafka
// 4.3.1's TransactionCoordinator, TransactionStateManager and
// TransactionMarkerChannelManager for transaction version 1 (the classic
// protocol: AddPartitionsToTxn from the client, EndTxn up to v4) and 2
// (KIP-890: partitions added by the broker on the producer's behalf, EndTxn
// v5 bumps the epoch at every end and answers the new producer id/epoch).
//
// Durability: every state change is written to the meta::txn_store before it
// is adopted and before the request that caused it is answered (Kafka appends
// to __transaction_state first). While a write is under way the id has a
// pending state, and other requests for it get CONCURRENT_TRANSACTIONS.
//
// Ending a transaction: PrepareCommit/PrepareAbort is made durable and EndTxn
// answered; then, on the executor, markers go to every partition (retried
// until written or the partition is gone), the group coordinator completes
// the transaction's offsets, and CompleteCommit/CompleteAbort is written.
// After a restart (load), transactions found in a Prepare state are completed
// the same way; Ongoing ones are aborted by their timeout or by the next
// InitProducerId.
//
// Threads: every method may be called from any thread; one mutex guards the
// state and is never held across a store write or a marker write.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/error_code.h"
#include "meta/txn_store.h"
#include "txn/marker_writer.h"
#include "txn/ownership.h"
#include "txn/txn_config.h"
#include "txn/txn_metadata.h"

namespace ketch::txn {

struct init_pid_result {
    error_code error = error_code::none;
    int64_t producer_id = no_producer_id;
    int16_t producer_epoch = no_producer_epoch;
};

struct pid_and_epoch {
    int64_t producer_id = no_producer_id;
    int16_t producer_epoch = no_producer_epoch;
};

struct end_txn_result {
    error_code error = error_code::none;
    int64_t producer_id = no_producer_id;
    int16_t producer_epoch = no_producer_epoch;
};

struct described_txn {
    error_code error = error_code::none;
    std::string transactional_id;
    std::string state;
    int32_t timeout_ms = 0;
    int64_t start_ms = -1;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    std::vector<topic_partition> partitions;  // in order
};

struct listed_txn {
    std::string transactional_id;
    int64_t producer_id = -1;
    std::string state;
};

struct list_txns_result {
    error_code error = error_code::none;
    std::vector<std::string> unknown_state_filters;
    std::vector<listed_txn> txns;
};

class transaction_coordinator {
public:
    using executor = std::function<void(std::function<void()>)>;
    using delayed_executor = std::function<void(int64_t delay_ms, std::function<void()>)>;

    // `next_producer_id` hands out fresh producer ids (txn::producer_ids);
    // it may throw, which InitProducerId answers as Kafka does an id
    // allocation failure. `run` executes marker jobs (inline in some tests);
    // `run_later` runs a retry after a delay without occupying `run`'s
    // threads meanwhile (unset: `run` at once).
    transaction_coordinator(txn_config config, std::function<int64_t()> now_ms,
                            std::function<int64_t()> next_producer_id, meta::txn_store& store, marker_writer& markers,
                            executor run, delayed_executor run_later = {});

    // Loads the stored transactions and starts completing the prepared ones.
    status<meta::store_error> load();
    // Later requests are answered COORDINATOR_NOT_AVAILABLE (Kafka's isActive);
    // marker jobs stop retrying.
    void shutdown();

    // InitProducerId with a transactional id (non-empty; the handler answers
    // the idempotent case). `expected`: v3+ producer id/epoch, if given.
    init_pid_result init_producer_id(const std::string& transactional_id, int32_t timeout_ms,
                                     std::optional<pid_and_epoch> expected);
    // `client_txn_version` 2: the broker adds them for a transaction
    // version 2 producer (Produce v12+, TxnOffsetCommit v5).
    error_code add_partitions(const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch,
                              const std::vector<topic_partition>& partitions, int8_t client_txn_version = 1);
    // AddPartitionsToTxn v4+ verify_only (handleVerifyPartitionsInTransaction).
    std::vector<std::pair<topic_partition, error_code>> verify_partitions(
        const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch,
        const std::vector<topic_partition>& partitions);
    // EndTxn v0-4 (endTransactionWithTV1).
    error_code end_txn(const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch, bool commit);
    // EndTxn v5+ (endTransaction with transaction version 2): the epoch is
    // bumped at every end; the answer carries the producer id and epoch the
    // client continues with (a new id when the epoch is exhausted).
    end_txn_result end_txn_v2(const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch,
                              bool commit);

    described_txn describe(const std::string& transactional_id);
    // id_pattern (ListTransactions v2, KIP-1152): an RE2 pattern the whole
    // transactional id must match; empty lists every id.
    list_txns_result list(const std::vector<std::string>& state_filters, const std::vector<int64_t>& producer_ids,
                          int64_t duration_filter_ms, const std::string& id_pattern = {});

    // The periodic tasks (the broker runs them every
    // abort_timed_out_interval_ms / remove_expired_interval_ms).
    void abort_timed_out();
    void expire_transactional_ids();

    // Removes every transactional id `owned` accepts (a deleted tenant's,
    // docs/tenancy.md "Administration"; coordinator_purge.cc): an ongoing
    // transaction is fenced and aborted as by its timeout, a completing one
    // waited for (at most wait_ms in all), then each id is removed as its
    // expiration removes it. An id still completing at the end, or whose
    // removal failed, stays (`left`). Cluster mode: the ids this broker holds.
    struct purge_result {
        size_t removed = 0, aborted = 0, left = 0;
    };
    purge_result purge(const std::function<bool(const std::string&)>& owned, int64_t wait_ms);

    // Cluster mode (txn/ownership.h): which ids this broker coordinates.
    // Set once before requests come; null serves every id.
    void set_ownership(txn_ownership* o);

    // Calls `wake` once the transaction of `transactional_id` is no longer
    // completing (its markers and Complete state written), at once when it is
    // not completing; on the completing thread, without the lock. A request
    // held on CONCURRENT_TRANSACTIONS (a version 2 producer's next produce,
    // AddPartitionsToTxn) asks again then instead of after its whole backoff.
    // It may be called early (at most k_completion_waiters wait per id); the
    // caller asks the coordinator again. Returns the token forget_waiter takes
    // (0: already called).
    uint64_t when_completed(const std::string& transactional_id, std::function<void()> wake);
    // Drops a waiter that stopped waiting (its wake holds the request's
    // executor, which must not be used once the request is done).
    void forget_waiter(const std::string& transactional_id, uint64_t token);
    static constexpr size_t k_completion_waiters = 64;

    // For tests and the console: the adopted metadata and pending state.
    std::optional<txn_metadata> state_of(const std::string& transactional_id);
    std::optional<txn_state> pending_of(const std::string& transactional_id);

private:
    struct entry {
        txn_metadata m;
        std::optional<txn_state> pending;
        bool failed_epoch_fence = false;
    };
    using end_callback = std::function<void(error_code)>;
    // The completion of a prepared transaction, across retries.
    struct completion {
        std::string id;
        txn_metadata prepared;
        txn_metadata completed;
        std::vector<topic_partition> remaining;  // markers not yet written
        bool offsets_done = false;
    };

    // The entry of `id` (`l` holds mu_), created with a new producer id when
    // there is none: the id is allocated with mu_ released. Null when the
    // allocation fails.
    entry* find_or_create_locked(std::unique_lock<std::mutex>& l, const std::string& id, int32_t timeout_ms);
    // Writes `next` durably (pending set by the caller, mu_ not held) and adopts it.
    // `epoch_fence`: `next` ends a transaction at a fencing epoch; a failed
    // write marks the entry failed_epoch_fence.
    error_code persist(const std::string& id, const txn_metadata& next, bool epoch_fence = false);
    // Kafka's endTransaction (TV1). Returns the error to answer.
    error_code end_internal(const std::string& id, int64_t producer_id, int16_t producer_epoch, bool commit,
                            bool from_client);
    // Kafka's endTransaction (TV2), also for the coordinator's own aborts
    // (they run at the server's transaction version, 2).
    end_txn_result end_internal_v2(const std::string& id, int64_t producer_id, int16_t producer_epoch, bool commit,
                                   bool from_client);
    // The Prepare state of a version 2 end, under mu_; a new producer id if the epoch is exhausted.
    result<txn_metadata, error_code> prepare_end_v2_locked(entry& e, bool commit, bool no_partition_added,
                                                           bool fencing);
    // After the Prepare state is durable: Complete* pending, markers queued.
    end_txn_result after_prepare(const std::string& id, int64_t producer_id, int16_t producer_epoch,
                                 const txn_metadata& prepared, bool v2);
    // Writes the markers and the completion of a prepared transaction.
    void complete(const std::string& id, txn_metadata prepared, txn_metadata completed);
    void attempt_complete(const std::shared_ptr<completion>& c);
    bool stopped();
    // Cluster mode: NOT_COORDINATOR for an id this broker does not own; an id
    // taken now has its stored state adopted (coordinator_cluster.cc).
    error_code claim(const std::string& id);
    // Replaces what this broker held of `id` with `stored`; a prepared
    // transaction is completed (its markers sent again), as load() does.
    void adopt(const std::string& id, const std::optional<meta::stored_txn>& stored);
    // Takes the orphaned ids this broker owns (before the timeout check).
    void claim_orphans();
    // purge: until `id` is not completing (its markers and Complete state written) or `deadline`.
    void wait_completed(const std::string& id, std::chrono::steady_clock::time_point deadline);
    // purge: removes `id` if it has no transaction in progress; false: it stays.
    bool remove_if_idle(const std::string& id);

    txn_config config_;
    std::function<int64_t()> now_ms_;
    std::function<int64_t()> next_producer_id_;
    meta::txn_store& store_;
    marker_writer& markers_;
    executor run_;
    delayed_executor run_later_;

    std::mutex mu_;  // guards everything below
    bool active_ = false;
    txn_ownership* own_ = nullptr;
    std::map<std::string, entry> txns_;
    using waiter = std::pair<uint64_t, std::function<void()>>;       // token, wake
    std::map<std::string, std::vector<waiter>> completion_waiters_;  // when_completed
    uint64_t next_waiter_ = 0;
};

}  // namespace ketch::txn
