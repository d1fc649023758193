// Drives cluster/catalogue.h against a live PostgreSQL (tests/cluster/test_catalogue.py):
// ./catalogue_check postgres://... Prints one line per failed check and "ok" at the end;
// exits non-zero if any check did not hold.
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cluster/catalogue.h"
#include "cluster/commit_listener.h"
#include "cluster/schema.h"

#include "check.h"

using namespace ketch::cluster;
using ketch::check::expect;
using ketch::check::failures;

namespace {

staged_batch batch(const std::string& topic, int32_t p, int32_t count, int64_t pid = -1, int16_t epoch = -1,
                   int32_t seq = -1) {
    return {{topic, p}, count, 0, uint32_t(100 * count), 1000, pid, epoch, seq};
}

std::vector<batch_outcome> commit_or_die(pg_connection& c, flushed_object obj) {
    auto r = commit_flush(c, obj);
    if (!r.ok()) {
        std::printf("FAIL commit %s: %s\n", obj.object_key.c_str(), r.error().message.c_str());
        std::exit(1);
    }
    return *r;
}

// Offsets are assigned from each partition's high watermark, contiguously; a
// retried idempotent batch gets its original offsets; fenced and out-of-order
// batches are refused; an object with nothing appended is not recorded.
void offsets_and_idempotence(pg_connection& c) {
    auto o = commit_or_die(c, {"obj-1", 1000, 1, {batch("t1", 0, 3), batch("t1", 1, 2), batch("t1", 0, 5, 7, 0, 0)}});
    expect(o[0].base_offset == 0 && o[0].last_offset == 2, "first batch at 0..2");
    expect(o[1].base_offset == 0 && o[1].last_offset == 1, "another partition starts at 0");
    expect(o[2].base_offset == 3 && o[2].last_offset == 7, "next batch of the partition at 3..7");
    auto again = commit_or_die(c, {"obj-2", 500, 2, {batch("t1", 0, 5, 7, 0, 0), batch("t1", 0, 1, 7, 0, 5)}});
    expect(again[0].what == batch_outcome::duplicate && again[0].base_offset == 3 && again[0].last_offset == 7,
           "a retried batch gets its original offsets");
    expect(again[1].what == batch_outcome::appended && again[1].base_offset == 8, "the next sequence appends at 8");
    auto bad = commit_or_die(c, {"obj-3", 100, 1, {batch("t1", 0, 1, 7, 0, 9), batch("t1", 0, 1, 7, -2, 6)}});
    expect(bad[0].what == batch_outcome::out_of_order_sequence, "a sequence gap is out of order");
    auto fenced = commit_or_die(c, {"obj-4", 100, 1, {batch("t1", 0, 1, 7, 1, 0), batch("t1", 0, 1, 7, 0, 1)}});
    expect(fenced[0].what == batch_outcome::appended && fenced[0].base_offset == 9, "a new epoch starts at 0");
    expect(fenced[1].what == batch_outcome::invalid_producer_epoch, "the old epoch is fenced");
    auto off = read_offsets(c, {"t1", 0});
    expect(off.ok() && off->high_watermark == 10, "high watermark 10");
    auto found = find_batches(c, {"t1", 0}, 4, 1 << 20);
    expect(found.ok() && found->size() == 3 && (*found)[0].base_offset == 3 && (*found)[0].object_key == "obj-1" &&
               (*found)[1].object_key == "obj-2" && (*found)[2].base_offset == 9,
           "the index finds the batch holding offset 4 and those after");
    auto small = find_batches(c, {"t1", 0}, 0, 1);
    expect(small.ok() && small->size() == 1, "max_bytes below one batch still answers the first");
    auto objects = c.exec("SELECT object_key FROM ketch_objects ORDER BY object_key");
    expect(objects.ok() && objects->rows.size() == 3, "obj-3 (nothing appended) is not recorded");
}

staged_batch txn_batch(int32_t count, int64_t pid, int16_t epoch, int32_t seq) {
    auto b = batch("tx", 0, count, pid, epoch, seq);
    b.transactional = true;
    return b;
}

staged_batch marker(int64_t pid, int16_t epoch, bool commit) {
    auto b = batch("tx", 0, 1, pid, epoch, -1);
    b.marker = commit ? 1 : 0;
    return b;
}

// Transactions (docs/design/cluster.md "transactions"): a transaction's first
// batch holds the LSO until its marker; an abort's range is recorded; a
// marker of a newer epoch fences the old one (Kafka's ProducerStateManager
// after a transaction version 2 end), a marker of an older epoch is refused.
void transactions(pg_connection& c) {
    auto o = commit_or_die(c, {"tx-1", 100, 1, {batch("tx", 0, 2), txn_batch(3, 20, 0, 0), batch("tx", 0, 1)}});
    expect(o[1].base_offset == 2 && o[2].base_offset == 5, "the transaction's batch at 2..4, a plain one at 5");
    expect(o[0].first_unstable == 2 && o[2].first_unstable == 2, "the commit answers the first unstable offset");
    auto off = read_offsets(c, {"tx", 0});
    expect(off.ok() && off->high_watermark == 6 && off->last_stable_offset() == 2, "LSO 2 while it is open");
    auto ab = commit_or_die(c, {"tx-2", 100, 1, {marker(20, 0, false)}});
    expect(ab[0].what == batch_outcome::appended && ab[0].base_offset == 6 && ab[0].first_unstable == -1,
           "the abort marker at 6 closes it");
    off = read_offsets(c, {"tx", 0});
    expect(off.ok() && off->last_stable_offset() == 7, "LSO = high watermark 7 once closed");
    auto aborted = find_aborted(c, {"tx", 0}, 0, 100);
    expect(aborted.ok() && aborted->size() == 1 && (*aborted)[0].producer_id == 20 && (*aborted)[0].first_offset == 2 &&
               (*aborted)[0].last_offset == 6,
           "the aborted range 2..6 of producer 20");
    auto later = find_aborted(c, {"tx", 0}, 7, 100);
    expect(later.ok() && later->empty(), "no aborted range ends at or after 7");
    auto v2 = commit_or_die(c, {"tx-3", 100, 1, {txn_batch(1, 21, 0, 0), marker(21, 1, true)}});
    expect(v2[0].base_offset == 7 && v2[1].base_offset == 8 && v2[1].first_unstable == -1,
           "a commit marker of the bumped epoch closes it");
    auto after = commit_or_die(
        c, {"tx-4", 100, 1, {batch("tx", 0, 1, 21, 0, 1), batch("tx", 0, 1, 21, 1, 0), marker(21, 0, false)}});
    expect(after[0].what == batch_outcome::invalid_producer_epoch, "the old epoch is fenced by the marker");
    expect(after[1].what == batch_outcome::appended && after[1].base_offset == 9, "the new epoch starts at 0");
    expect(after[2].what == batch_outcome::invalid_producer_epoch, "a marker of an older epoch is refused");
    auto none = find_aborted(c, {"tx", 0}, 7, 100);
    expect(none.ok() && none->empty(), "a commit records no aborted range");
}

// The coordinator epoch of markers (Kafka's ProducerAppendInfo.checkCoordinatorEpoch,
// storage/src/main/java/org/apache/kafka/storage/internals/log/ProducerAppendInfo.java):
// a partition remembers the newest coordinator epoch of a producer's markers;
// a marker of an older one (a coordinator that lost the transactional id's
// lease) is refused and closes nothing, so it cannot end the producer's next
// transaction; the newer coordinator's markers close it.
void coordinator_epochs(pg_connection& c) {
    auto with_epoch = [](staged_batch b, int32_t coordinator_epoch) {
        b.coordinator_epoch = coordinator_epoch;
        return b;
    };
    auto first = commit_or_die(c, {"ce-1", 100, 1, {txn_batch(1, 40, 0, 0), with_epoch(marker(40, 0, true), 2)}});
    expect(first[1].what == batch_outcome::appended && first[1].first_unstable == -1,
           "the marker of coordinator epoch 2 closes the first transaction");
    auto next = commit_or_die(c, {"ce-2", 100, 1, {txn_batch(1, 40, 0, 1), with_epoch(marker(40, 0, true), 1)}});
    expect(next[0].what == batch_outcome::appended, "the producer's next transaction opens");
    expect(next[1].what == batch_outcome::coordinator_fenced && next[1].first_unstable == next[0].base_offset,
           "a marker of coordinator epoch 1 is refused and leaves it open");
    auto same = commit_or_die(c, {"ce-3", 100, 1, {with_epoch(marker(40, 0, false), 2)}});
    expect(same[0].what == batch_outcome::appended && same[0].first_unstable == -1,
           "coordinator epoch 2 again closes it");
}

// Brokers committing to the same partitions at once: no offset twice, no gap
// (the partitions' rows are locked in one order; no deadlock either).
void concurrent_commits(const std::string& url) {
    constexpr int writers = 4, flushes = 25;
    std::vector<std::thread> threads;
    for (int w = 0; w < writers; ++w)
        threads.emplace_back([&url, w] {
            auto c = pg_connection::open(url);
            if (!c.ok()) return expect(false, "connect: " + c.error().message);
            for (int i = 0; i < flushes; ++i) {
                // writers take the partitions in opposite orders within a flush
                std::vector<staged_batch> b{batch("t2", w % 2 ? 0 : 1, 2), batch("t2", w % 2 ? 1 : 0, 3)};
                commit_or_die(**c, {"w" + std::to_string(w) + "-" + std::to_string(i), 10, w, b});
            }
        });
    for (auto& t : threads) t.join();
    auto c = pg_connection::open(url);
    for (int p : {0, 1}) {
        auto rows = (*c)->exec(
            "SELECT base_offset, last_offset FROM ketch_batches WHERE topic_id = 't2' AND "
            "partition = $1 ORDER BY base_offset",
            {std::to_string(p)});
        int64_t next = 0;
        for (size_t i = 0; rows.ok() && i < rows->rows.size(); ++i) {
            expect(std::stoll(rows->at(i, 0)) == next, "contiguous offsets in t2-" + std::to_string(p));
            next = std::stoll(rows->at(i, 1)) + 1;
        }
        expect(next == writers * flushes * 5 / 2, "every record of t2-" + std::to_string(p) + " has an offset");
        auto off = read_offsets(**c, {"t2", p});
        expect(off.ok() && off->high_watermark == next, "high watermark at the end");
    }
}

// A commit wakes a listener on another connection (LISTEN ketch_commit), with
// the object's key; a commit that appended nothing sends nothing.
void commits_are_notified(const std::string& url) {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<std::string> heard;
    commit_listener listener(url, [&](const std::string& payload) {
        std::lock_guard g(mu);
        heard.push_back(payload);
        cv.notify_all();
    });
    expect(listener.wait_listening(std::chrono::seconds(10)), "the listener listens");
    auto c = pg_connection::open(url);
    commit_or_die(**c, {"first", 10, 1, {batch("t3", 0, 1, 9, 5, 0)}});
    commit_or_die(**c, {"fenced-only", 10, 1, {batch("t3", 0, 1, 9, 4, 1)}});  // appends nothing
    commit_or_die(**c, {"notify-me", 10, 1, {batch("t3", 0, 1)}});
    std::unique_lock lk(mu);
    cv.wait_for(lk, std::chrono::seconds(10), [&] { return heard.size() >= 2; });
    // In commit order: had the fenced-only commit notified, it would be second.
    expect(heard == std::vector<std::string>{"first", "notify-me"}, "commits that appended are heard, in order");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) return std::printf("usage: catalogue_check POSTGRES_URL\n"), 2;
    auto c = pg_connection::open(argv[1]);
    if (!c.ok()) return std::printf("FAIL connect: %s\n", c.error().message.c_str()), 1;
    auto v = migrate(**c);
    if (!v.ok()) return std::printf("FAIL migrate: %s\n", v.error().message.c_str()), 1;
    offsets_and_idempotence(**c);
    transactions(**c);
    coordinator_epochs(**c);
    concurrent_commits(argv[1]);
    commits_are_notified(argv[1]);
    if (failures) return 1;
    std::printf("ok\n");
    return 0;
}
