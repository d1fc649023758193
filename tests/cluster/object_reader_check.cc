// Drives shared::object_reader and shared::disk_cache against moto behind
// faulty_s3.py's proxy (tests/cluster/test_object_reads.py counts the
// requests the proxy saw between steps): ./object_reader_check S3_URL PREFIX
// CACHE_DIR. Step by step: it prints "STEP name" and waits for a line on
// stdin before the step's requests (the test notes what the proxy saw so
// far, and before "hang-then-read" makes the proxy hold requests); in that
// step it prints "WAITING" once three reads wait on the first one's GET, and
// waits for another line (the test lets the requests go).
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "check.h"
#include "objstore/s3_client.h"
#include "shared/disk_cache.h"
#include "shared/object_reader.h"

using namespace ketch;
using namespace ketch::shared;
using check::expect;

namespace {

std::string random_bytes(size_t n, uint32_t seed) {
    std::mt19937 g(seed);
    std::string s(n, '\0');
    for (auto& c : s) c = char(g());
    return s;
}

void step(const char* name) {
    std::cout << "STEP " << name << std::endl;
    std::string go;
    std::getline(std::cin, go);
}

// Reads `w` and compares every range with `body`'s bytes.
void read_and_compare(object_reader& r, objstore::s3_client& s3, const std::vector<wanted_range>& w,
                      const std::string& body, const std::string& what) {
    auto got = r.read(s3, w);
    expect(got.ok(), what + ": " + (got.ok() ? "" : got.error()));
    if (!got.ok()) return;
    for (size_t i = 0; i < w.size(); ++i)
        expect(std::string((*got)[i].b->data() + (*got)[i].at, w[i].length) == body.substr(w[i].offset, w[i].length),
               what + ": range " + std::to_string(i) + " has other bytes");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) return std::printf("usage: object_reader_check S3_URL PREFIX CACHE_DIR\n"), 2;
    auto loc = objstore::parse_s3_url(argv[1]);
    if (!loc.ok()) return std::printf("FAIL url: %s\n", loc.error().c_str()), 1;
    objstore::s3_client s3(*loc, objstore::credentials_from_environment());
    const std::string prefix = argv[2], big_key = prefix + "big", small_key = prefix + "small";
    const std::string big = random_bytes(3 << 20, 1), small = random_bytes(100 << 10, 2);
    expect(s3.put_object(big_key, big, true).ok(), "PUT big");
    expect(s3.put_object(small_key, small, true).ok(), "PUT small");
    const read_policy policy{1 << 20, 256 << 10};  // whole up to 1 MiB, ranges 256 KiB apart share a GET

    object_cache memory(64 << 20);
    object_reader r(memory, nullptr, policy);
    step("coalesced");  // two GETs: [0, 300) with [200, 300), and [2 MiB, +100) alone
    read_and_compare(
        r, s3, {{big_key, 0, 100, big.size()}, {big_key, 200, 100, big.size()}, {big_key, 2 << 20, 100, big.size()}},
        big, "coalesced");
    step("cached");  // no GET: every range is inside a cached piece
    read_and_compare(r, s3, {{big_key, 50, 200, big.size()}, {big_key, (2 << 20) + 10, 50, big.size()}}, big, "cached");
    step("whole");  // one GET without a range, then none
    read_and_compare(r, s3, {{small_key, 10, 10, small.size()}}, small, "whole");
    read_and_compare(r, s3, {{small_key, 5000, 4000, small.size()}}, small, "whole again");

    step("hang-then-read");  // four reads of one range: one GET
    std::string line;
    std::vector<std::thread> readers;
    for (int i = 0; i < 4; ++i)
        readers.emplace_back([&] { read_and_compare(r, s3, {{big_key, 1 << 20, 4096, big.size()}}, big, "shared"); });
    while (r.waiting() < 3) std::this_thread::yield();  // the test's deadline bounds this
    std::cout << "WAITING" << std::endl;
    std::getline(std::cin, line);
    for (auto& t : readers) t.join();

    const std::filesystem::path dir = argv[3];
    const uint64_t bound = 300 << 10;
    {
        step("disk-fill");  // ranges GET and written to the disk cache
        auto disk = disk_cache::open(dir, bound, "space");
        expect(disk.ok(), "open the disk cache");
        object_cache cold(64 << 20);
        object_reader d(cold, disk->get(), policy);
        read_and_compare(d, s3, {{big_key, 0, 100 << 10, big.size()}, {big_key, 1 << 20, 100 << 10, big.size()}}, big,
                         "disk fill");
        expect((*disk)->bytes() <= bound, "the disk cache's bound");
    }
    {
        step("disk-hit");  // a fresh process's view: no GET, the pieces come from the files
        auto disk = disk_cache::open(dir, bound, "space");
        object_cache cold(64 << 20);
        object_reader d(cold, disk->get(), policy);
        read_and_compare(d, s3, {{big_key, 10, 1000, big.size()}, {big_key, (1 << 20) + 5, 1000, big.size()}}, big,
                         "disk hit");
        auto other = disk_cache::open(dir, bound, "another store");  // another store's pieces never match
        expect(!(*other)->get(big_key, 10, 1000, nullptr), "another store's key found");
    }
    for (auto& e : std::filesystem::directory_iterator(dir))  // every file truncated
        std::filesystem::resize_file(e.path(), std::filesystem::file_size(e.path()) - 1);
    {
        step("disk-corrupt");  // truncated files are removed and the ranges read again (two GETs)
        auto disk = disk_cache::open(dir, bound, "space");
        object_cache cold(64 << 20);
        object_reader d(cold, disk->get(), policy);
        read_and_compare(d, s3, {{big_key, 10, 1000, big.size()}, {big_key, (1 << 20) + 5, 1000, big.size()}}, big,
                         "disk corrupt");
        step("disk-bound");  // more than the bound read: the oldest pieces go, the files stay within it
        for (uint64_t at = 0; at < (2 << 20); at += 100 << 10)
            read_and_compare(d, s3, {{big_key, at, 100 << 10, big.size()}}, big, "disk bound");
        uint64_t on_disk = 0;
        for (auto& e : std::filesystem::directory_iterator(dir)) on_disk += std::filesystem::file_size(e.path());
        expect(on_disk <= bound && (*disk)->bytes() == on_disk,
               "files hold " + std::to_string(on_disk) + " bytes, the cache counts " +
                   std::to_string((*disk)->bytes()) + ", bound " + std::to_string(bound));
    }
    step("end");
    std::cout << (check::failures == 0 ? "ok" : "FAILED") << std::endl;
    return check::failures == 0 ? 0 : 1;
}
