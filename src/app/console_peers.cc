#include "app/console_peers.h"

#include "console/kafka_client.h"
#include "protocol/messages/api_table.h"

namespace ketch::app {

namespace {

std::string api_name(int16_t key) {
    auto* api = kafka::find_api(key);
    return api ? std::string(api->name) : "API " + std::to_string(key);
}

}  // namespace

console::peer_brokers console_peers(const cluster::membership& m, inter_broker_clients& clients) {
    console::peer_brokers p;
    p.live = [&m] {
        std::vector<int32_t> out;
        for (auto& b : *m.live()) out.push_back(b.node_id);
        return out;
    };
    p.call = [&clients](int32_t node, int16_t key, int16_t cap,
                        const console::peer_brokers::encoder& encode) -> std::pair<int16_t, bytes> {
        auto address = clients.address_of(node);
        if (!address)
            throw console::kafka_call_error(clients.config().listener
                                                ? "broker " + std::to_string(node) + " is not live or has no " +
                                                      *clients.config().listener + " listener"
                                                : "no inter-broker listener (--inter-broker-listener)");
        try {
            return clients.with_client(node, *address, [&](cli::client& c) {
                const int16_t v = c.version_for(key, cap);
                if (v < 0)
                    throw console::kafka_call_error(api_name(key) + " is not served by broker " + std::to_string(node));
                kafka::encoded_message body;
                body.buf = encode(v);
                return std::pair<int16_t, bytes>{v, c.roundtrip(-1, key, v, body)};
            });
        } catch (const console::kafka_call_error&) {
            throw;
        } catch (const std::exception& e) {
            throw console::kafka_call_error(api_name(key) + " to broker " + std::to_string(node) + " at " + *address +
                                            ": " + e.what());
        }
    };
    return p;
}

}  // namespace ketch::app
