// Pins the on-disk layout written down in docs/design/log_format.md: a small
// partition directory whose every byte is checked. If this test fails, the
// format changed: update the document (and think about old data) first.
#include <gtest/gtest.h>

#include "log/checkpoint.h"
#include "log/log_format.h"
#include "log_fixture.h"

namespace ketch::log {
namespace {

using testing::log_fixture;
using testing::make_batch;
using testing::must_append;

bytes file(log_fixture& fx, const std::string& name) {
    auto b = io::read_file(*fx.mem, io::join_path(fx.dir, name));
    EXPECT_TRUE(b.ok()) << name;
    return b.ok() ? *b : bytes{};
}

TEST(log_format, golden_partition_directory) {
    log_fixture fx;
    fx.config.index_interval_bytes = 100;
    // Start the log at offset 100 so relative and absolute offsets differ.
    ASSERT_TRUE(fx.mem->mkdir(fx.dir).ok());
    ASSERT_TRUE(write_checkpoint(*fx.mem, fx.dir, {100, 0}).ok());
    auto log = fx.open();
    ASSERT_EQ(log->log_end_offset(), 100);

    bytes a = make_batch({{1000, "a"}});               // 69 bytes at position 0,   offset 100
    bytes b = make_batch({{2000, "b"}, {3000, "c"}});  // 78 bytes at position 69,  offsets 101-102
    bytes c = make_batch({{4000, "d"}});               // 69 bytes at position 147, offset 103
    bytes d = make_batch({{5000, "e"}});               // 69 bytes at position 216, offset 104
    ASSERT_EQ(a.size(), 69u);
    ASSERT_EQ(b.size(), 78u);
    for (auto* x : {&a, &b, &c, &d}) must_append(*log, *x);
    ASSERT_TRUE(log->close().ok());

    // Directory listing.
    std::vector<std::string> names;
    auto listing = fx.mem->list_dir(fx.dir);
    for (const auto& e : *listing) names.push_back(e.name);
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"00000000000000000100.index", "00000000000000000100.log",
                                               "00000000000000000100.timeindex", "00000000000000000100.txnindex",
                                               "00000000000000000105.snapshot", "checkpoint"}));

    // .log: the batches verbatim, base offsets rewritten (bytes 0-7), nothing else.
    bytes expect_log;
    int64_t offset = 100;
    for (auto* x : {&a, &b, &c, &d}) {
        bytes copy = *x;
        record::set_base_offset(copy.data(), offset);
        offset += record::parse_batch_header(copy)->last_offset_delta + 1;
        expect_log.insert(expect_log.end(), copy.begin(), copy.end());
    }
    auto log_bytes = file(fx, "00000000000000000100.log");
    EXPECT_EQ(log_bytes, expect_log);
    EXPECT_EQ(bytes(log_bytes.begin(), log_bytes.begin() + 12),
              (bytes{0, 0, 0, 0, 0, 0, 0, 100, 0, 0, 0, 57}));  // base offset 100, batch length 57
    EXPECT_EQ(bytes(log_bytes.begin() + 69, log_bytes.begin() + 77),
              (bytes{0, 0, 0, 0, 0, 0, 0, 101}));  // second batch: base offset 101

    // .index: one entry, for the batch at 147 (>= 100 bytes after the segment
    // start); the batch at 216 is only 69 bytes after it.
    EXPECT_EQ(
        file(fx, "00000000000000000100.index"),
        (bytes{
            0x4B, 0x4F, 0x49, 0x58, 0x00, 0x01, 0x00, 0x08, 0, 0, 0, 0, 0, 0, 0, 100,  // "KOIX" v1 size 8 base 100
            0,    0,    0,    3,    0,    0,    0,    147,                             // relative offset 3 -> 147
            0,    0,    0,    1,    0x09, 0xF9, 0x5A, 0xD1,                            // 1 entry, CRC-32C
        }));

    // .timeindex: (4000, +3) added with the offset index entry (the max so far,
    // first reached by offset 103), and (5000, +4) added when the segment closed.
    EXPECT_EQ(
        file(fx, "00000000000000000100.timeindex"),
        (bytes{
            0x4B, 0x54, 0x49, 0x58, 0x00, 0x01, 0x00, 0x0C, 0, 0, 0, 0, 0, 0, 0, 100,  // "KTIX" v1 size 12 base 100
            0,    0,    0,    0,    0,    0,    0x0F, 0xA0, 0, 0, 0, 3,                // 4000 -> +3
            0,    0,    0,    0,    0,    0,    0x13, 0x88, 0, 0, 0, 4,                // 5000 -> +4
            0,    0,    0,    2,    0x7E, 0x30, 0x6F, 0x25,                            // 2 entries, CRC-32C
        }));

    auto cp = file(fx, "checkpoint");
    EXPECT_EQ(std::string(cp.begin(), cp.end()), "ketch-checkpoint 1\nlog_start_offset 100\nrecovery_point 100\n");
}

TEST(log_format, checkpoint_parser_is_strict) {
    EXPECT_EQ(parse_checkpoint("ketch-checkpoint 1\nlog_start_offset 5\nrecovery_point 7\n"), (checkpoint{5, 7}));
    EXPECT_FALSE(parse_checkpoint("ketch-checkpoint 2\nlog_start_offset 5\nrecovery_point 7\n"));
    EXPECT_FALSE(parse_checkpoint("ketch-checkpoint 1\nlog_start_offset 5\nrecovery_point 7"));
    EXPECT_FALSE(parse_checkpoint("ketch-checkpoint 1\nlog_start_offset -5\nrecovery_point 7\n"));
    EXPECT_FALSE(parse_checkpoint("ketch-checkpoint 1\nlog_start_offset 5x\nrecovery_point 7\n"));
    EXPECT_FALSE(parse_checkpoint(""));
}

}  // namespace
}  // namespace ketch::log
