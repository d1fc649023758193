// Turns a request frame into a handler call: parses the request header,
// checks the API and version against what ketch serves, and answers as Kafka
// answers what it does not serve (UNSUPPORTED_VERSION for ApiVersions,
// otherwise the connection is closed).
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

#include "broker/broker_context.h"
#include "net/request_handler.h"
#include "net/request_metrics.h"

namespace ketch::broker {

class dispatcher final : public net::request_handler {
public:
    explicit dispatcher(broker_context& ctx) : ctx_(ctx) {}
    boost::asio::awaitable<net::handler_result> handle(net::connection_info& conn, shared_bytes frame) override;
    void on_connect(net::connection_info& conn) override;
    void on_disconnect(net::connection_info& conn) override;
    // Requests that reached a handler, per API.
    const net::request_metrics& metrics() const { return metrics_; }
    // Open connections by client software (KIP-511 name and version, as
    // ApiVersions v3+ told them): "name version" -> connections.
    // `keep` (if set) picks the connections by their principal (the
    // console's view of a tenant: docs/console.md "Tenants").
    std::map<std::string, int64_t> client_software(
        const std::function<bool(const std::string& principal)>& keep = {}) const;

private:
    void after_answer(net::connection_info& conn, int16_t key);

    broker_context& ctx_;
    net::request_metrics metrics_;
    mutable std::mutex software_mu_;
    struct software_of {
        std::string software;   // "name version"
        std::string principal;  // as of the connection's login
    };
    std::unordered_map<uint64_t, software_of> software_;  // by connection id
};

}  // namespace ketch::broker
