// The broker properties ketch reports as STATIC_BROKER_CONFIG in DescribeConfigs:
// a setting appears only when it differs from Kafka's default, as Kafka lists only
// what server.properties sets (core/src/main/scala/kafka/server/ConfigHelper.scala).
#include "app/broker_properties.h"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <string>
#include <vector>

#include "parse_args.h"

namespace ketch::app {
namespace {

using testing::parse;

// SocketServer's socket.send.buffer.bytes / socket.receive.buffer.bytes: ketch keeps
// Kafka's 102400 for sending and the OS's autotuning (-1) for receiving, so only the
// receive buffer is reported by default (docs/compatibility.md).
TEST(broker_properties, socket_buffers_are_reported_when_they_differ_from_kafka) {
    auto defaults = static_broker_properties(parse({}), {});
    EXPECT_FALSE(defaults.count("socket.send.buffer.bytes"));
    ASSERT_TRUE(defaults.count("socket.receive.buffer.bytes"));
    EXPECT_EQ(defaults.at("socket.receive.buffer.bytes"), "-1");

    auto set = static_broker_properties(
        parse({"--socket-send-buffer-bytes", "-1", "--socket-receive-buffer-bytes", "102400"}), {});
    EXPECT_EQ(set.at("socket.send.buffer.bytes"), "-1");
    EXPECT_FALSE(set.count("socket.receive.buffer.bytes"));
}

TEST(broker_properties, socket_buffer_flags_refuse_values_below_minus_one) {
    auto failed = [](int status) { return WIFEXITED(status) && WEXITSTATUS(status) != 0; };
    EXPECT_EXIT(parse({"--socket-send-buffer-bytes", "-2"}), failed, "socket-send-buffer-bytes");
    EXPECT_EXIT(parse({"--socket-receive-buffer-bytes", "-2"}), failed, "socket-receive-buffer-bytes");
}

// Kafka (GroupCoordinatorConfig) refuses to start with group.consumer.heartbeat
// .interval.ms / session.timeout.ms outside group.consumer.min/max.*; ketch's
// flags widen the bound instead, so a group's own settings are checked against
// bounds that admit the broker's (meta/group_configs.h).
TEST(broker_properties, consumer_group_flags_outside_kafkas_bounds_widen_them) {
    auto defaults = static_broker_properties(parse({}), {});
    EXPECT_FALSE(defaults.count("group.consumer.min.heartbeat.interval.ms"));
    auto low = static_broker_properties(
        parse({"--group-consumer-heartbeat-interval-ms", "1000", "--group-consumer-session-timeout-ms", "90000"}), {});
    EXPECT_EQ(low.at("group.consumer.min.heartbeat.interval.ms"), "1000");
    EXPECT_FALSE(low.count("group.consumer.max.heartbeat.interval.ms"));
    EXPECT_EQ(low.at("group.consumer.max.session.timeout.ms"), "90000");
    EXPECT_FALSE(low.count("group.consumer.min.session.timeout.ms"));
}

}  // namespace
}  // namespace ketch::app
