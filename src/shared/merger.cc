#include "shared/merger.h"

#include <chrono>
#include <map>
#include <memory>
#include <vector>

#include "base/io_throttle.h"

namespace ketch::shared {

namespace {

struct row {
    int64_t base_offset = 0;
    std::string object_key;
    uint64_t byte_offset = 0;
    uint64_t byte_length = 0;
};

// A PostgreSQL array literal: {"a","b"} (each element quoted; keys hold no quote or backslash).
std::string array_of(const std::vector<std::string>& values) {
    std::string out = "{";
    for (size_t i = 0; i < values.size(); ++i) out += (i ? ",\"" : "\"") + values[i] + "\"";
    return out + "}";
}

// The partition's batches held by small objects, in offset order.
result<std::vector<row>, std::string> small_rows(cluster::pg_connection& pg, const std::string& topic_id,
                                                 const std::string& partition, uint64_t small_bytes) {
    auto r = pg.exec(
        "SELECT b.base_offset, b.object_key, b.byte_offset, b.byte_length FROM ketch_batches b JOIN ketch_objects o "
        "ON o.object_key = b.object_key WHERE b.topic_id = $1 AND b.partition = $2 AND o.size_bytes < $3 "
        "ORDER BY b.base_offset LIMIT 10000",
        {topic_id, partition, std::to_string(small_bytes)});
    if (!r.ok()) return failure{"reading the index: " + r.error().message};
    std::vector<row> out;
    for (size_t i = 0; i < r->rows.size(); ++i)
        out.push_back({std::stoll(r->at(i, 0)), r->at(i, 1), std::stoull(r->at(i, 2)), std::stoull(r->at(i, 3))});
    return out;
}

// Moves `rows` to `key` (whose bytes were stored, `offsets` where each row's batch starts) in one transaction.
result<int64_t, std::string> swap(cluster::pg_connection& pg, const std::string& topic_id, const std::string& partition,
                                  const std::vector<row>& rows, const std::vector<uint64_t>& offsets,
                                  const std::string& key, uint64_t size) {
    std::vector<std::string> base, old_key, old_off, new_off;
    for (size_t i = 0; i < rows.size(); ++i) {
        base.push_back(std::to_string(rows[i].base_offset));
        old_key.push_back(rows[i].object_key);
        old_off.push_back(std::to_string(rows[i].byte_offset));
        new_off.push_back(std::to_string(offsets[i]));
    }
    auto fail = [&pg](const std::string& what, const cluster::pg_error& e) -> result<int64_t, std::string> {
        (void)pg.run("ROLLBACK");
        return failure{what + ": " + e.message};
    };
    if (auto s = pg.run("BEGIN"); !s.ok()) return failure{"BEGIN: " + s.error().message};
    auto lock = pg.exec("SELECT 1 FROM ketch_partitions WHERE topic_id = $1 AND partition = $2 FOR UPDATE",
                        {topic_id, partition});
    if (!lock.ok()) return fail("locking the partition", lock.error());
    auto obj = pg.exec("INSERT INTO ketch_objects (object_key, size_bytes, node_id) VALUES ($1, $2, -1)",
                       {key, std::to_string(size)});
    if (!obj.ok()) return fail("recording " + key, obj.error());
    // Only rows still as read: retention or DeleteRecords may have removed some meanwhile.
    // The objects they leave noted for the garbage collector (ketch_gc_candidates).
    auto moved = pg.exec(
        "WITH moved AS (UPDATE ketch_batches b SET object_key = $3, byte_offset = u.n FROM unnest($4::bigint[], "
        "$5::text[], $6::bigint[], $7::bigint[]) AS u(base, k, o, n) WHERE b.topic_id = $1 AND b.partition = $2 "
        "AND b.base_offset = u.base AND b.object_key = u.k AND b.byte_offset = u.o RETURNING u.k), noted AS "
        "(INSERT INTO ketch_gc_candidates (object_key) SELECT DISTINCT k FROM moved) SELECT count(*) FROM moved",
        {topic_id, partition, key, array_of(base), array_of(old_key), array_of(old_off), array_of(new_off)});
    if (!moved.ok()) return fail("moving the index rows", moved.error());
    if (auto s = pg.run("COMMIT"); !s.ok()) return failure{"COMMIT: " + s.error().message};
    return std::stoll(moved->at(0, 0));
}

}  // namespace

result<merge_result, std::string> merge_small_objects(objstore::s3_client& s3, cluster::pg_connection& pg,
                                                      uint64_t small_bytes, uint64_t max_bytes,
                                                      const std::string& key_prefix, double io_max_bytes_per_second) {
    auto parts = pg.exec(
        "SELECT b.topic_id, b.partition FROM ketch_batches b JOIN ketch_objects o ON o.object_key = b.object_key "
        "WHERE o.size_bytes < $1 GROUP BY b.topic_id, b.partition HAVING count(DISTINCT b.object_key) > 1",
        {std::to_string(small_bytes)});
    if (!parts.ok()) return failure{"listing partitions to merge: " + parts.error().message};
    merge_result out;
    for (size_t p = 0; p < parts->rows.size(); ++p) {
        const auto &topic_id = parts->at(p, 0), &partition = parts->at(p, 1);
        auto rows = small_rows(pg, topic_id, partition, small_bytes);
        if (!rows.ok()) return failure{rows.error()};
        io_throttle io(io_max_bytes_per_second);
        std::map<std::string, std::shared_ptr<const std::string>> bodies;  // the run's objects
        for (size_t from = 0; from < rows->size();) {
            std::vector<row> run;
            std::vector<uint64_t> offsets;
            std::string body;
            size_t to = from;
            uint64_t fetched = 0;  // bounds memory: the objects read for this run
            bodies.clear();
            for (; to < rows->size() &&
                   (run.empty() || (body.size() + (*rows)[to].byte_length <= max_bytes && fetched < 4 * max_bytes));
                 ++to) {
                const auto& r = (*rows)[to];
                auto& b = bodies[r.object_key];
                if (!b) {
                    auto got = s3.get_object(r.object_key);
                    if (!got.ok()) return failure{"GET " + r.object_key + ": " + got.error().describe()};
                    b = std::make_shared<const std::string>(std::move(*got));
                    fetched += b->size();
                    io.charge(b->size());
                }
                if (r.byte_offset + r.byte_length > b->size())
                    return failure{r.object_key + " is shorter than its index"};
                offsets.push_back(body.size());
                body.append(*b, r.byte_offset, r.byte_length);
                run.push_back(r);
            }
            from = to;
            bool spread = false;
            for (auto& r : run) spread |= r.object_key != run.front().object_key;
            if (!spread) continue;  // already one object
            const std::string key = key_prefix + std::to_string(out.objects_written);
            if (auto put = s3.put_object(key, body, true); !put.ok())
                return failure{"PUT " + key + ": " + put.error().describe()};
            io.charge(body.size());
            auto moved = swap(pg, topic_id, partition, run, offsets, key, body.size());
            if (!moved.ok()) return failure{moved.error()};
            ++out.objects_written;
            out.batches_moved += *moved;
        }
        out.io_bytes += io.bytes();
        out.throttled_ms += std::chrono::duration_cast<std::chrono::milliseconds>(io.slept()).count();
    }
    return out;
}

}  // namespace ketch::shared
