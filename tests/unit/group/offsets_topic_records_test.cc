// The __consumer_offsets record formats as Kafka 4.x writes them:
// group-coordinator/src/main/resources/common/message/OffsetCommitKey.json,
// OffsetCommitValue.json, GroupMetadataKey.json, GroupMetadataValue.json, the
// versions from GroupCoordinatorRecordHelpers.newOffsetCommitRecord /
// newGroupMetadataRecord and MetadataVersion.offsetCommitValueVersion /
// groupMetadataValueVersion; the partition from
// GroupCoordinatorService.partitionFor (Utils.abs(groupId.hashCode()) % 50).
#include <gtest/gtest.h>

#include "group/group_record.h"
#include "group/offsets_topic_records.h"

using namespace ketch;
using namespace ketch::group;

namespace {

bytes be16(int16_t v) { return {uint8_t(uint16_t(v) >> 8), uint8_t(v)}; }
bytes be32(int32_t v) {
    auto u = uint32_t(v);
    return {uint8_t(u >> 24), uint8_t(u >> 16), uint8_t(u >> 8), uint8_t(u)};
}
bytes be64(int64_t v) {
    bytes out = be32(int32_t(uint64_t(v) >> 32));
    auto lo = be32(int32_t(uint64_t(v) & 0xffffffff));
    out.insert(out.end(), lo.begin(), lo.end());
    return out;
}
bytes str(const std::string& s) {
    bytes out;
    out.reserve(2 + s.size());
    for (uint8_t b : be16(int16_t(s.size()))) out.push_back(b);
    for (char c : s) out.push_back(uint8_t(c));
    return out;
}
bytes cat(std::initializer_list<bytes> parts) {
    bytes out;
    for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}

meta::stored_offset offset_row() {
    meta::stored_offset o;
    o.group = "g";
    o.topic = "t";
    o.partition = 3;
    o.offset = 42;
    o.leader_epoch = 7;
    o.metadata = "m";
    o.commit_timestamp_ms = 1700000000000;
    return o;
}

}  // namespace

TEST(offsets_topic_records, partition_is_abs_java_hash_mod_50) {
    EXPECT_EQ(offsets_partition_for("test"), 3556498 % 50);  // "test".hashCode() = 3556498
    EXPECT_EQ(offsets_partition_for(""), 0);
    // "polygenelubricants".hashCode() is Integer.MIN_VALUE; Utils.abs makes it 0.
    EXPECT_EQ(offsets_partition_for("polygenelubricants"), 0);
    // "Aa" and "BB" collide in Java (2112): same partition.
    EXPECT_EQ(offsets_partition_for("Aa"), 2112 % 50);
    EXPECT_EQ(offsets_partition_for("BB"), 2112 % 50);
    // A negative hash: "hello world!".hashCode() = -217287203.
    EXPECT_EQ(offsets_partition_for("hello world!"), 217287203 % 50);
}

TEST(offsets_topic_records, offset_commit_key_is_version_1) {
    EXPECT_EQ(offset_commit_key("g", "t", 3), cat({be16(1), str("g"), str("t"), be32(3)}));
}

TEST(offsets_topic_records, offset_commit_value_is_flexible_version_4) {
    // Compact string "m" (length + 1 as a varint), no tagged fields (no topic id).
    EXPECT_EQ(offset_commit_value(offset_row()),
              cat({be16(4), be64(42), be32(7), bytes{2, 'm'}, be64(1700000000000), bytes{0}}));
}

bytes unhex(std::string_view h) {
    bytes out;
    for (size_t i = 0; i + 1 < h.size(); i += 2)
        out.push_back(uint8_t(std::stoi(std::string(h.substr(i, 2)), nullptr, 16)));
    return out;
}

// The same records serialised by Kafka 4.3.1's own generated classes
// (kafka-group-coordinator-4.3.1.jar: OffsetCommitKey/Value, GroupMetadataKey/
// Value through MessageUtil.toVersionPrefixedByteBuffer, at the versions
// GroupCoordinatorRecordHelpers picks).
TEST(offsets_topic_records, bytes_equal_what_kafka_4_3_1_writes) {
    EXPECT_EQ(offset_commit_key("g", "t", 3), unhex("000100016700017400000003"));
    EXPECT_EQ(group_metadata_key("grp"), unhex("00020003677270"));
    EXPECT_EQ(offset_commit_value(offset_row()), unhex("0004000000000000002a00000007026d0000018bcfe5680000"));
    auto expiring = offset_row();
    expiring.expire_timestamp_ms = 1700000060000;
    EXPECT_EQ(offset_commit_value(expiring), unhex("0001000000000000002a00016d0000018bcfe568000000018bcfe65260"));
    meta::stored_group empty{.group = "grp", .protocol_type = "consumer", .generation = 5, .empty_since_ms = 123};
    EXPECT_EQ(group_metadata_value(empty), unhex("00030008636f6e73756d657200000005ffffffff000000000000007b00000000"));
}

