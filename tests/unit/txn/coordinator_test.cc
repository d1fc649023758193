// The transaction coordinator's state machine and error codes, per state.
// Reference: Kafka 4.3.1 TransactionCoordinator (handleInitProducerId,
// prepareInitProducerIdTransit, handleAddPartitionsToTransaction,
// endTransactionWithTV1, abortTimedOutTransactions), TransactionMetadata
// (prepareIncrementProducerEpoch, prepareProducerIdRotation,
// prepareFenceProducerEpoch) and TransactionStateManager
// (listTransactionStates, removeExpiredTransactionalIds).
#include "coordinator_fixture.h"

namespace ketch::txn::testing {

TEST_F(coordinator_test, init_new_id_gets_fresh_producer_id_epoch_zero) {
    auto r = init("a");
    EXPECT_EQ(r.error, error_code::none);
    EXPECT_EQ(r.producer_id, 1000);
    EXPECT_EQ(r.producer_epoch, 0);
    EXPECT_EQ(state("a"), txn_state::empty);
}

TEST_F(coordinator_test, init_again_bumps_epoch_same_producer_id) {
    init("a");
    auto r = init("a");
    EXPECT_EQ(r.producer_id, 1000);
    EXPECT_EQ(r.producer_epoch, 1);
}

TEST_F(coordinator_test, init_rejects_empty_id_and_bad_timeouts) {
    EXPECT_EQ(init("").error, error_code::invalid_request);
    EXPECT_EQ(init("a", 900001).error, error_code::invalid_transaction_timeout);
    EXPECT_EQ(init("a", 0).error, error_code::invalid_transaction_timeout);
    EXPECT_EQ(init("a", 900000).error, error_code::none);
}

TEST_F(coordinator_test, init_with_expected_epoch_of_other_producer_is_fenced) {
    auto first = init("a");
    init("a");  // epoch 1, last epoch cleared
    EXPECT_EQ(init("a", 60000, pid_and_epoch{first.producer_id, first.producer_epoch}).error,
              error_code::producer_fenced);
    EXPECT_EQ(init("a", 60000, pid_and_epoch{4242, 0}).error, error_code::producer_fenced);
}

TEST_F(coordinator_test, init_retry_with_expected_last_epoch_returns_current) {
    auto r0 = init("a");
    auto r1 = init("a", 60000, pid_and_epoch{r0.producer_id, r0.producer_epoch});  // KIP-360 bump
    EXPECT_EQ(r1.producer_epoch, 1);
    auto again = init("a", 60000, pid_and_epoch{r0.producer_id, r0.producer_epoch});  // lost response, retried
    EXPECT_EQ(again.error, error_code::none);
    EXPECT_EQ(again.producer_epoch, 1);
}

TEST_F(coordinator_test, exhausted_epoch_rotates_producer_id) {
    init("a");
    auto m = *coord->state_of("a");
    m.producer_epoch = INT16_MAX - 1;
    ASSERT_TRUE(store.put_txn(to_stored_txn(m)).ok());
    restart();
    auto r = init("a");
    EXPECT_EQ(r.error, error_code::none);
    EXPECT_NE(r.producer_id, 1000);
    EXPECT_EQ(r.producer_epoch, 0);
    EXPECT_EQ(coord->state_of("a")->previous_producer_id, 1000);
}

TEST_F(coordinator_test, add_partitions_errors_by_producer) {
    EXPECT_EQ(coord->add_partitions("nope", 1, 0, {{"t", 0}}), error_code::invalid_producer_id_mapping);
    auto r = init("a");
    EXPECT_EQ(coord->add_partitions("a", r.producer_id + 1, 0, {{"t", 0}}), error_code::invalid_producer_id_mapping);
    EXPECT_EQ(coord->add_partitions("a", r.producer_id, 7, {{"t", 0}}), error_code::producer_fenced);
    EXPECT_EQ(coord->add_partitions("", r.producer_id, 0, {{"t", 0}}), error_code::invalid_request);
    EXPECT_EQ(coord->add_partitions("a", r.producer_id, 0, {{"t", 0}}), error_code::none);
    EXPECT_EQ(state("a"), txn_state::ongoing);
    EXPECT_EQ(coord->state_of("a")->txn_start_ms, now);
}

TEST_F(coordinator_test, end_txn_in_each_state) {
    auto r = init("a");
    // Empty: nothing to end.
    EXPECT_EQ(coord->end_txn("a", r.producer_id, r.producer_epoch, true), error_code::invalid_txn_state);
    EXPECT_EQ(coord->end_txn("a", r.producer_id, r.producer_epoch, false), error_code::invalid_txn_state);
    coord->add_partitions("a", r.producer_id, r.producer_epoch, {{"t", 0}});
    EXPECT_EQ(coord->end_txn("a", r.producer_id, r.producer_epoch + 1, true), error_code::producer_fenced);
    EXPECT_EQ(coord->end_txn("a", r.producer_id + 1, r.producer_epoch, true), error_code::invalid_producer_id_mapping);
    EXPECT_EQ(coord->end_txn("a", r.producer_id, r.producer_epoch, true), error_code::none);
    // PrepareCommit durable, completion pending: everything is CONCURRENT_TRANSACTIONS.
    EXPECT_EQ(state("a"), txn_state::prepare_commit);
    EXPECT_EQ(coord->end_txn("a", r.producer_id, r.producer_epoch, true), error_code::concurrent_transactions);
    EXPECT_EQ(coord->end_txn("a", r.producer_id, r.producer_epoch, false), error_code::concurrent_transactions);
    EXPECT_EQ(coord->add_partitions("a", r.producer_id, r.producer_epoch, {{"t", 1}}),
              error_code::concurrent_transactions);
    EXPECT_EQ(init("a").error, error_code::concurrent_transactions);
    run_jobs();
    EXPECT_EQ(state("a"), txn_state::complete_commit);
    EXPECT_TRUE(coord->state_of("a")->partitions.empty());
    // A retried commit succeeds; an abort after a commit is INVALID_TXN_STATE.
    EXPECT_EQ(coord->end_txn("a", r.producer_id, r.producer_epoch, true), error_code::none);
    EXPECT_EQ(coord->end_txn("a", r.producer_id, r.producer_epoch, false), error_code::invalid_txn_state);
}

// A request held on CONCURRENT_TRANSACTIONS (a version 2 produce,
// AddPartitionsToTxn) waits for the completion rather than a whole backoff.
TEST_F(coordinator_test, completion_waiters_are_woken_when_the_transaction_completes) {
    auto r = begin("a");
    int woken = 0;
    coord->when_completed("a", [&] { ++woken; });  // not completing: at once
    coord->when_completed("unknown", [&] { ++woken; });
    EXPECT_EQ(woken, 2);
    ASSERT_EQ(coord->end_txn("a", r.producer_id, r.producer_epoch, true), error_code::none);
    for (size_t i = 0; i < transaction_coordinator::k_completion_waiters + 1; ++i)
        coord->when_completed("a", [&] { ++woken; });
    EXPECT_EQ(woken, 3);  // bounded: the oldest waiter is woken early
    run_jobs();
    EXPECT_EQ(woken, 3 + int(transaction_coordinator::k_completion_waiters));
    EXPECT_EQ(coord->add_partitions("a", r.producer_id, r.producer_epoch, {{"t", 1}}), error_code::none);
    // A waiter that stopped waiting is not called; shutdown wakes whoever still waits.
    ASSERT_EQ(coord->end_txn("a", r.producer_id, r.producer_epoch, false), error_code::none);
    const auto gone = coord->when_completed("a", [&] { woken += 100; });
    EXPECT_NE(gone, 0u);
    coord->forget_waiter("a", gone);
    coord->when_completed("a", [&] { ++woken; });
    coord->shutdown();
    EXPECT_EQ(woken, 4 + int(transaction_coordinator::k_completion_waiters));
}

TEST_F(coordinator_test, complete_abort_accepts_retried_abort_only) {
    auto r = begin("a");
    EXPECT_EQ(coord->end_txn("a", r.producer_id, r.producer_epoch, false), error_code::none);
    run_jobs();
    EXPECT_EQ(state("a"), txn_state::complete_abort);
    EXPECT_EQ(coord->end_txn("a", r.producer_id, r.producer_epoch, false), error_code::none);
    EXPECT_EQ(coord->end_txn("a", r.producer_id, r.producer_epoch, true), error_code::invalid_txn_state);
}

TEST_F(coordinator_test, markers_go_to_every_partition_then_offsets_complete) {
    auto r = begin("a");
    coord->add_partitions("a", r.producer_id, r.producer_epoch, {{consumer_offsets_topic, 7}});
    coord->end_txn("a", r.producer_id, r.producer_epoch, true);
    EXPECT_TRUE(markers.markers.empty());  // answered before the markers
    run_jobs();
    ASSERT_EQ(markers.markers.size(), 2u);  // not to __consumer_offsets
    EXPECT_EQ(markers.markers[0].tp, (topic_partition{"t", 0}));
    EXPECT_EQ(markers.markers[1].tp, (topic_partition{"t", 1}));
    EXPECT_TRUE(markers.markers[0].commit);
    EXPECT_EQ(markers.markers[0].producer_epoch, r.producer_epoch);
    ASSERT_EQ(markers.completions.size(), 1u);
    EXPECT_EQ(markers.completions[0], std::make_pair(r.producer_id, true));
}

TEST_F(coordinator_test, failed_marker_writes_are_retried) {
    auto r = begin("a");
    markers.fail_next_markers = 3;
    coord->end_txn("a", r.producer_id, r.producer_epoch, true);
    run_jobs();
    EXPECT_EQ(markers.markers.size(), 2u);
    EXPECT_EQ(state("a"), txn_state::complete_commit);
}

// Markers of one transaction are written in one call (the broker appends them
// all, then one group commit makes them durable), and a write that keeps
// failing is retried from a new job after the backoff: no executor thread
// spins on it (Kafka's TransactionMarkerChannelManager requeues failed
// markers; retry.backoff.ms).
TEST_F(coordinator_test, markers_are_written_together_and_failures_retried_from_a_new_job) {
    auto r = begin("a");
    coord->add_partitions("a", r.producer_id, r.producer_epoch, {{"u", 0}});
    markers.fail_next_markers = 1000;
    coord->end_txn("a", r.producer_id, r.producer_epoch, true);
    for (int i = 0; i < 5; ++i) {
        run_queued_jobs();  // each attempt returns; a retry is queued, delayed
        ASSERT_EQ(jobs.size(), 1u);
    }
    EXPECT_EQ(markers.write_calls, 5);
    EXPECT_EQ(retry_delays, std::vector<int64_t>(5, 0));  // the fixture's backoff
    EXPECT_EQ(coord->pending_of("a"), txn_state::complete_commit);
    EXPECT_EQ(coord->end_txn("a", r.producer_id, r.producer_epoch, true), error_code::concurrent_transactions);
    // Only the first partition's marker fails now; only it is written again.
    markers.fail_next_markers = 1;
    run_queued_jobs();
    ASSERT_EQ(markers.markers.size(), 2u);
    EXPECT_EQ(markers.markers[0].tp, (topic_partition{"t", 1}));
    EXPECT_EQ(markers.markers[1].tp, (topic_partition{"u", 0}));
    run_jobs();
    ASSERT_EQ(markers.markers.size(), 3u);
    EXPECT_EQ(markers.markers[2].tp, (topic_partition{"t", 0}));
    EXPECT_EQ(markers.write_calls, 7);
    EXPECT_EQ(state("a"), txn_state::complete_commit);
}

TEST_F(coordinator_test, init_on_ongoing_fences_aborts_then_bumps_again) {
    auto r = begin("a");
    auto second = init("a");
    EXPECT_EQ(second.error, error_code::concurrent_transactions);
    auto m = *coord->state_of("a");
    EXPECT_EQ(m.state, txn_state::prepare_abort);
    EXPECT_EQ(m.producer_epoch, r.producer_epoch + 1);  // the fencing epoch, never returned
    // The old producer is fenced.
    EXPECT_EQ(coord->end_txn("a", r.producer_id, r.producer_epoch, true), error_code::producer_fenced);
    run_jobs();
    ASSERT_EQ(markers.markers.size(), 2u);
    EXPECT_FALSE(markers.markers[0].commit);
    EXPECT_EQ(markers.markers[0].producer_epoch, r.producer_epoch + 1);
    auto retry = init("a");
    EXPECT_EQ(retry.error, error_code::none);
    EXPECT_EQ(retry.producer_epoch, r.producer_epoch + 2);
    EXPECT_EQ(coord->add_partitions("a", r.producer_id, r.producer_epoch, {{"t", 0}}), error_code::producer_fenced);
}

TEST_F(coordinator_test, timed_out_transaction_is_aborted_with_epoch_bump) {
    auto r = begin("a");
    now += 60000;
    coord->abort_timed_out();
    EXPECT_EQ(state("a"), txn_state::ongoing);  // not yet: start + timeout must be exceeded
    now += 1;
    coord->abort_timed_out();
    EXPECT_EQ(state("a"), txn_state::prepare_abort);
    run_jobs();
    EXPECT_EQ(state("a"), txn_state::complete_abort);
    EXPECT_EQ(coord->state_of("a")->producer_epoch, r.producer_epoch + 1);
    EXPECT_EQ(coord->end_txn("a", r.producer_id, r.producer_epoch, true), error_code::producer_fenced);
}

TEST_F(coordinator_test, store_failure_is_retriable_and_changes_nothing) {
    auto r = init("a");
    store.fail_writes = true;
    EXPECT_EQ(coord->add_partitions("a", r.producer_id, r.producer_epoch, {{"t", 0}}),
              error_code::coordinator_not_available);
    EXPECT_EQ(state("a"), txn_state::empty);
    EXPECT_FALSE(coord->pending_of("a").has_value());
    store.fail_writes = false;
    EXPECT_EQ(coord->add_partitions("a", r.producer_id, r.producer_epoch, {{"t", 0}}), error_code::none);
}

TEST_F(coordinator_test, prepared_commit_completes_after_restart) {
    auto r = begin("a");
    coord->end_txn("a", r.producer_id, r.producer_epoch, true);
    restart();  // crash before the markers
    EXPECT_TRUE(markers.markers.empty());
    EXPECT_EQ(state("a"), txn_state::prepare_commit);
    EXPECT_EQ(coord->end_txn("a", r.producer_id, r.producer_epoch, true), error_code::concurrent_transactions);
    run_jobs();
    EXPECT_EQ(markers.markers.size(), 2u);
    EXPECT_TRUE(markers.markers[0].commit);
    EXPECT_EQ(state("a"), txn_state::complete_commit);
}

TEST_F(coordinator_test, ongoing_transaction_survives_restart_and_times_out) {
    auto r = begin("a");
    restart();
    EXPECT_EQ(state("a"), txn_state::ongoing);
    EXPECT_EQ(coord->state_of("a")->partitions.size(), 2u);
    now += 60001;
    coord->abort_timed_out();
    run_jobs();
    EXPECT_EQ(state("a"), txn_state::complete_abort);
    EXPECT_EQ(markers.markers.size(), 2u);
    EXPECT_EQ(coord->state_of("a")->producer_epoch, r.producer_epoch + 1);
}

TEST_F(coordinator_test, verify_partitions_reports_partitions_not_in_txn) {
    auto r = begin("a");
    auto v = coord->verify_partitions("a", r.producer_id, r.producer_epoch, {{"t", 0}, {"u", 0}});
    EXPECT_EQ(v[0].second, error_code::none);
    EXPECT_EQ(v[1].second, error_code::transaction_abortable);
    v = coord->verify_partitions("a", r.producer_id, r.producer_epoch + 1, {{"t", 0}});
    EXPECT_EQ(v[0].second, error_code::producer_fenced);
}

TEST_F(coordinator_test, describe_and_list) {
    auto r = begin("a");
    init("b");
    auto d = coord->describe("a");
    EXPECT_EQ(d.error, error_code::none);
    EXPECT_EQ(d.state, "Ongoing");
    EXPECT_EQ(d.producer_id, r.producer_id);
    EXPECT_EQ(d.start_ms, now);
    EXPECT_EQ(d.partitions.size(), 2u);
    EXPECT_EQ(coord->describe("zz").error, error_code::transactional_id_not_found);
    EXPECT_EQ(coord->describe("").error, error_code::invalid_request);
    EXPECT_EQ(coord->describe("b").start_ms, -1);

    auto all = coord->list({}, {}, -1);
    EXPECT_EQ(all.txns.size(), 2u);
    auto ongoing = coord->list({"Ongoing", "Bogus"}, {}, -1);
    ASSERT_EQ(ongoing.txns.size(), 1u);
    EXPECT_EQ(ongoing.txns[0].transactional_id, "a");
    EXPECT_EQ(ongoing.unknown_state_filters, std::vector<std::string>{"Bogus"});
    EXPECT_TRUE(coord->list({"Bogus"}, {}, -1).txns.empty());
    EXPECT_EQ(coord->list({}, {r.producer_id}, -1).txns.size(), 1u);
    now += 5000;
    EXPECT_EQ(coord->list({}, {}, 4999).txns.size(), 2u);  // "b" has no start: now - (-1) > 4999
    EXPECT_EQ(coord->list({}, {}, 5000 + now).txns.size(), 0u);
}

// ListTransactions v2 (KIP-1152): TransactionStateManager.listTransactionStates
// (Kafka 4.3.1) matches the whole id (re2j matcher().matches()), an empty
// pattern lists all, and a pattern that does not compile fails the request.
TEST_F(coordinator_test, list_by_id_pattern) {
    init("orders-1");
    init("orders-2");
    init("payments-1");
    auto ids = [](const list_txns_result& r) {
        std::vector<std::string> out;
        for (auto& t : r.txns) out.push_back(t.transactional_id);
        std::sort(out.begin(), out.end());
        return out;
    };
    EXPECT_EQ(ids(coord->list({}, {}, -1, "orders-.*")), (std::vector<std::string>{"orders-1", "orders-2"}));
    EXPECT_TRUE(coord->list({}, {}, -1, "orders").txns.empty());  // a prefix is not a match
    EXPECT_EQ(ids(coord->list({}, {}, -1, ".*-1")), (std::vector<std::string>{"orders-1", "payments-1"}));
    EXPECT_EQ(coord->list({}, {}, -1, "").txns.size(), 3u);
    auto bad = coord->list({"Bogus"}, {}, -1, "orders-(");
    EXPECT_EQ(bad.error, error_code::invalid_regular_expression);
    EXPECT_TRUE(bad.txns.empty());
    EXPECT_TRUE(bad.unknown_state_filters.empty());
}

TEST_F(coordinator_test, idle_ids_expire) {
    init("a");
    begin("b");
    now += 604800000;
    coord->expire_transactional_ids();
    EXPECT_FALSE(coord->state_of("a"));
    EXPECT_TRUE(coord->state_of("b"));  // Ongoing never expires
    restart();
    EXPECT_FALSE(coord->state_of("a"));
}

TEST_F(coordinator_test, shutdown_answers_coordinator_not_available) {
    coord->shutdown();
    EXPECT_EQ(init("a").error, error_code::coordinator_not_available);
    EXPECT_EQ(coord->list({}, {}, -1).error, error_code::coordinator_not_available);
}

// A deleted tenant's transactional ids (docs/tenancy.md "Administration"):
// the open transaction fenced and aborted as by its timeout
// (TransactionCoordinator.abortTimedOutTransactions), each id removed as by its
// expiration (TransactionStateManager.removeExpiredTransactionalIds) — at once.
TEST_F(coordinator_test, purge_aborts_and_removes_the_owned_ids_only) {
    init("t~idle");
    auto r = begin("t~open");
    begin("u~open");
    auto owned = [](const std::string& id) { return id.starts_with("t~"); };
    auto p = coord->purge(owned, 0);  // no wait: the abort's markers are not written yet
    EXPECT_EQ(p.aborted, 1u);
    EXPECT_EQ(p.removed, 1u);
    EXPECT_EQ(p.left, 1u);
    EXPECT_FALSE(coord->state_of("t~idle"));
    EXPECT_EQ(state("t~open"), txn_state::prepare_abort);
    run_jobs();
    ASSERT_EQ(markers.markers.size(), 2u);
    EXPECT_FALSE(markers.markers[0].commit);
    EXPECT_EQ(markers.markers[0].producer_epoch, r.producer_epoch + 1);
    p = coord->purge(owned, 0);
    EXPECT_EQ(p.aborted, 0u);
    EXPECT_EQ(p.removed, 1u);
    EXPECT_EQ(p.left, 0u);
    EXPECT_FALSE(coord->state_of("t~open"));
    EXPECT_NE(coord->end_txn("t~open", r.producer_id, r.producer_epoch, true), error_code::none);
    EXPECT_EQ(state("u~open"), txn_state::ongoing);
    restart();
    EXPECT_FALSE(coord->state_of("t~idle"));
    EXPECT_FALSE(coord->state_of("t~open"));
    EXPECT_EQ(state("u~open"), txn_state::ongoing);
}

}  // namespace ketch::txn::testing
