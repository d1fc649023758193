// ConsolePeer (broker/console_peer.h), ketch's own inter-broker request for
// the console's cluster-wide pages: not Kafka's, so never in the handler
// registry (ApiVersions answers from it) nor in the API table of Kafka's
// schemas, and its byte layout is the one console_peer.h writes down.
#include <gtest/gtest.h>

#include "broker/console_peer.h"
#include "broker/handlers/handlers.h"
#include "protocol/messages/api_table.h"

namespace ketch::broker {
namespace {

TEST(console_peer, is_neither_served_nor_advertised_as_a_kafka_api) {
    EXPECT_EQ(find_handler(console_peer_request::api_key), nullptr);
    EXPECT_EQ(kafka::find_api(console_peer_request::api_key), nullptr);
    for (auto& h : served_apis()) EXPECT_NE(h.key, console_peer_request::api_key);
}

TEST(console_peer, request_and_response_are_the_documented_bytes) {
    kafka::writer w;
    console_peer_request{.path = "traffic", .query = "after=3", .principal = "User:a"}.encode(w, 0);
    const bytes req = w.take_bytes();
    const bytes want = {0,   7,   't', 'r', 'a', 'f', 'f', 'i', 'c', 0,   7,   'a', 'f',
                        't', 'e', 'r', '=', '3', 0,   6,   'U', 's', 'e', 'r', ':', 'a'};
    EXPECT_EQ(req, want);
    kafka::reader r(req.data(), req.size());
    console_peer_request back;
    back.decode(r, 0);
    EXPECT_EQ(back.path, "traffic");
    EXPECT_EQ(back.query, "after=3");
    EXPECT_EQ(back.principal, "User:a");

    kafka::writer o;
    console_peer_response{.error_code = 31, .status = 403, .body = "{}"}.encode(o, 0);
    const bytes resp = o.take_bytes();
    EXPECT_EQ(resp, (bytes{0, 31, 1, 147, 0, 0, 0, 2, '{', '}'}));
    kafka::reader rr(resp.data(), resp.size());
    console_peer_response got;
    got.decode(rr, 0);
    EXPECT_EQ(got.error_code, 31);
    EXPECT_EQ(got.status, 403);
    EXPECT_EQ(got.body, "{}");
}

TEST(console_peer, v1_adds_the_method_and_the_body_after_the_v0_fields) {
    console_peer_request post{.path = "g", .query = "", .principal = "a", .method = "POST", .body = "{}"};
    kafka::writer w;
    post.encode(w, 1);
    const bytes req = w.take_bytes();
    EXPECT_EQ(req, (bytes{0, 1, 'g', 0, 0, 0, 1, 'a', 0, 4, 'P', 'O', 'S', 'T', 0, 0, 0, 2, '{', '}'}));
    kafka::reader r(req.data(), req.size());
    console_peer_request back;
    back.decode(r, 1);
    EXPECT_EQ(back.method, "POST");
    EXPECT_EQ(back.body, "{}");
    // At v0 the same request is a GET of the page, without its body.
    kafka::writer w0;
    post.encode(w0, 0);
    const bytes v0 = w0.take_bytes();
    kafka::reader r0(v0.data(), v0.size());
    console_peer_request get;
    get.decode(r0, 0);
    EXPECT_EQ(get.method, "GET");
    EXPECT_EQ(get.body, "");
    EXPECT_EQ(v0.size(), 8u);
}

TEST(console_peer, a_body_longer_than_its_frame_does_not_decode) {
    const bytes lying = {0, 1, 'g', 0, 0, 0, 1, 'a', 0, 4, 'P', 'O', 'S', 'T', 0, 16, 0, 0, '{'};
    kafka::reader r(lying.data(), lying.size());
    console_peer_request req;
    EXPECT_THROW(req.decode(r, 1), kafka::decode_error);
}

TEST(console_peer, a_truncated_request_does_not_decode) {
    const bytes cut = {0, 7, 't', 'r'};
    kafka::reader r(cut.data(), cut.size());
    console_peer_request req;
    EXPECT_THROW(req.decode(r, 0), kafka::decode_error);
}

}  // namespace
}  // namespace ketch::broker
