// Kafka's error codes. Reference: Apache Kafka 4.3.1,
// clients/src/main/java/org/apache/kafka/common/protocol/Errors.java.
#include "base/error_code.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace ketch {
namespace {

TEST(error_code, every_code_in_range_has_a_unique_name_and_a_message) {
    std::set<std::string_view> names;
    for (int v = k_min_error_code; v <= k_max_error_code; ++v) {
        auto e = error_from_int(int16_t(v));
        ASSERT_TRUE(e) << v;
        std::string_view n = error_name(*e);
        ASSERT_FALSE(n.empty()) << v;
        EXPECT_TRUE(names.insert(n).second) << "duplicate name " << n;
        EXPECT_FALSE(error_message(*e).empty()) << n;
        for (char c : n) EXPECT_TRUE((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_') << n;
    }
    EXPECT_EQ(names.size(), size_t(k_max_error_code - k_min_error_code + 1));
}

TEST(error_code, name_round_trips_to_the_same_code) {
    for (int v = k_min_error_code; v <= k_max_error_code; ++v) {
        auto e = error_from_int(int16_t(v));
        ASSERT_TRUE(e);
        auto back = error_from_name(error_name(*e));
        ASSERT_TRUE(back) << error_name(*e);
        EXPECT_EQ(to_int(*back), v);
    }
}

TEST(error_code, values_outside_kafkas_range_are_not_codes) {
    EXPECT_FALSE(error_from_int(int16_t(k_min_error_code - 1)));
    EXPECT_FALSE(error_from_int(int16_t(k_max_error_code + 1)));
    EXPECT_TRUE(error_name(error_code(int16_t(k_max_error_code + 1))).empty());
    EXPECT_FALSE(error_from_name("unknown_server_error"));  // case sensitive
    EXPECT_FALSE(error_from_name(""));
    EXPECT_FALSE(error_from_name("UNKNOWN_RETRIABLE"));  // not in 4.3.1
}

// Spot checks of Kafka 4.3.1 numbers and names (Errors.java).
TEST(error_code, matches_kafka_numbers_and_names) {
    struct fact {
        error_code code;
        int16_t value;
        std::string_view name;
    };
    const fact facts[] = {
        {error_code::unknown_server_error, -1, "UNKNOWN_SERVER_ERROR"},
        {error_code::none, 0, "NONE"},
        {error_code::offset_out_of_range, 1, "OFFSET_OUT_OF_RANGE"},
        {error_code::corrupt_message, 2, "CORRUPT_MESSAGE"},
        {error_code::unknown_topic_or_partition, 3, "UNKNOWN_TOPIC_OR_PARTITION"},
        {error_code::not_leader_or_follower, 6, "NOT_LEADER_OR_FOLLOWER"},
        {error_code::message_too_large, 10, "MESSAGE_TOO_LARGE"},
        {error_code::invalid_topic_exception, 17, "INVALID_TOPIC_EXCEPTION"},
        {error_code::record_list_too_large, 18, "RECORD_LIST_TOO_LARGE"},
        {error_code::invalid_timestamp, 32, "INVALID_TIMESTAMP"},
        {error_code::unsupported_version, 35, "UNSUPPORTED_VERSION"},
        {error_code::unsupported_for_message_format, 43, "UNSUPPORTED_FOR_MESSAGE_FORMAT"},
        {error_code::out_of_order_sequence_number, 45, "OUT_OF_ORDER_SEQUENCE_NUMBER"},
        {error_code::kafka_storage_error, 56, "KAFKA_STORAGE_ERROR"},
        {error_code::unsupported_compression_type, 76, "UNSUPPORTED_COMPRESSION_TYPE"},
        {error_code::invalid_record, 87, "INVALID_RECORD"},
        {error_code::producer_fenced, 90, "PRODUCER_FENCED"},
        {error_code::transaction_abortable, 120, "TRANSACTION_ABORTABLE"},
        {error_code::rebootstrap_required, 129, "REBOOTSTRAP_REQUIRED"},
        {error_code::share_session_limit_reached, 133, "SHARE_SESSION_LIMIT_REACHED"},
    };
    for (const fact& f : facts) {
        EXPECT_EQ(to_int(f.code), f.value) << f.name;
        EXPECT_EQ(error_name(f.code), f.name);
    }
    EXPECT_EQ(k_min_error_code, -1);
    EXPECT_EQ(k_max_error_code, 133);
}

}  // namespace
}  // namespace ketch
