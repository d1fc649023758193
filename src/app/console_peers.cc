#include "app/console_peers.h"

#include "base/error_code.h"
#include "broker/console_peer.h"
#include "console/kafka_client.h"
#include "protocol/messages/api_table.h"

namespace ketch::app {

namespace {

std::string api_name(int16_t key) {
    if (key == broker::console_peer_request::api_key) return "ConsolePeer";
    auto* api = kafka::find_api(key);
    return api ? std::string(api->name) : "API " + std::to_string(key);
}

// f(client) on a connection to `node`'s inter-broker listener; what is not
// reached is a kafka_call_error naming the API, the broker and its address.
template <class F>
auto on_peer(inter_broker_clients& clients, int32_t node, int16_t key, F&& f) {
    auto address = clients.address_of(node);
    if (!address)
        throw console::kafka_call_error(clients.config().listener
                                            ? "broker " + std::to_string(node) + " is not live or has no " +
                                                  *clients.config().listener + " listener"
                                            : "no inter-broker listener (--inter-broker-listener)");
    try {
        return clients.with_client(node, *address, f);
    } catch (const console::kafka_call_error&) {
        throw;
    } catch (const std::exception& e) {
        throw console::kafka_call_error(api_name(key) + " to broker " + std::to_string(node) + " at " + *address +
                                        ": " + e.what());
    }
}

// `req` to `node` over ConsolePeer at `version`, counted in `calls`.
console::peer_brokers::page console_peer(inter_broker_clients& clients, peer_calls_in_flight& calls, int32_t node,
                                         const broker::console_peer_request& req, int16_t version) {
    calls.enter();
    struct leaving {
        peer_calls_in_flight& c;
        ~leaving() { c.leave(); }
    } left{calls};
    const int16_t key = broker::console_peer_request::api_key;
    auto resp = on_peer(clients, node, key, [&](cli::client& c) {
        kafka::writer w;
        req.encode(w, version);
        bytes answer = c.roundtrip(-1, key, version, w.take());
        kafka::reader r(answer.data(), answer.size());
        broker::console_peer_response out;
        out.decode(r, 0);
        return out;
    });
    if (resp.error_code != 0)
        throw console::kafka_call_error("broker " + std::to_string(node) + " refused ConsolePeer: " +
                                        std::string(error_name(error_code(resp.error_code))) +
                                        " (the inter-broker principal needs CLUSTER_ACTION on the cluster)");
    return {resp.status, std::move(resp.body)};
}

}  // namespace

peer_calls_in_flight::~peer_calls_in_flight() {
    std::unique_lock l(mu_);
    none_.wait_for(l, 2 * k_console_peer_timeout + std::chrono::seconds(1), [this] { return calls_ == 0; });
}

void peer_calls_in_flight::enter() {
    std::lock_guard l(mu_);
    ++calls_;
}

void peer_calls_in_flight::leave() {
    std::lock_guard l(mu_);
    if (--calls_ == 0) none_.notify_all();
}

console::peer_brokers console_peers(const cluster::membership& m, inter_broker_clients& clients,
                                    peer_calls_in_flight& calls) {
    console::peer_brokers p;
    p.live = [&m] {
        std::vector<int32_t> out;
        for (auto& b : *m.live()) out.push_back(b.node_id);
        return out;
    };
    p.call = [&clients](int32_t node, int16_t key, int16_t cap,
                        const console::peer_brokers::encoder& encode) -> std::pair<int16_t, bytes> {
        return on_peer(clients, node, key, [&](cli::client& c) {
            const int16_t v = c.version_for(key, cap);
            if (v < 0)
                throw console::kafka_call_error(api_name(key) + " is not served by broker " + std::to_string(node));
            kafka::encoded_message body;
            body.buf = encode(v);
            return std::pair<int16_t, bytes>{v, c.roundtrip(-1, key, v, body)};
        });
    };
    // ConsolePeer is not in ApiVersions: a GET is sent at v0 (which every
    // version of ketch serves), a POST at v1.
    p.page_of = [&clients, &calls](int32_t node, const std::string& path, const std::string& query,
                                   const std::string& principal) {
        return console_peer(clients, calls, node, {.path = path, .query = query, .principal = principal}, 0);
    };
    p.post_to = [&clients, &calls](int32_t node, const std::string& path, const std::string& body,
                                   const std::string& principal) {
        return console_peer(clients, calls, node,
                            {.path = path, .principal = principal, .method = "POST", .body = body}, 1);
    };
    return p;
}

}  // namespace ketch::app
