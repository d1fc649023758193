// Drives shared/object_io.h against PostgreSQL and moto (tests/cluster/test_shared_log.py):
// ./shared_log_check POSTGRES_URL S3_URL. Two flushes of real v2 batches
// (record::batch_builder) to two partitions, one batch retried by an
// idempotent producer; reading back gives each partition's batches with
// contiguous offsets in their headers, CRCs intact, the retry not twice.
#include <cstdio>
#include <cstring>
#include <string>

#include "cluster/schema.h"
#include "record/batch_builder.h"
#include "shared/object_io.h"

#include "check.h"

using namespace ketch;
using check::expect;
using check::failures;

namespace {

bytes make_batch(int records, int64_t pid = -1, int32_t seq = -1) {
    record::batch_options o;
    if (pid >= 0) {
        o.producer_id = pid;
        o.producer_epoch = 0;
        o.base_sequence = seq;
    }
    record::batch_builder b(o);
    for (int i = 0; i < records; ++i) {
        std::string v = "value-" + std::to_string(seq) + "-" + std::to_string(i);
        b.add({std::nullopt, bytes(v.begin(), v.end()), {}, 1000 + i});
    }
    return *b.build();
}

// (base offset, record count) of each batch in `data`, and whether every CRC holds.
std::vector<std::pair<int64_t, int32_t>> walk(const bytes& data, bool& crcs_ok) {
    std::vector<std::pair<int64_t, int32_t>> out;
    crcs_ok = true;
    for (size_t at = 0; at < data.size();) {
        auto h = record::parse_batch_header(byte_view(data).subspan(at));
        if (!h || at + h->total_size() > data.size()) return crcs_ok = false, out;
        crcs_ok &= record::batch_crc_matches(byte_view(data).subspan(at, h->total_size()));
        expect(h->partition_leader_epoch == 7, "the leader epoch is rewritten");
        out.emplace_back(h->base_offset, h->records_count);
        at += h->total_size();
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) return std::printf("usage: shared_log_check POSTGRES_URL S3_URL\n"), 2;
    auto pg = cluster::pg_connection::open(argv[1]);
    if (!pg.ok() || !cluster::migrate(**pg).ok()) return std::printf("FAIL postgres\n"), 1;
    auto loc = objstore::parse_s3_url(argv[2]);
    objstore::s3_client s3(*loc, objstore::credentials_from_environment());
    const cluster::partition_key p0{"topic-a", 0}, p1{"topic-a", 1};
    bytes a = make_batch(3, 5, 0), b = make_batch(2), c = make_batch(1, 5, 3), d = make_batch(2, 5, 4);

    auto f1 = shared::write_flush(s3, **pg, 1, "data/f1", {{p0, a}, {p1, b}, {p0, c}});
    if (!f1.ok()) return std::printf("FAIL flush 1: %s\n", f1.error().c_str()), 1;
    expect((*f1)[0].base_offset == 0 && (*f1)[1].base_offset == 0 && (*f1)[2].base_offset == 3, "flush 1 offsets");
    auto f2 = shared::write_flush(s3, **pg, 2, "data/f2", {{p0, a}, {p0, d}});  // a: the producer's retry
    if (!f2.ok()) return std::printf("FAIL flush 2: %s\n", f2.error().c_str()), 1;
    expect((*f2)[0].what == cluster::batch_outcome::duplicate && (*f2)[0].base_offset == 0, "the retry is a duplicate");
    expect((*f2)[1].base_offset == 4, "the next batch at 4");
    auto again = shared::write_flush(s3, **pg, 2, "data/f2", {{p0, d}});
    expect(!again.ok() && again.error().find("412") != std::string::npos, "an object key is never written twice");

    bool crcs = false;
    auto all = shared::read_batches(s3, **pg, p0, 0, 1 << 20, 7);
    if (!all.ok()) return std::printf("FAIL read: %s\n", all.error().c_str()), 1;
    auto seen = walk(*all, crcs);
    expect(seen == std::vector<std::pair<int64_t, int32_t>>{{0, 3}, {3, 1}, {4, 2}}, "partition 0: 0..2, 3, 4..5");
    expect(crcs, "CRCs hold after the offsets were rewritten");
    expect(all->size() == a.size() + c.size() + d.size(), "each batch once");
    expect(std::memcmp(all->data() + 16, a.data() + 16, a.size() - 16) == 0,
           "the batch bytes past the epoch as written");
    auto from3 = shared::read_batches(s3, **pg, p0, 3, 1 << 20, 7);
    expect(from3.ok() && walk(*from3, crcs) == std::vector<std::pair<int64_t, int32_t>>{{3, 1}, {4, 2}},
           "a read from offset 3 starts at its batch");
    auto one = shared::read_batches(s3, **pg, p1, 0, 1 << 20, 7);
    expect(one.ok() && walk(*one, crcs) == std::vector<std::pair<int64_t, int32_t>>{{0, 2}}, "partition 1: 0..1");
    if (failures) return 1;
    std::printf("ok\n");
    return 0;
}
