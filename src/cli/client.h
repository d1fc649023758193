// The CLI's Kafka client: blocking; one request at a time per broker, or a
// pipeline of requests whose answers are taken in order (send + receive).
//
// Connects to a bootstrap server, authenticates (SASL PLAIN, SCRAM-SHA-256/512
// over SaslHandshake v1 + SaslAuthenticate), learns the broker's versions with
// ApiVersions and sends every request at the newest version both sides know
// (capped per call where a newer version changes the shape, e.g. Fetch v13+
// names topics by id). Other brokers are reached through Metadata's addresses;
// group and transaction coordinators through FindCoordinator.
#pragma once

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "base/error_code.h"
#include "cli/config.h"
#include "cli/connection.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/metadata.h"
#include "protocol/wire.h"

namespace ketch::cli {

// A Kafka error code answered by the broker, with what it was about.
struct kafka_error : std::runtime_error {
    kafka_error(int16_t code, std::string what, std::string broker_message = {});
    int16_t code;
    std::string broker_message;
};

// The broker does not serve an API the command needs.
struct unsupported_api : std::runtime_error {
    explicit unsupported_api(std::string_view name);
};

// Kafka's name for a code ("UNKNOWN_TOPIC_OR_PARTITION"), or "ERROR_<n>".
std::string error_name_of(int16_t code);
// What a user can do about the code (empty when there is nothing to add).
std::string error_hint(int16_t code);
// Throws kafka_error when code != 0.
void check(int16_t code, const std::string& what, const std::optional<std::string>& message = std::nullopt);

// Kafka's coordinator key types (FindCoordinator).
enum class coordinator_type : int8_t { group = 0, transaction = 1 };

class client {
public:
    explicit client(client_config cfg);
    ~client();

    const client_config& config() const { return cfg_; }

    // Sends `req` to `node` (-1: any bootstrap broker) and returns the answer.
    // `cap` limits the version (the CLI fills fields of versions up to it).
    template <class Resp, class Req>
    Resp call(const Req& req, int node = -1, int16_t cap = Req::max_version) {
        int16_t v = version_for(Req::api_key, cap, node);
        if (v < 0) throw unsupported_api(Req::message_name);
        kafka::writer w;
        req.encode(w, v);
        bytes frame = roundtrip(node, Req::api_key, v, w.take());
        kafka::reader r(frame.data(), frame.size());
        Resp resp;
        resp.decode(r, v);
        return resp;
    }

    // Sends `req` without waiting for an answer (Produce with acks=0).
    template <class Req>
    void send_only(const Req& req, int node, int16_t cap = Req::max_version) {
        send(req, node, cap);
    }

    // A request sent by send() whose answer receive() takes. Answers on one
    // connection come in the order of the requests (Kafka's guarantee), so a
    // caller keeps its in-flight requests per node in a queue.
    struct in_flight {
        int node;
        int16_t api_key;
        int16_t version;
        int32_t correlation_id;
    };
    template <class Req>
    in_flight send(const Req& req, int node, int16_t cap = Req::max_version) {
        int16_t v = version_for(Req::api_key, cap, node);
        if (v < 0) throw unsupported_api(Req::message_name);
        kafka::writer w;
        req.encode(w, v);
        return {node, Req::api_key, v, send_request(node, Req::api_key, v, w.take())};
    }
    // The answer to `f`, which must be the oldest unanswered request on its node.
    template <class Resp>
    Resp receive(const in_flight& f) {
        bytes frame = receive_body(conn(f.node), f.api_key, f.version, f.correlation_id);
        kafka::reader r(frame.data(), frame.size());
        Resp resp;
        resp.decode(r, f.version);
        return resp;
    }

    // The version call() would use for `key` on `node` (-1 if unsupported).
    int16_t version_for(int16_t key, int16_t our_max, int node = -1);

    // Metadata for `topics` (nullopt: all topics).
    kafka::metadata_response metadata(const std::optional<std::vector<std::string>>& topics,
                                      bool allow_auto_create = false);
    // The coordinator node of `key`; learns its address.
    int coordinator(const std::string& key, coordinator_type type);
    // Runs `f` again while it throws COORDINATOR_LOAD_IN_PROGRESS,
    // COORDINATOR_NOT_AVAILABLE (e.g. while Kafka creates __consumer_offsets
    // on first use) or NOT_COORDINATOR, backing off, until the request
    // timeout, as the Java client retries them.
    template <class F>
    auto while_coordinator_loads(F f) {
        auto deadline = std::chrono::steady_clock::now() + cfg_.timeout;
        for (auto backoff = std::chrono::milliseconds(50);;
             backoff = std::min(backoff * 2, std::chrono::milliseconds(1000))) {
            try {
                return f();
            } catch (const kafka_error& e) {
                if ((e.code != 14 && e.code != 15 && e.code != 16) ||
                    std::chrono::steady_clock::now() + backoff > deadline)
                    throw;
            }
            std::this_thread::sleep_for(backoff);
        }
    }
    // Leader of every partition of `topic` (partition -> node); throws for an
    // unknown topic. With several brokers, waits (bounded) until every broker
    // knows a topic some broker knows (client_leaders.cc).
    std::map<int32_t, int32_t> leaders(const std::string& topic);

    // The frame-level exchange, for call().
    bytes roundtrip(int node, int16_t key, int16_t version, const kafka::encoded_message& body);
    int32_t send_request(int node, int16_t key, int16_t version, const kafka::encoded_message& body);

private:
    struct broker_conn;
    broker_conn& conn(int node);
    void handshake(broker_conn& c);
    // One request on `c`: its header and body sent; the answer's body (after
    // the response header, whose correlation id is checked) returned.
    int32_t send_on(broker_conn& c, int16_t key, int16_t version, const kafka::encoded_message& body);
    bytes exchange(broker_conn& c, int16_t key, int16_t version, const kafka::encoded_message& body);
    // Reads the next answer on `c`, checks it answers `id`, returns its body.
    bytes receive_body(broker_conn& c, int16_t key, int16_t version, int32_t id);
    void authenticate(broker_conn& c);
    int find_coordinator(const std::string& key, coordinator_type type);
    void learn_brokers(const kafka::metadata_response& m);
    // The topic's leaders as `node` (-1: any bootstrap broker) answers; empty when
    // it answers UNKNOWN_TOPIC_OR_PARTITION; throws for any other error.
    std::map<int32_t, int32_t> leaders_on(const std::string& topic, int node);

    client_config cfg_;
    std::map<int, std::unique_ptr<broker_conn>> conns_;
    std::map<int, std::string> addresses_;  // node id -> host:port
    int32_t correlation_ = 0;
};

}  // namespace ketch::cli
