// txn_metadata's InitProducerId transitions (Kafka's TransactionMetadata
// prepareIncrementProducerEpoch / prepareProducerIdRotation, transaction-coordinator
// module, Kafka 4.3.1) and the strong producer id they take.
#include "txn/txn_metadata.h"

#include <gtest/gtest.h>

#include <type_traits>

namespace ketch::txn {
namespace {

// A producer id and a timestamp are both 64-bit: the rotation takes the id as
// a producer_id, so swapping the two does not compile.
static_assert(!std::is_invocable_v<decltype(&txn_metadata::prepare_producer_id_rotation), const txn_metadata&, int64_t,
                                   int32_t, int64_t, bool>);
static_assert(std::is_invocable_v<decltype(&txn_metadata::prepare_producer_id_rotation), const txn_metadata&,
                                  ketch::producer_id, int32_t, int64_t, bool>);

txn_metadata ongoing() {
    txn_metadata m;
    m.transactional_id = "t";
    m.producer_id = 10;
    m.producer_epoch = 3;
    m.timeout_ms = 1000;
    m.state = txn_state::complete_commit;
    m.partitions = {{"a", 0}, {"b", 1}};
    m.txn_start_ms = 50;
    m.last_update_ms = 60;
    return m;
}

TEST(txn_metadata, producer_id_rotation_starts_the_new_id_at_epoch_zero_with_nothing_open) {
    auto t = ongoing().prepare_producer_id_rotation(ketch::producer_id{11}, 2000, 100, true);
    EXPECT_EQ(t.producer_id, 11);
    EXPECT_EQ(t.previous_producer_id, 10);
    EXPECT_EQ(t.producer_epoch, 0);
    EXPECT_EQ(t.last_producer_epoch, 3);
    EXPECT_EQ(t.timeout_ms, 2000);
    EXPECT_EQ(t.state, txn_state::empty);
    EXPECT_TRUE(t.partitions.empty());
    EXPECT_EQ(t.txn_start_ms, -1);
    EXPECT_EQ(t.last_update_ms, 100);
}

TEST(txn_metadata, epoch_bump_keeps_the_id_and_leaves_nothing_open) {
    auto r = ongoing().prepare_increment_epoch(3000, std::nullopt, 200);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->producer_id, 10);
    EXPECT_EQ(r->producer_epoch, 4);
    EXPECT_EQ(r->last_producer_epoch, no_producer_epoch);
    EXPECT_EQ(r->timeout_ms, 3000);
    EXPECT_EQ(r->state, txn_state::empty);
    EXPECT_TRUE(r->partitions.empty());
    EXPECT_EQ(r->txn_start_ms, -1);
    EXPECT_EQ(r->last_update_ms, 200);
}

}  // namespace
}  // namespace ketch::txn
