// The records a consumer sees in one partition of a Fetch answer
// (cli/fetched_records.h): aborted transactions skipped with read_committed
// as Kafka's consumer does (clients/.../internals/CompletedFetch.java: a batch
// of an aborted producer is skipped from the transaction's first offset until
// its abort marker), control batches never shown, offsets before the position
// left out, a partial last batch ignored.
#include <gtest/gtest.h>

#include "cli/fetched_records.h"
#include "record/batch_builder.h"

using namespace ketch;
using namespace ketch::cli;

namespace {

bytes text(std::string_view s) { return bytes(s.begin(), s.end()); }

bytes batch(int64_t base, std::vector<std::string> values, int64_t pid = -1, bool transactional = false) {
    record::batch_options o;
    o.base_offset = base;
    o.producer_id = pid;
    o.producer_epoch = pid < 0 ? -1 : 0;
    o.base_sequence = pid < 0 ? -1 : 0;
    o.transactional = transactional;
    record::batch_builder b(o);
    for (auto& v : values) b.add({.key = std::nullopt, .value = text(v), .headers = {}, .timestamp = 1000});
    return b.build().value();
}

kafka::fetch_response::partition_data data(std::vector<bytes> batches) {
    bytes all;
    for (auto& b : batches) all.insert(all.end(), b.begin(), b.end());
    kafka::fetch_response::partition_data pd;
    pd.partition_index = 3;
    pd.records = kafka::records(shared_bytes(std::move(all)));
    return pd;
}

struct seen {
    std::vector<std::string> values;
    std::vector<int64_t> offsets;
};

seen read(const kafka::fetch_response::partition_data& pd, int64_t from, bool committed, int64_t& next,
          size_t stop_after = 100) {
    seen s;
    next = read_fetched(pd, "t", from, committed, [&](const message& m) {
        EXPECT_EQ(m.partition, 3);
        s.values.emplace_back(m.value->begin(), m.value->end());
        s.offsets.push_back(m.offset);
        return s.values.size() < stop_after;
    });
    return s;
}

}  // namespace

TEST(FetchedRecords, SkipsRecordsBeforeThePositionAndReturnsTheNextOffset) {
    auto pd = data({batch(10, {"a", "b", "c"}), batch(13, {"d"})});
    int64_t next = 0;
    auto s = read(pd, 11, false, next);
    EXPECT_EQ(s.values, (std::vector<std::string>{"b", "c", "d"}));
    EXPECT_EQ(s.offsets, (std::vector<int64_t>{11, 12, 13}));
    EXPECT_EQ(next, 14);
}

TEST(FetchedRecords, StopsWhereTheCallerSaysAndResumesThere) {
    auto pd = data({batch(0, {"a", "b", "c"})});
    int64_t next = 0;
    auto s = read(pd, 0, false, next, 2);
    EXPECT_EQ(s.values.size(), 2u);
    EXPECT_EQ(next, 2);
    s = read(pd, next, false, next);
    EXPECT_EQ(s.values, (std::vector<std::string>{"c"}));
    EXPECT_EQ(next, 3);
}

TEST(FetchedRecords, ReadCommittedSkipsAbortedTransactionsUpToTheirMarker) {
    auto pd = data(
        {batch(0, {"committed"}, 7, true), record::build_end_txn_marker(record::control_type::commit, 7, 0, 0, 1000, 1),
         batch(2, {"aborted"}, 8, true), record::build_end_txn_marker(record::control_type::abort, 8, 0, 0, 1000, 3),
         batch(4, {"later"}, 8, true)});
    pd.aborted_transactions.emplace();
    pd.aborted_transactions->push_back({.producer_id = 8, .first_offset = 2});
    int64_t next = 0;
    auto s = read(pd, 0, true, next);
    EXPECT_EQ(s.values, (std::vector<std::string>{"committed", "later"}));
    EXPECT_EQ(next, 5);
    // read_uncommitted sees the aborted record too, never a marker.
    s = read(pd, 0, false, next);
    EXPECT_EQ(s.values, (std::vector<std::string>{"committed", "aborted", "later"}));
}

TEST(FetchedRecords, APartialLastBatchEndsTheData) {
    bytes second = batch(1, {"b"});
    second.resize(second.size() - 3);
    auto pd = data({batch(0, {"a"}), second});
    int64_t next = 0;
    auto s = read(pd, 0, false, next);
    EXPECT_EQ(s.values, (std::vector<std::string>{"a"}));
    EXPECT_EQ(next, 1);
}
