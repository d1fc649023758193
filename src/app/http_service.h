// Starting one of the broker's optional HTTP services (the console, the
// schema registry): a service that cannot start is logged and left off, and
// the broker runs on without it.
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

#include <spdlog/spdlog.h>

#include "app/options.h"

namespace ketch::app {

// Starts the service `name` at `addr` (host:port): `start(host, port)` binds
// and starts it and returns the port bound. The service's URL (https:// when
// `tls`), logged; or "" when `start` throws, with why logged.
template <class F>
std::string start_http_service(std::string_view name, const std::string& addr, bool tls, F start) {
    try {
        auto [host, port] = split_host_port(addr);
        const uint16_t bound = start(host, port);
        std::string url = (tls ? "https://" : "http://") + host + ":" + std::to_string(bound);
        spdlog::info("{} on {}", name, url);
        return url;
    } catch (const std::exception& e) {
        spdlog::error("{} not started on {}: {}", name, addr, e.what());
        return {};
    }
}

}  // namespace ketch::app
