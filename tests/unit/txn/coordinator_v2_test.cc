// Transaction version 2 (KIP-890) in the coordinator: EndTxn v5 bumps the
// epoch at every end, returns the new id/epoch, fences the old epoch, rotates
// the producer id when the epoch is exhausted, accepts retries; partitions
// added by the broker (Produce v12+, TxnOffsetCommit v5).
// Reference: Kafka 4.3.1 TransactionCoordinator.endTransaction (kafka_2.13,
// core/src/main/scala/kafka/coordinator/transaction/TransactionCoordinator.scala:
// isValidEpoch, retryOnEpochBump, retryOnOverflow, the Empty/Complete* abort),
// TransactionMetadata.prepareAbortOrCommit / prepareComplete
// (transaction-coordinator/src/main/java/org/apache/kafka/coordinator/transaction/TransactionMetadata.java).
#include "coordinator_fixture.h"

namespace ketch::txn::testing {

namespace {

class coordinator_v2_test : public coordinator_test {
protected:
    // A producer whose transaction holds t-0 (added implicitly, as by a Produce v12+).
    init_pid_result begin_v2(const std::string& id) {
        auto r = init(id);
        EXPECT_EQ(coord->add_partitions(id, r.producer_id, r.producer_epoch, {{"t", 0}}, 2), error_code::none);
        return r;
    }
};

TEST_F(coordinator_v2_test, commit_bumps_epoch_markers_carry_it_and_answer_returns_it) {
    auto r = begin_v2("a");
    EXPECT_EQ(coord->state_of("a")->client_txn_version, 2);
    auto e = coord->end_txn_v2("a", r.producer_id, r.producer_epoch, true);
    ASSERT_EQ(e.error, error_code::none);
    EXPECT_EQ(e.producer_id, r.producer_id);
    EXPECT_EQ(e.producer_epoch, r.producer_epoch + 1);
    EXPECT_EQ(state("a"), txn_state::prepare_commit);
    EXPECT_EQ(coord->state_of("a")->producer_epoch, r.producer_epoch + 1);
    EXPECT_EQ(coord->state_of("a")->last_producer_epoch, r.producer_epoch);
    run_jobs();
    ASSERT_EQ(markers.markers.size(), 1u);
    EXPECT_EQ(markers.markers[0].producer_epoch, r.producer_epoch + 1);
    EXPECT_TRUE(markers.markers[0].commit);
    EXPECT_EQ(state("a"), txn_state::complete_commit);
    // The next transaction runs at the returned epoch and bumps again.
    ASSERT_EQ(coord->add_partitions("a", e.producer_id, e.producer_epoch, {{"t", 1}}, 2), error_code::none);
    auto e2 = coord->end_txn_v2("a", e.producer_id, e.producer_epoch, false);
    ASSERT_EQ(e2.error, error_code::none);
    EXPECT_EQ(e2.producer_epoch, r.producer_epoch + 2);
}

TEST_F(coordinator_v2_test, the_old_epoch_is_fenced_after_an_end) {
    auto r = begin_v2("a");
    auto e = coord->end_txn_v2("a", r.producer_id, r.producer_epoch, true);
    run_jobs();
    // Produce (implicit add) with the epoch before the bump: fenced.
    EXPECT_EQ(coord->add_partitions("a", r.producer_id, r.producer_epoch, {{"t", 1}}, 2), error_code::producer_fenced);
    auto v = coord->verify_partitions("a", r.producer_id, r.producer_epoch, {{"t", 0}});
    EXPECT_EQ(v.front().second, error_code::producer_fenced);
    // An epoch two behind is no retry: fenced.
    ASSERT_EQ(coord->add_partitions("a", e.producer_id, e.producer_epoch, {{"t", 1}}, 2), error_code::none);
    auto e2 = coord->end_txn_v2("a", e.producer_id, e.producer_epoch, true);
    run_jobs();
    EXPECT_EQ(coord->end_txn_v2("a", r.producer_id, r.producer_epoch, true).error, error_code::producer_fenced);
    EXPECT_EQ(e2.producer_epoch, r.producer_epoch + 2);
}

TEST_F(coordinator_v2_test, retried_end_is_answered_with_the_current_epoch) {
    auto r = begin_v2("a");
    auto e = coord->end_txn_v2("a", r.producer_id, r.producer_epoch, true);
    // Still preparing: the retry waits.
    EXPECT_EQ(coord->end_txn_v2("a", r.producer_id, r.producer_epoch, true).error, error_code::concurrent_transactions);
    run_jobs();
    auto again = coord->end_txn_v2("a", r.producer_id, r.producer_epoch, true);
    EXPECT_EQ(again.error, error_code::none);
    EXPECT_EQ(again.producer_id, e.producer_id);
    EXPECT_EQ(again.producer_epoch, e.producer_epoch);
    // The other outcome for the same (old) epoch is invalid.
    EXPECT_EQ(coord->end_txn_v2("a", r.producer_id, r.producer_epoch, false).error, error_code::invalid_txn_state);
    EXPECT_EQ(markers.markers.size(), 1u);
}

TEST_F(coordinator_v2_test, abort_with_nothing_added_bumps_without_markers_commit_is_invalid) {
    auto r = init("a");
    EXPECT_EQ(coord->end_txn_v2("a", r.producer_id, r.producer_epoch, true).error, error_code::invalid_txn_state);
    auto e = coord->end_txn_v2("a", r.producer_id, r.producer_epoch, false);
    ASSERT_EQ(e.error, error_code::none);
    EXPECT_EQ(e.producer_epoch, r.producer_epoch + 1);
    run_jobs();
    EXPECT_TRUE(markers.markers.empty());
    EXPECT_EQ(state("a"), txn_state::complete_abort);
    // Complete* at the current epoch: another empty abort starts the next end.
    auto e2 = coord->end_txn_v2("a", e.producer_id, e.producer_epoch, false);
    EXPECT_EQ(e2.error, error_code::none);
    EXPECT_EQ(e2.producer_epoch, r.producer_epoch + 2);
}

TEST_F(coordinator_v2_test, exhausted_epoch_ends_with_a_new_producer_id) {
    auto r = begin_v2("a");
    auto m = *coord->state_of("a");
    m.producer_epoch = INT16_MAX - 1;  // Short.MaxValue - 1: exhausted
    ASSERT_TRUE(store.put_txn(to_stored_txn(m)).ok());
    restart();
    auto e = coord->end_txn_v2("a", r.producer_id, INT16_MAX - 1, true);
    ASSERT_EQ(e.error, error_code::none);
    EXPECT_NE(e.producer_id, r.producer_id);
    EXPECT_EQ(e.producer_epoch, 0);
    run_jobs();
    // The markers carry the old id at Short.MaxValue.
    ASSERT_EQ(markers.markers.size(), 1u);
    EXPECT_EQ(markers.markers[0].producer_id, r.producer_id);
    EXPECT_EQ(markers.markers[0].producer_epoch, INT16_MAX);
    auto now_m = *coord->state_of("a");
    EXPECT_EQ(now_m.producer_id, e.producer_id);
    EXPECT_EQ(now_m.previous_producer_id, r.producer_id);
    // A retry with the old id and epoch (retryOnOverflow) gets the new pair.
    auto again = coord->end_txn_v2("a", r.producer_id, INT16_MAX - 1, true);
    EXPECT_EQ(again.error, error_code::none);
    EXPECT_EQ(again.producer_id, e.producer_id);
    EXPECT_EQ(again.producer_epoch, 0);
}

TEST_F(coordinator_v2_test, next_producer_id_survives_a_crash_between_prepare_and_complete) {
    auto r = begin_v2("a");
    auto m = *coord->state_of("a");
    m.producer_epoch = INT16_MAX - 1;
    ASSERT_TRUE(store.put_txn(to_stored_txn(m)).ok());
    restart();
    auto e = coord->end_txn_v2("a", r.producer_id, INT16_MAX - 1, false);
    ASSERT_EQ(e.error, error_code::none);
    restart();  // PrepareAbort stored with its next producer id, markers not written
    run_jobs();
    EXPECT_EQ(state("a"), txn_state::complete_abort);
    EXPECT_EQ(coord->state_of("a")->producer_id, e.producer_id);
    EXPECT_EQ(coord->state_of("a")->producer_epoch, 0);
}

TEST_F(coordinator_v2_test, implicit_add_starts_the_transaction_and_is_idempotent) {
    auto r = init("a");
    now += 5;
    ASSERT_EQ(coord->add_partitions("a", r.producer_id, r.producer_epoch, {{"t", 0}}, 2), error_code::none);
    EXPECT_EQ(state("a"), txn_state::ongoing);
    EXPECT_EQ(coord->state_of("a")->txn_start_ms, now);
    ASSERT_EQ(coord->add_partitions("a", r.producer_id, r.producer_epoch, {{"t", 0}}, 2), error_code::none);
    ASSERT_EQ(coord->add_partitions("a", r.producer_id, r.producer_epoch, {{"__consumer_offsets", 7}}, 2),
              error_code::none);
    EXPECT_EQ(coord->state_of("a")->partitions.size(), 2u);
    // While the end is being prepared, a produce of the next transaction waits.
    auto e = coord->end_txn_v2("a", r.producer_id, r.producer_epoch, true);
    EXPECT_EQ(coord->add_partitions("a", e.producer_id, e.producer_epoch, {{"t", 0}}, 2),
              error_code::concurrent_transactions);
}

TEST_F(coordinator_v2_test, timed_out_transaction_abort_bumps_once_and_fences_the_producer) {
    auto r = begin_v2("a");
    now += 60001;
    coord->abort_timed_out();
    run_jobs();
    EXPECT_EQ(state("a"), txn_state::complete_abort);
    EXPECT_EQ(coord->state_of("a")->producer_epoch, r.producer_epoch + 1);
    ASSERT_EQ(markers.markers.size(), 1u);
    EXPECT_EQ(markers.markers[0].producer_epoch, r.producer_epoch + 1);
    EXPECT_FALSE(markers.markers[0].commit);
    // The producer's commit at its old epoch reads as a retry of an end (epoch + 1 is the
    // current one) of the other outcome: INVALID_TXN_STATE; a version 1 client is fenced.
    EXPECT_EQ(coord->end_txn_v2("a", r.producer_id, r.producer_epoch, true).error, error_code::invalid_txn_state);
    EXPECT_EQ(coord->end_txn("a", r.producer_id, r.producer_epoch, true), error_code::producer_fenced);
}

TEST_F(coordinator_v2_test, version_1_end_keeps_the_epoch) {
    auto r = begin("a");
    ASSERT_EQ(coord->end_txn("a", r.producer_id, r.producer_epoch, true), error_code::none);
    EXPECT_EQ(coord->state_of("a")->producer_epoch, r.producer_epoch);
    run_jobs();
    ASSERT_EQ(markers.markers.size(), 2u);
    EXPECT_EQ(markers.markers[0].producer_epoch, r.producer_epoch);
}

}  // namespace

}  // namespace ketch::txn::testing
