// Drives cluster::apply_retention, move_log_start, shared::collect_garbage and merge_small_objects
// against PostgreSQL and moto (tests/cluster/test_retention.py):
// ./retention_check POSTGRES_URL S3_URL. Prints "ok", or one line per check
// that did not hold and exits non-zero.
#include <chrono>
#include <cstdio>
#include <string>

#include "cluster/catalogue.h"
#include "cluster/retention.h"
#include "cluster/schema.h"
#include "objstore/s3_url.h"
#include "shared/janitor.h"
#include "shared/merger.h"

#include "check.h"

using namespace ketch;
using check::expect;
using check::failures;

namespace {

using std::chrono::hours;
using std::chrono::milliseconds;

bool exists(objstore::s3_client& s3, const std::string& key) { return s3.get_object(key).ok(); }

int64_t now_ms() {
    return std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// `key` written and committed with one 10-record batch of 100 bytes per partition in `parts`.
bool put_and_commit(objstore::s3_client& s3, cluster::pg_connection& pg, const std::string& key,
                    std::vector<cluster::partition_key> parts, int64_t max_ts) {
    if (!s3.put_object(key, std::string(100 * parts.size(), 'x'), true).ok()) return false;
    cluster::flushed_object obj{key, 100 * parts.size(), 1, {}};
    for (size_t i = 0; i < parts.size(); ++i) obj.batches.push_back({parts[i], 10, 100 * i, 100, max_ts});
    auto c = cluster::commit_flush(pg, obj);
    return c.ok();
}

int64_t log_start(cluster::pg_connection& pg, const cluster::partition_key& tp) {
    auto o = cluster::read_offsets(pg, tp);
    return o.ok() ? o->log_start_offset : -1;
}

// Retention by time of partition T-0, and garbage collection after it and after D's deletion.
void time_retention_and_gc(objstore::s3_client& s3, cluster::pg_connection& pg) {
    const cluster::partition_key t0{"T", 0}, d0{"D", 0};
    const int64_t old_ts = now_ms() - 2 * 3600 * 1000;
    expect(put_and_commit(s3, pg, "data/a", {t0}, old_ts), "commit a");
    expect(put_and_commit(s3, pg, "data/b", {t0, d0}, old_ts), "commit b");
    expect(put_and_commit(s3, pg, "data/c", {t0}, now_ms()), "commit c");
    // A fetch's index lookup, before retention drops the rows it found.
    auto looked_up = cluster::find_batches(pg, t0, 0, 1 << 20);
    expect(looked_up.ok() && looked_up->size() == 3, "three batches indexed");

    auto none = cluster::apply_retention(pg, t0, {-1, -1}, now_ms());
    expect(none.ok() && !none->moved && none->log_start_offset == 0, "no limits: nothing moves");
    auto r = cluster::apply_retention(pg, t0, {3600 * 1000, -1}, now_ms());
    expect(r.ok() && r->moved && r->log_start_offset == 20 && r->batches_dropped == 2,
           "the two batches older than retention.ms go, up to the first that is not");
    expect(log_start(pg, t0) == 20, "the log start is 20 in ketch_partitions");
    auto left = cluster::find_batches(pg, t0, 0, 1 << 20);
    expect(left.ok() && left->size() == 1 && left->front().base_offset == 20, "the index starts at 20");

    auto g = shared::collect_garbage(s3, pg, hours(1));
    expect(g.ok() && g->marked_dead == 1 && g->deleted == 0, "a is dead (b is D's too), nothing deleted yet");
    for (auto& b : *looked_up) expect(exists(s3, b.object_key), "the looked-up " + b.object_key + " still reads");

    expect(pg.exec("DELETE FROM ketch_topics WHERE topic_id = 'D'").ok(), "delete topic D");
    g = shared::collect_garbage(s3, pg, hours(1));
    expect(g.ok() && g->topic_rows_dropped == 1 && g->marked_dead == 1 && g->deleted == 0,
           "D's index row goes, b is dead, nothing deleted within the grace period");
    expect(exists(s3, "data/a") && exists(s3, "data/b"), "dead objects stay for the grace period");
    auto d_rows = pg.exec("SELECT count(*) FROM ketch_partitions WHERE topic_id = 'D'");
    expect(d_rows.ok() && d_rows->at(0, 0) == "0", "D's partition row is gone");

    g = shared::collect_garbage(s3, pg, milliseconds(0));
    expect(g.ok() && g->deleted == 2, "past the grace period both dead objects go");
    expect(!exists(s3, "data/a") && !exists(s3, "data/b"), "a and b are gone from the store");
    expect(exists(s3, "data/c"), "c, still referenced, stays");
    auto rows = pg.exec("SELECT object_key FROM ketch_objects ORDER BY 1");
    expect(rows.ok() && rows->rows.size() == 1 && rows->at(0, 0) == "data/c", "only c's row is left");
}

// Retention by size of T-1, then DeleteRecords' move_log_start.
void size_retention_and_delete_records(objstore::s3_client& s3, cluster::pg_connection& pg) {
    const cluster::partition_key t1{"T", 1};
    for (const char* key : {"data/e", "data/f", "data/g"})
        expect(put_and_commit(s3, pg, key, {t1}, now_ms()), std::string("commit ") + key);
    // 300 bytes, retention.bytes 150: the first batch goes (200 left), the second stays (100 < 150).
    auto r = cluster::apply_retention(pg, t1, {-1, 150}, now_ms());
    expect(r.ok() && r->moved && r->log_start_offset == 10 && r->batches_dropped == 1, "size retention to 10");
    auto again = cluster::apply_retention(pg, t1, {-1, 150}, now_ms());
    expect(again.ok() && !again->moved && again->log_start_offset == 10, "size retention is stable");
    auto m = cluster::move_log_start(pg, t1, 25);
    expect(m.ok() && m->moved && m->log_start_offset == 25 && m->batches_dropped == 1,
           "DeleteRecords to 25 drops the batch wholly below; the one holding 25 stays");
    auto back = cluster::move_log_start(pg, t1, 5);
    expect(back.ok() && !back->moved && back->log_start_offset == 25, "the log start never moves back");
    auto past = cluster::move_log_start(pg, t1, 1000);
    expect(past.ok() && past->log_start_offset == 30 && past->batches_dropped == 1, "capped at the high watermark");
    auto z = cluster::apply_retention(pg, t1, {-1, 0}, now_ms());
    expect(z.ok() && !z->moved && z->log_start_offset == 30, "an empty partition stays at its high watermark");
    auto g = shared::collect_garbage(s3, pg, milliseconds(0));
    // Marked in this pass, deleted in the next (dead_since is this pass's now()).
    g = shared::collect_garbage(s3, pg, milliseconds(0));
    expect(g.ok() && !exists(s3, "data/e") && !exists(s3, "data/f") && !exists(s3, "data/g"),
           "the emptied partition's objects go");
    expect(exists(s3, "data/c"), "other partitions' objects stay");
}

// Four objects each holding a batch of M-0 and of M-1 merged into one object per partition.
void merging(objstore::s3_client& s3, cluster::pg_connection& pg) {
    const cluster::partition_key m0{"M", 0}, m1{"M", 1};
    std::string want0;
    for (int i = 0; i < 4; ++i) {
        const std::string key = "data/m" + std::to_string(i), mine(50, char('a' + i));
        want0 += mine;
        expect(s3.put_object(key, "0123456789" + mine + std::string(50, 'z'), true).ok(), "put " + key);
        auto c = cluster::commit_flush(pg, {key, 110, 1, {{m0, 10, 10, 50, now_ms()}, {m1, 10, 60, 50, now_ms()}}});
        expect(c.ok(), "commit " + key);
    }
    auto m = shared::merge_small_objects(s3, pg, 1000, 8000, "data/merged-check-");
    expect(m.ok() && m->objects_written == 2 && m->batches_moved == 8, "one merged object per partition");
    auto rows = cluster::find_batches(pg, m0, 0, 1 << 20);
    expect(rows.ok() && rows->size() == 4, "M-0 still has its four batches");
    if (rows.ok() && rows->size() == 4) {
        bool one = true;
        for (size_t i = 0; i < 4; ++i)
            one &= (*rows)[i].object_key == rows->front().object_key && (*rows)[i].byte_offset == 50 * i &&
                   (*rows)[i].base_offset == int64_t(10 * i);
        expect(one, "M-0's rows point into one object, one batch after another");
        auto body = s3.get_object(rows->front().object_key);
        expect(body.ok() && *body == want0, "the merged object holds M-0's batches' bytes");
    }
    auto again = shared::merge_small_objects(s3, pg, 1000, 8000, "data/merged-check-again-");
    expect(again.ok() && again->objects_written == 0, "nothing left to merge");
    for (int pass = 0; pass < 2; ++pass) (void)shared::collect_garbage(s3, pg, milliseconds(0));
    for (int i = 0; i < 4; ++i) expect(!exists(s3, "data/m" + std::to_string(i)), "the merged-away objects go");
    expect(exists(s3, "data/merged-check-0") && exists(s3, "data/merged-check-1"), "the merged objects stay");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) return std::printf("usage: retention_check POSTGRES_URL S3_URL\n"), 2;
    auto pg = cluster::pg_connection::open(argv[1]);
    if (!pg.ok() || !cluster::migrate(**pg).ok()) return std::printf("FAIL postgres\n"), 1;
    auto loc = objstore::parse_s3_url(argv[2]);
    if (!loc.ok()) return std::printf("FAIL url: %s\n", loc.error().c_str()), 1;
    objstore::s3_client s3(*loc, objstore::credentials_from_environment());
    auto topics = (*pg)->exec(
        "INSERT INTO ketch_topics (topic_id, name, partitions, replication_factor, created_ms) "
        "VALUES ('T', 't', 2, 1, 0), ('D', 'd', 1, 1, 0), ('M', 'm', 2, 1, 0)");
    if (!topics.ok()) return std::printf("FAIL topics: %s\n", topics.error().message.c_str()), 1;
    time_retention_and_gc(s3, **pg);
    size_retention_and_delete_records(s3, **pg);
    merging(s3, **pg);
    // The last topics deleted: its objects go too, and no row is left for the brokers of the test.
    expect((*pg)->exec("DELETE FROM ketch_topics").ok(), "delete topics T and M");
    for (int pass = 0; pass < 2; ++pass) (void)shared::collect_garbage(s3, **pg, std::chrono::milliseconds(0));
    expect(!exists(s3, "data/c") && !exists(s3, "data/merged-check-0"), "the deleted topics' objects are gone");
    auto left = (*pg)->exec("SELECT (SELECT count(*) FROM ketch_objects) + (SELECT count(*) FROM ketch_partitions)");
    expect(left.ok() && left->at(0, 0) == "0", "no object or partition row is left");
    if (failures) return 1;
    std::printf("ok\n");
    return 0;
}