TEST(offsets_topic_records, offset_commit_value_with_expire_timestamp_is_version_1) {
    auto o = offset_row();
    o.expire_timestamp_ms = 1700000060000;
    EXPECT_EQ(offset_commit_value(o), cat({be16(1), be64(42), str("m"), be64(1700000000000), be64(1700000060000)}));
}

TEST(offsets_topic_records, group_metadata_key_is_version_2) {
    EXPECT_EQ(group_metadata_key("grp"), cat({be16(2), str("grp")}));
}

TEST(offsets_topic_records, empty_group_value_has_no_protocol_leader_or_members) {
    meta::stored_group g{.group = "grp", .protocol_type = "consumer", .generation = 5, .empty_since_ms = 123};
    auto v = group_metadata_value(g);
    ASSERT_TRUE(v);
    EXPECT_EQ(*v, cat({be16(3), str("consumer"), be32(5), be16(-1), be16(-1), be64(123), be32(0)}));
}

TEST(offsets_topic_records, simple_group_has_no_group_metadata_record) {
    meta::stored_group g{.group = "grp"};
    EXPECT_FALSE(group_metadata_value(g));
}

TEST(offsets_topic_records, stable_group_value_has_its_members) {
    classic_group cg("grp", 0);
    classic_member m;
    m.member_id = "m1";
    m.group_instance_id = "i1";
    m.client_id = "c";
    m.client_host = "/127.0.0.1";
    m.rebalance_timeout_ms = 300000;
    m.session_timeout_ms = 45000;
    m.protocols = {{"range", bytes{1, 2}}};
    m.assignment = bytes{9};
    m.protocol_type = "consumer";
    cg.restore_members("range", "m1", {m}, 1700000000000);  // Stable since then
    meta::stored_group g{.group = "grp", .protocol_type = "consumer", .generation = 2, .state = encode_classic(cg)};
    auto v = group_metadata_value(g);
    ASSERT_TRUE(v);
    EXPECT_EQ(*v, cat({be16(3), str("consumer"), be32(2), str("range"), str("m1"), be64(1700000000000), be32(1),
                       str("m1"), str("i1"), str("c"), str("/127.0.0.1"), be32(300000), be32(45000), be32(2),
                       bytes{1, 2}, be32(1), bytes{9}}));
    // Kafka 4.3.1's GroupMetadataValue v3 of the same group (currentStateTimestamp 1700000000000).
    EXPECT_EQ(*v, unhex("00030008636f6e73756d657200000002000572616e676500026d310000018bcfe568000000000100026d3100026931"
                        "000163000a2f3132372e302e302e31000493e00000afc80000000201020000000109"));
}

TEST(offsets_topic_records, keys_and_values_read_back) {
    auto k = decode_offsets_key(offset_commit_key("g", "t", 3));
    ASSERT_TRUE(k);
    EXPECT_TRUE(k->is_offset_commit());
    EXPECT_EQ(k->group, "g");
    EXPECT_EQ(k->topic, "t");
    EXPECT_EQ(k->partition, 3);
    auto gk = decode_offsets_key(group_metadata_key("grp"));
    ASSERT_TRUE(gk);
    EXPECT_TRUE(gk->is_group_metadata());
    EXPECT_EQ(gk->group, "grp");
    EXPECT_FALSE(decode_offsets_key(bytes{0, 1, 0}));  // truncated
    auto v = decode_offset_commit_value(offset_commit_value(offset_row()));
    ASSERT_TRUE(v);
    EXPECT_EQ(v->offset, 42);
    EXPECT_EQ(v->leader_epoch, 7);
    EXPECT_EQ(v->metadata, "m");
    EXPECT_EQ(v->commit_timestamp, 1700000000000);
    // With a tagged topic id (tag 0, 16 bytes), as Kafka writes for OffsetCommit v10.
    auto tagged = decode_offset_commit_value(
        unhex("0004000000000000002a00000007026d0000018bcfe5680001001000000000000000000000000000000001"));
    ASSERT_TRUE(tagged);
    EXPECT_EQ(tagged->offset, 42);
    EXPECT_EQ(tagged->metadata, "m");
}
