// Transactional offsets in the group coordinator: pending per producer until
// the transaction ends, committed on commit, dropped on abort, durable.
// Reference: group-coordinator/.../OffsetMetadataManager.java
// (commitTransactionalOffset, replayEndTransactionMarker,
// hasPendingTransactionalOffsets, fetchOffsets with requireStable) and
// classic/ClassicGroup.java (validateOffsetCommit with isTransactional).
#include "consumer_fixture.h"
#include "meta/memory_txn_store.h"

namespace ketch::group::testing {
namespace {

class txn_offsets_test : public group_test {
protected:
    void SetUp() override {
        group_test::SetUp();
        ASSERT_TRUE(coord->attach_txn_store(txn_store).ok());
    }
    commit_result txn_commit(const std::string& group, int64_t pid, int64_t offset, int32_t generation = -1,
                             const std::string& member = "", std::optional<uint64_t> guard = std::nullopt) {
        txn_commit_args a;
        a.transactional_id = "tx";
        a.group_id = group;
        a.producer_id = pid;
        a.producer_epoch = 0;
        a.generation_id = generation;
        a.member_id = member;
        a.topics = {commit_topic{"t1", {commit_partition{0, offset, -1, "m"}}}};
        a.verification_guard = guard;
        return coord->commit_txn_offsets(a);
    }
    meta::memory_txn_store txn_store;
};

TEST_F(txn_offsets_test, pending_offsets_are_invisible_until_commit) {
    auto r = txn_commit("g", 7, 42);
    EXPECT_EQ(r.topics[0].partitions[0].error, error_code::none);
    EXPECT_TRUE(coord->has_pending_txn_offset("g", "t1", 0));
    EXPECT_FALSE(coord->has_pending_txn_offset("g", "t1", 1));
    EXPECT_EQ(fetch_one("g", "t1", 0).offset, -1);
    EXPECT_TRUE(coord->complete_txn_offsets(7, true));
    EXPECT_FALSE(coord->has_pending_txn_offset("g", "t1", 0));
    auto p = fetch_one("g", "t1", 0);
    EXPECT_EQ(p.offset, 42);
    EXPECT_EQ(p.metadata, "m");
}

TEST_F(txn_offsets_test, abort_drops_pending_offsets) {
    commit("g", "", -1, {commit_topic{"t1", {{0, 5}}}});
    txn_commit("g", 7, 42);
    EXPECT_TRUE(coord->complete_txn_offsets(7, false));
    EXPECT_FALSE(coord->has_pending_txn_offset("g", "t1", 0));
    EXPECT_EQ(fetch_one("g", "t1", 0).offset, 5);
}

TEST_F(txn_offsets_test, other_producers_are_unaffected) {
    txn_commit("g", 7, 42);
    txn_commit("g", 8, 43);
    coord->complete_txn_offsets(7, false);
    EXPECT_TRUE(coord->has_pending_txn_offset("g", "t1", 0));
    coord->complete_txn_offsets(8, true);
    EXPECT_EQ(fetch_one("g", "t1", 0).offset, 43);
}

TEST_F(txn_offsets_test, pending_offsets_survive_a_restart) {
    txn_commit("g", 7, 42);
    open();  // a new coordinator over the same stores
    ASSERT_TRUE(coord->attach_txn_store(txn_store).ok());
    EXPECT_TRUE(coord->has_pending_txn_offset("g", "t1", 0));
    EXPECT_TRUE(coord->complete_txn_offsets(7, true));
    open();
    EXPECT_EQ(fetch_one("g", "t1", 0).offset, 42);
}

TEST_F(txn_offsets_test, unknown_group_with_generation_is_illegal_generation) {
    EXPECT_EQ(txn_commit("nope", 7, 1, 3, "m").topics[0].partitions[0].error, error_code::illegal_generation);
}

TEST_F(txn_offsets_test, member_of_stable_group_is_validated) {
    auto id = stable_single_member("g");
    EXPECT_EQ(txn_commit("g", 7, 1, 1, "other").topics[0].partitions[0].error, error_code::unknown_member_id);
    EXPECT_EQ(txn_commit("g", 7, 1, 9, id).topics[0].partitions[0].error, error_code::illegal_generation);
    EXPECT_EQ(txn_commit("g", 7, 1, 1, id).topics[0].partitions[0].error, error_code::none);
    // Without member and generation, a non-empty group still takes it (isTransactional).
    EXPECT_EQ(txn_commit("g", 8, 1).topics[0].partitions[0].error, error_code::none);
}

// A TxnOffsetCommit verified against a transaction that then ended (fenced,
// timed out) must not leave offsets pending: nothing would ever complete them,
// OffsetFetch(require_stable) would answer UNSTABLE_OFFSET_COMMIT for good, and
// the producer id's next commit would commit them. Kafka: the
// VerificationGuard of UnifiedLog.maybeStartTransactionVerification, cleared
// by the end-transaction marker (ProducerStateManager), refused with
// INVALID_TXN_STATE.
TEST_F(txn_offsets_test, offsets_verified_against_a_transaction_that_ended_are_refused) {
    auto guard = coord->begin_txn_offsets_verification(7);
    EXPECT_EQ(coord->begin_txn_offsets_verification(7), guard);  // one per transaction
    EXPECT_TRUE(coord->complete_txn_offsets(7, false));          // the transaction ends meanwhile
    EXPECT_EQ(txn_commit("g", 7, 42, -1, "", guard).topics[0].partitions[0].error, error_code::invalid_txn_state);
    EXPECT_FALSE(coord->has_pending_txn_offset("g", "t1", 0));
    EXPECT_TRUE(coord->complete_txn_offsets(7, true));  // the producer's next commit
    EXPECT_EQ(fetch_one("g", "t1", 0).offset, -1);
    // The next transaction gets a new guard and its offsets are taken.
    auto next = coord->begin_txn_offsets_verification(7);
    EXPECT_NE(next, guard);
    // What the handler checks after verifying: the old guard is gone, the new one holds
    // (a guard taken while the previous transaction completed is taken again).
    EXPECT_FALSE(coord->txn_offsets_guard_valid(7, guard));
    EXPECT_TRUE(coord->txn_offsets_guard_valid(7, next));
    EXPECT_EQ(txn_commit("g", 7, 43, -1, "", next).topics[0].partitions[0].error, error_code::none);
    EXPECT_TRUE(coord->complete_txn_offsets(7, true));
    EXPECT_EQ(fetch_one("g", "t1", 0).offset, 43);
}

// A consumer-protocol group (ConsumerGroup.validateOffsetCommit with
// isTransactional, Kafka 4.3.1): without generation, member id and instance
// id (a producer's sendOffsetsToTransaction(offsets, groupId)) the offsets are
// taken while the group has members; with them the member is checked, a
// stale epoch answering ILLEGAL_GENERATION.
TEST_F(txn_offsets_test, a_consumer_group_takes_offsets_without_member_and_checks_them_with_one) {
    fake_topics topics;
    topics.add("t1", 1);
    coord->set_topic_view(&topics);
    consumer_heartbeat_args j;
    j.group_id = "cg";
    j.member_id = "m";
    j.rebalance_timeout_ms = 30000;
    j.subscribed_topic_names = std::vector<std::string>{"t1"};
    j.owned = topic_partitions{};
    j.api_version = 1;
    auto r = coord->consumer_heartbeat(j);
    ASSERT_EQ(r.error, error_code::none);
    EXPECT_EQ(txn_commit("cg", 7, 1).topics[0].partitions[0].error, error_code::none);
    EXPECT_EQ(txn_commit("cg", 7, 1, r.member_epoch, "m").topics[0].partitions[0].error, error_code::none);
    EXPECT_EQ(txn_commit("cg", 7, 1, r.member_epoch + 1, "m").topics[0].partitions[0].error,
              error_code::illegal_generation);
    EXPECT_EQ(txn_commit("cg", 7, 1, 0, "").topics[0].partitions[0].error, error_code::unknown_member_id);
    coord->set_topic_view(nullptr);
}

TEST_F(txn_offsets_test, failed_store_write_changes_nothing) {
    txn_store.fail_writes = true;
    EXPECT_EQ(txn_commit("g", 7, 1).topics[0].partitions[0].error, error_code::not_coordinator);
    EXPECT_FALSE(coord->has_pending_txn_offset("g", "t1", 0));
}

}  // namespace
}  // namespace ketch::group::testing
