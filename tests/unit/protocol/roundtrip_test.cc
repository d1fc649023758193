// Every request and response of every API, at every version Kafka 4.3.1
// defines, survives encode -> decode -> encode unchanged, both as bytes and as
// a structure, for many pseudo-random samples (nullable, tagged and
// version-dependent fields included).
#include <gtest/gtest.h>

#include <string>

#include "protocol/messages/all_json.h"
#include "protocol/messages/api_table.h"
#include "protocol/messages/api_visit.h"

namespace ketch::kafka {
namespace {

template <class M>
void check_roundtrip(int16_t version, uint64_t seed) {
    sample_rng rng(seed);
    M original;
    fill_sample(original, version, rng);

    writer w;
    original.encode(w, version);
    bytes first = w.take_bytes();

    M decoded;
    reader r(first.data(), first.size());
    decoded.decode(r, version);
    ASSERT_EQ(r.remaining(), 0u) << M::message_name << " v" << version << " left bytes unread";

    writer w2;
    decoded.encode(w2, version);
    ASSERT_EQ(w2.take_bytes(), first) << M::message_name << " v" << version << " seed " << seed;
    ASSERT_TRUE(decoded == original) << M::message_name << " v" << version << " seed " << seed << "\n"
                                     << to_json(original, version).dump() << "\n"
                                     << to_json(decoded, version).dump();

    // JSON is a faithful second form of the same message.
    M from_j;
    from_json(to_json(original, version), from_j, version);
    ASSERT_TRUE(from_j == original) << M::message_name << " v" << version << " via JSON";
}

TEST(codec_roundtrip, every_api_every_version) {
    int messages = 0;
    for_each_api([&]<class Req, class Resp>() {
        for (int16_t v = Req::min_version; v <= Req::max_version; ++v) {
            for (uint64_t seed = 1; seed <= 25; ++seed) {
                check_roundtrip<Req>(v, seed * 7919 + uint64_t(v));
                check_roundtrip<Resp>(v, seed * 104729 + uint64_t(v));
            }
            messages += 2;
        }
    });
    // Kafka 4.3.1 defines far more than 500 (API, version, direction) triples.
    EXPECT_GT(messages, 500);
}

TEST(codec_roundtrip, truncated_input_is_a_decode_error_never_a_crash) {
    for_each_api([&]<class Req, class Resp>() {
        for (int16_t v = Req::min_version; v <= Req::max_version; ++v) {
            sample_rng rng(uint64_t(v) + 17);
            Req original;
            fill_sample(original, v, rng);
            writer w;
            original.encode(w, v);
            bytes b = w.take_bytes();
            for (size_t cut = 0; cut < b.size(); cut += 1 + b.size() / 16) {
                Req d;
                reader r(b.data(), cut);
                EXPECT_THROW(d.decode(r, v), decode_error) << Req::message_name << " v" << v << " cut " << cut;
            }
        }
    });
}

TEST(api_table, lists_every_broker_api_of_kafka_4_3_1) {
    int broker_apis = 0;
    for (auto& a : all_apis())
        if (a.broker) ++broker_apis;
    EXPECT_GE(broker_apis, 65);
    ASSERT_NE(find_api(18), nullptr);
    EXPECT_EQ(find_api(18)->name, "ApiVersions");
    EXPECT_EQ(find_api(18)->max_version, 4);
    EXPECT_EQ(find_api(18)->response_header_version(4), 0);  // KIP-511: always v0
    EXPECT_EQ(find_api(3)->response_header_version(12), 1);
    EXPECT_EQ(find_api(3)->request_header_version(8), 1);
}

}  // namespace
}  // namespace ketch::kafka
