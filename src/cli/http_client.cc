#include "cli/http_client.h"

#include <netdb.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <stdexcept>

#include "cli/command.h"
#include "cli/connection.h"
#include "security/crypto.h"

namespace ketch::cli {

namespace {

constexpr int k_timeout_s = 30;
constexpr size_t k_max_reply = 16 * 1024 * 1024;

struct fd_closer {
    int fd;
    ~fd_closer() {
        if (fd >= 0) ::close(fd);
    }
};

std::pair<std::string, std::string> host_port(const std::string& base) {
    const std::string scheme = "http://";
    if (base.rfind(scheme, 0) != 0) throw usage_error("the console URL must start with http:// ('" + base + "')");
    std::string rest = base.substr(scheme.size());
    while (!rest.empty() && rest.back() == '/') rest.pop_back();
    if (rest.find('/') != std::string::npos) throw usage_error("the console URL takes no path ('" + base + "')");
    auto colon = rest.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == rest.size())
        throw usage_error("the console URL must name host:port ('" + base + "')");
    std::string host = rest.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    return {host, rest.substr(colon + 1)};
}

int connect_to(const std::string& host, const std::string& port) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &res); rc != 0)
        throw network_error("cannot resolve " + host + ": " + ::gai_strerror(rc));
    std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> guard(res, ::freeaddrinfo);
    for (auto* a = res; a; a = a->ai_next) {
        int fd = ::socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (fd < 0) continue;
        timeval tv{k_timeout_s, 0};
        ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) return fd;
        ::close(fd);
    }
    throw network_error("cannot connect to the console at " + host + ":" + port +
                        " (is the broker running with --faults? --console-url)");
}

http_reply parse_response(const std::string& raw) {
    auto end = raw.find("\r\n\r\n");
    if (raw.rfind("HTTP/1.", 0) != 0 || end == std::string::npos || raw.size() < 12)
        throw network_error("the console answered no HTTP");
    http_reply r;
    r.status = std::atoi(raw.c_str() + 9);
    r.body = raw.substr(end + 4);
    return r;
}

}  // namespace

http_reply http_call(const std::string& base, const std::string& method, const std::string& path,
                     const std::string& json_body, const std::string& basic_auth) {
    auto [host, port] = host_port(base);
    fd_closer sock{connect_to(host, port)};
    std::string req = method + " " + path + " HTTP/1.1\r\nHost: " + host + ":" + port +
                      "\r\nConnection: close\r\nAccept: application/json\r\n";
    if (!basic_auth.empty()) req += "Authorization: Basic " + security::base64_encode(basic_auth) + "\r\n";
    if (!json_body.empty() || method == "POST" || method == "PUT")
        req += "Content-Type: application/json\r\nContent-Length: " + std::to_string(json_body.size()) + "\r\n";
    req += "\r\n" + json_body;
    for (size_t sent = 0; sent < req.size();) {
        ssize_t n = ::send(sock.fd, req.data() + sent, req.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) throw network_error(std::string("sending to the console: ") + std::strerror(errno));
        sent += size_t(n);
    }
    std::string raw;
    char buf[16384];
    for (;;) {
        ssize_t n = ::recv(sock.fd, buf, sizeof buf, 0);
        if (n == 0) break;
        if (n < 0) throw network_error(std::string("reading from the console: ") + std::strerror(errno));
        raw.append(buf, size_t(n));
        if (raw.size() > k_max_reply) throw network_error("the console's answer is over 16 MiB");
    }
    return parse_response(raw);
}

nlohmann::json console_call(const std::string& base, const std::string& method, const std::string& path,
                            const std::string& json_body, const std::string& basic_auth) {
    auto r = http_call(base, method, path, json_body, basic_auth);
    auto j = nlohmann::json::parse(r.body, nullptr, false);
    if (r.status >= 400) {
        std::string msg = !j.is_discarded() && j.contains("message") ? j["message"].get<std::string>() : r.body;
        throw std::runtime_error("the console answered " + std::to_string(r.status) + ": " + msg);
    }
    if (j.is_discarded()) throw std::runtime_error("the console answered no JSON");
    return j;
}

}  // namespace ketch::cli
