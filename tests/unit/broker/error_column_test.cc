// The registry's error column (broker/handler.h): every served API builds
// the response refusing a request with one error, as Kafka's
// AbstractRequest.getErrorResponse does for each request class
// (clients/src/main/java/org/apache/kafka/common/requests/*Request.java).
// For every API at its lowest and highest served version, over many sample
// requests: the column answers (except where Kafka sends nothing), the answer
// decodes, and every error code in it is the one refused with.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "broker/handlers/handlers.h"
#include "protocol/messages/all_json.h"
#include "protocol/messages/api_visit.h"

namespace ketch::broker {
namespace {

using nlohmann::json;

// What a refusal's answer holds, over all its error fields.
struct tally {
    int error_codes = 0;
    int answers = 0;
};

bool is_error_code_field(const std::string& key) {
    // CreateTopics' topic_config_error_code is about the configs Kafka leaves
    // out of an error row (CreateTopicsRequest.getErrorResponse keeps it 0).
    if (key == "topic_config_error_code") return false;
    return key == "error_code" || key.ends_with("_error_code");
}

// Every error code in `j` is `code`; every error message one of the answer's.
void check_fields(const json& j, const error_answer& e, const std::string& where, tally& t) {
    if (j.is_array()) {
        for (auto& x : j) check_fields(x, e, where, t);
        return;
    }
    if (!j.is_object()) return;
    for (auto& [key, value] : j.items()) {
        if (is_error_code_field(key)) {
            EXPECT_EQ(value.get<int>(), e.code) << where << ": " << key;
            ++t.error_codes;
        } else if (key == "error_message" && !value.is_null()) {
            auto text = value.get<std::string>();
            EXPECT_TRUE((e.message && text == *e.message) || text == e.code_message) << where << ": " << text;
        } else {
            check_fields(value, e, where, t);
        }
    }
}

// Where Kafka sends no error response (the connection is closed instead).
template <class Req>
bool kafka_sends_none(const Req& req) {
    if constexpr (std::is_same_v<Req, kafka::produce_request>) {
        return req.acks == 0;  // ProduceRequest.getErrorResponse returns null
    } else if constexpr (std::is_same_v<Req, kafka::describe_user_scram_credentials_request>) {
        // A result without its non-nullable user (or a null list) fails to serialize.
        return !req.users || !req.users->empty();
    } else {
        return false;
    }
}

template <class Req, class Resp>
void refuse(const handler_entry& h, int16_t version, const Req& req, const error_answer& e, tally& t) {
    const std::string where = std::string(Req::message_name) + " v" + std::to_string(version);
    kafka::writer req_w;
    req.encode(req_w, version);
    ketch::bytes body = req_w.take_bytes();
    kafka::reader r(body.data(), body.size());
    kafka::writer out;
    const bool answered = h.error(r, version, e, out);
    ASSERT_EQ(answered, !kafka_sends_none(req)) << where << "\n" << to_json(req, version).dump();
    if (!answered) return;
    ++t.answers;
    ketch::bytes encoded = out.take_bytes();
    Resp resp;
    kafka::reader rr(encoded.data(), encoded.size());
    resp.decode(rr, version);
    ASSERT_EQ(rr.remaining(), 0u) << where;
    check_fields(to_json(resp, version), e, where, t);
}

// The (API, version) pairs whose error response has no error field at all:
// DescribeLogDirs v1-2 has no top-level error code (DescribeLogDirsRequest.
// getErrorResponse answers an empty result list).
const std::set<std::pair<int16_t, int16_t>> k_no_error_field = {
    {int16_t(kafka::api_key::describe_log_dirs), 1},
};

void check_every_served_api(const error_answer& e) {
    int apis = 0;
    for (const handler_entry& h : served_apis()) {
        ASSERT_NE(h.error, nullptr);
        bool found = false;
        kafka::for_each_api([&]<class Req, class Resp>() {
            if (Req::api_key != h.key) return;
            found = true;
            for (int16_t v : {h.min_version, h.max_version}) {
                tally t;
                refuse<Req, Resp>(h, v, Req{}, e, t);
                for (uint64_t seed = 1; seed <= 40; ++seed) {
                    kafka::sample_rng rng(seed * 6151 + uint64_t(v));
                    Req req;
                    fill_sample(req, v, rng);
                    refuse<Req, Resp>(h, v, req, e, t);
                }
                EXPECT_GT(t.answers, 0) << Req::message_name << " v" << v;
                if (!k_no_error_field.contains({h.key, v})) {
                    EXPECT_GT(t.error_codes, 0) << Req::message_name << " v" << v << ": no error field";
                }
            }
        });
        EXPECT_TRUE(found) << "api key " << h.key;
        ++apis;
    }
    EXPECT_GT(apis, 40);
}

TEST(error_column, every_served_api_refuses_with_illegal_sasl_state) {
    check_every_served_api(error_answer::illegal_sasl_state("Metadata"));
}

TEST(error_column, every_served_api_refuses_with_unknown_server_error) {
    check_every_served_api(error_answer::unknown_server_error());
}

TEST(error_column, an_undecodable_request_gets_no_answer) {
    const handler_entry* h = find_handler(int16_t(kafka::api_key::metadata));
    ASSERT_NE(h, nullptr);
    const uint8_t truncated[] = {0x00, 0x00, 0x00};  // v1: an array length cut short
    kafka::reader r(truncated, sizeof truncated);
    kafka::writer out;
    EXPECT_FALSE(h->error(r, 1, error_answer::unknown_server_error(), out));
}

// ProduceRequest.getErrorResponse: one row per partition of the request, with
// the exception's message (Kafka 4.3.1, conformance/recordings/acl-sasl-states.json).
TEST(error_column, produce_refuses_every_partition_with_the_message) {
    kafka::produce_request req;
    req.acks = -1;
    auto& t = req.topic_data.emplace_back();
    t.name = "orders";
    t.partition_data.emplace_back().index = 0;
    t.partition_data.emplace_back().index = 3;
    auto e = error_answer::illegal_sasl_state("Produce");
    auto resp = produce_error(req, 11, e);
    ASSERT_TRUE(resp);
    ASSERT_EQ(resp->responses.size(), 1u);
    EXPECT_EQ(resp->responses[0].name, "orders");
    ASSERT_EQ(resp->responses[0].partition_responses.size(), 2u);
    for (auto& p : resp->responses[0].partition_responses) {
        EXPECT_EQ(p.error_code, 34);
        EXPECT_EQ(p.base_offset, -1);
        EXPECT_EQ(p.error_message, "Unexpected Kafka request of type PRODUCE during SASL authentication.");
    }
    EXPECT_EQ(resp->responses[0].partition_responses[1].index, 3);
}

// UNKNOWN_SERVER_ERROR carries no exception text (ApiError.fromThrowable).
TEST(error_column, unknown_server_error_leaks_no_message) {
    kafka::create_topics_request req;
    req.topics.emplace_back().name = "t";
    auto resp = create_topics_error(req, 7, error_answer::unknown_server_error());
    ASSERT_TRUE(resp);
    ASSERT_EQ(resp->topics.size(), 1u);
    EXPECT_EQ(resp->topics[0].error_code, -1);
    EXPECT_EQ(resp->topics[0].error_message, std::nullopt);
}

TEST(error_column, api_enum_name_is_kafkas) {
    EXPECT_EQ(api_enum_name("DescribeCluster"), "DESCRIBE_CLUSTER");
    EXPECT_EQ(api_enum_name("Produce"), "PRODUCE");
}

}  // namespace
}  // namespace ketch::broker
