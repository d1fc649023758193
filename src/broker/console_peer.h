// Cluster mode: ConsolePeer, the one request ketch's brokers send each other
// that is not Kafka's (docs/design/console.md "Cluster-wide traffic and
// clients"): a broker's console asks another broker's console for one of its
// local pages (the traffic inspector's listing, its connection events, one
// exchange; the telemetry clients; the transactional ids and groups it
// coordinates), or has it make the one change a page makes (a tenant's
// user's offset reset of a group it coordinates), as the logged-in
// principal, over the inter-broker listener (app/console_peers.h).
//
// Private: its key is outside Kafka's numbering, it is never listed in
// ApiVersions, and it is refused (CLUSTER_AUTHORIZATION_FAILED) unless the
// connection's principal may CLUSTER_ACTION on the cluster (Kafka's rule for
// its broker-to-broker APIs: LeaderAndIsr, WriteTxnMarkers, ...) and belongs
// to no tenant. It is not recorded by the traffic inspector (a console
// watching would otherwise fill the others' rings with its own polls).
//
// v0 and v1, request header v1, response header v0, big-endian, Kafka's
// non-flexible primitives:
//   request:  path STRING   ("traffic", "traffic/connections", "traffic/{seq}",
//                            "traffic/{seq}/records", "clients", "clients/{id}",
//                            "transactions", "transactions/{id}", "groups",
//                            "groups/{group}"; a name percent-encoded)
//             query STRING  (the page's query string, percent-encoded)
//             principal STRING (whom the page is for: its in-process Kafka
//                            calls act as it, its tenant view is its)
//             v1 only:
//             method STRING ("GET", or "POST" for the one change a page
//                            makes: "groups/{group}/offsets", the reset of
//                            a group this broker coordinates)
//             body BYTES    (the POST's JSON; at most k_console_peer_max_body,
//                            else the answer is 413)
// v0 is a GET with no body; a GET is sent at v0, so a broker that serves v0
// only still answers the pages, and refuses (closes) a v1 POST.
//   response: error_code INT16 (0, or 31 CLUSTER_AUTHORIZATION_FAILED)
//             status INT16  (the page's HTTP status)
//             body BYTES    (the page's JSON)
#pragma once

#include <boost/asio/awaitable.hpp>

#include "broker/broker_context.h"
#include "net/request_handler.h"
#include "protocol/wire.h"

namespace ketch::broker {

// The most bytes of a POST body ConsolePeer carries (the console's own bound
// on an HTTP request body).
inline constexpr size_t k_console_peer_max_body = size_t(1) << 20;

struct console_peer_request {
    static constexpr int16_t api_key = 10000;  // ketch-internal: Kafka's keys are 0-92
    static constexpr int16_t max_version = 1;
    std::string path, query, principal;
    std::string method = "GET", body;  // v1
    void encode(kafka::writer& w, int16_t version) const;
    void decode(kafka::reader& r, int16_t version);
};

struct console_peer_response {
    int16_t error_code = 0;
    int16_t status = 200;
    std::string body;
    void encode(kafka::writer& w, int16_t version) const;
    void decode(kafka::reader& r, int16_t version);
};

// The dispatcher's path for a frame whose key is console_peer_request::api_key.
boost::asio::awaitable<net::handler_result> answer_console_peer(broker_context& b, net::connection_info& conn,
                                                                const shared_bytes& frame);

}  // namespace ketch::broker
