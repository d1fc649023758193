// Drives objstore::s3_client against a live S3-compatible server (moto in
// tests/cluster/test_objstore.py): ./objstore_check 's3://BUCKET?endpoint=...'.
// Prints one line per step; exits non-zero at the first step that does not hold.
#include <cstdio>
#include <string>

#include "objstore/s3_client.h"

using namespace ketch::objstore;

namespace {

int failed(const char* step, const std::string& why) {
    std::printf("FAIL %s: %s\n", step, why.c_str());
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) return failed("usage", "objstore_check S3_URL KEY");
    auto loc = parse_s3_url(argv[1]);
    if (!loc.ok()) return failed("url", loc.error());
    s3_client c(*loc, credentials_from_environment());
    const std::string key = argv[2], body = "batch bytes \x01\x02\x03 end";
    if (auto r = c.head_bucket(); !r.ok()) return failed("head_bucket", r.error().describe());
    if (auto r = c.put_object(key, body, true); !r.ok()) return failed("conditional put", r.error().describe());
    auto again = c.put_object(key, "other", true);
    if (again.ok()) return failed("second conditional put", "succeeded: the object would be overwritten");
    if (!again.error().precondition_failed()) return failed("second conditional put", again.error().describe());
    auto listed = c.list_objects(key.substr(0, key.rfind('/') + 1));
    if (!listed.ok()) return failed("list", listed.error().describe());
    bool found = false;
    for (auto& o : listed->objects) found |= o.key == key && o.size == body.size();
    if (!found) return failed("list", "the object is not listed with its size");
    auto got = c.get_object(key);
    if (!got.ok() || *got != body) return failed("get", got.ok() ? "other bytes: " + *got : got.error().describe());
    auto range = c.get_object(key, std::pair<uint64_t, uint64_t>{6, 10});
    if (!range.ok() || *range != body.substr(6, 5))
        return failed("ranged get", range.ok() ? "other bytes: " + *range : range.error().describe());
    if (auto r = c.delete_object(key); !r.ok()) return failed("delete", r.error().describe());
    auto gone = c.get_object(key);
    if (gone.ok() || gone.error().http_status != 404 || gone.error().code != "NoSuchKey")
        return failed("get after delete", gone.ok() ? "still there" : gone.error().describe());
    auto bad = *loc;
    bad.bucket = "no-such-bucket-here";
    s3_client missing(bad, credentials_from_environment());
    auto head = missing.head_bucket();
    if (head.ok() || head.error().http_status != 404) return failed("head of a missing bucket", "not 404");
    std::printf("ok\n");
    return 0;
}
