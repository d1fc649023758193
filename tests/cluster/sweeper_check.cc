// Drives shared::sweep_orphans against PostgreSQL and moto
// (tests/cluster/test_sweeper.py): ./sweeper_check POSTGRES_URL S3_URL.
// Prints "ok", or one line per check that did not hold and exits non-zero.
#include <cstdio>
#include <string>

#include "cluster/catalogue.h"
#include "cluster/schema.h"
#include "shared/sweeper.h"

#include "check.h"

using namespace ketch;
using check::expect;
using check::failures;
using clk = std::chrono::system_clock;

namespace {

bool exists(objstore::s3_client& s3, const std::string& key) { return s3.get_object(key).ok(); }

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) return std::printf("usage: sweeper_check POSTGRES_URL S3_URL\n"), 2;
    auto pg = cluster::pg_connection::open(argv[1]);
    if (!pg.ok() || !cluster::migrate(**pg).ok()) return std::printf("FAIL postgres\n"), 1;
    auto loc = objstore::parse_s3_url(argv[2]);
    if (!loc.ok()) return std::printf("FAIL url: %s\n", loc.error().c_str()), 1;
    objstore::s3_client s3(*loc, objstore::credentials_from_environment());
    for (const char* key : {"data/committed", "data/orphan", "other/untouched"})
        if (!s3.put_object(key, "bytes", true).ok()) return std::printf("FAIL put %s\n", key), 1;
    auto c = cluster::commit_flush(**pg, {"data/committed", 5, 1, {{{"t", 0}, 1, 0, 5, 0}}});
    if (!c.ok()) return std::printf("FAIL commit: %s\n", c.error().message.c_str()), 1;

    // Everything is younger than an hour ago: nothing is touched.
    auto young = shared::sweep_orphans(s3, **pg, "data/", clk::now() - std::chrono::hours(1));
    expect(young.ok() && young->listed == 2 && young->young == 2 && young->deleted == 0, "young objects stay");
    expect(exists(s3, "data/orphan"), "the young orphan is still there");
    // A cutoff past them all: the orphan goes, the committed object and other prefixes stay.
    auto swept = shared::sweep_orphans(s3, **pg, "data/", clk::now() + std::chrono::hours(1));
    expect(swept.ok() && swept->listed == 2 && swept->kept == 1 && swept->deleted == 1, "one orphan deleted");
    expect(!exists(s3, "data/orphan"), "the orphan is gone");
    expect(exists(s3, "data/committed"), "the committed object stays");
    expect(exists(s3, "other/untouched"), "objects under other prefixes stay");
    if (failures) return 1;
    std::printf("ok\n");
    return 0;
}
