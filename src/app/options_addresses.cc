// host:port parsing for the options (--listen, the HTTP services' addresses).
#include "app/options.h"

#include <stdexcept>
#include <string>

namespace ketch::app {

std::pair<std::string, uint16_t> split_host_port(const std::string& s) {
    auto colon = s.rfind(':');
    if (colon == std::string::npos) throw std::invalid_argument("expected host:port, got '" + s + "'");
    std::string host = s.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    int port = std::stoi(s.substr(colon + 1));
    if (port < 0 || port > 65535) throw std::invalid_argument("port out of range in '" + s + "'");
    return {host, uint16_t(port)};
}

std::string http_address_or_default(const std::string& given, const options& o, uint16_t default_port) {
    if (!given.empty()) return given;
    const bool free_kafka_port = split_host_port(o.listen).second == 0;
    return "127.0.0.1:" + std::to_string(free_kafka_port ? 0 : default_port);
}

}  // namespace ketch::app
