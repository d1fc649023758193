#include "cli/connection.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <cerrno>
#include <cstring>

#include "base/endian.h"

namespace ketch::cli {

namespace {
std::string ssl_error_text() {
    unsigned long e = ERR_get_error();
    if (e == 0) return "TLS failure";
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    return buf;
}
}  // namespace

std::pair<std::string, uint16_t> split_host_port(const std::string& address) {
    std::string host, port;
    if (!address.empty() && address[0] == '[') {
        auto close = address.find(']');
        if (close == std::string::npos || close + 1 >= address.size() || address[close + 1] != ':')
            throw std::invalid_argument("expected host:port, got '" + address + "'");
        host = address.substr(1, close - 1);
        port = address.substr(close + 2);
    } else {
        auto colon = address.rfind(':');
        if (colon == std::string::npos || colon == 0)
            throw std::invalid_argument("expected host:port, got '" + address + "'");
        host = address.substr(0, colon);
        port = address.substr(colon + 1);
    }
    if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
        throw std::invalid_argument("bad port in '" + address + "'");
    int p = std::stoi(port);
    if (p <= 0 || p > 65535) throw std::invalid_argument("bad port in '" + address + "'");
    return {host, uint16_t(p)};
}

connection::connection(const std::string& address, const tls_settings& tls, std::chrono::milliseconds timeout)
    : address_(address) {
    auto [host, port] = split_host_port(address);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
    if (rc != 0) throw network_error("cannot resolve " + address + ": " + gai_strerror(rc));
    std::string last = "no address";
    for (addrinfo* ai = res; ai && fd_ < 0; ai = ai->ai_next) {
        int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
        if (fd < 0) continue;
        int r = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
        if (r < 0 && errno == EINPROGRESS) {
            pollfd pf{fd, POLLOUT, 0};
            int n = ::poll(&pf, 1, int(timeout.count()));
            int err = 0;
            socklen_t len = sizeof err;
            if (n == 1) ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
            if (n == 1 && err == 0)
                r = 0;
            else
                errno = n == 0 ? ETIMEDOUT : err;
        }
        if (r == 0) {
            fd_ = fd;
            break;
        }
        last = std::strerror(errno);
        ::close(fd);
    }
    ::freeaddrinfo(res);
    if (fd_ < 0) throw network_error("cannot connect to " + address + ": " + last);
    // Back to blocking with timeouts.
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
    set_timeout(timeout);
    if (!tls.enabled) return;

    auto* ctx = SSL_CTX_new(TLS_client_method());
    ssl_ctx_ = ctx;
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    if (!tls.ca_location.empty()) {
        if (SSL_CTX_load_verify_locations(ctx, tls.ca_location.c_str(), nullptr) != 1)
            throw network_error("cannot read ssl.ca.location " + tls.ca_location + ": " + ssl_error_text());
    } else {
        SSL_CTX_set_default_verify_paths(ctx);
    }
    if (!tls.certificate_location.empty()) {
        if (SSL_CTX_use_certificate_chain_file(ctx, tls.certificate_location.c_str()) != 1)
            throw network_error("cannot read ssl.certificate.location: " + ssl_error_text());
        if (SSL_CTX_use_PrivateKey_file(
                ctx, (tls.key_location.empty() ? tls.certificate_location : tls.key_location).c_str(),
                SSL_FILETYPE_PEM) != 1)
            throw network_error("cannot read ssl.key.location: " + ssl_error_text());
    }
    auto* ssl = SSL_new(ctx);
    ssl_ = ssl;
    SSL_set_fd(ssl, fd_);
    SSL_set_tlsext_host_name(ssl, host.c_str());
    if (tls.verify_hostname) {
        X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
        in6_addr a6;
        in_addr a4;
        if (inet_pton(AF_INET, host.c_str(), &a4) == 1 || inet_pton(AF_INET6, host.c_str(), &a6) == 1)
            X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str());
        else
            X509_VERIFY_PARAM_set1_host(param, host.c_str(), 0);
    }
    if (SSL_connect(ssl) != 1) {
        long v = SSL_get_verify_result(ssl);
        std::string why = v != X509_V_OK ? X509_verify_cert_error_string(v) : ssl_error_text();
        throw network_error("TLS handshake with " + address + " failed: " + why);
    }
}

connection::~connection() {
    if (ssl_) {
        SSL_shutdown(static_cast<SSL*>(ssl_));
        SSL_free(static_cast<SSL*>(ssl_));
    }
    if (ssl_ctx_) SSL_CTX_free(static_cast<SSL_CTX*>(ssl_ctx_));
    if (fd_ >= 0) ::close(fd_);
}

void connection::set_timeout(std::chrono::milliseconds t) {
    timeval tv{};
    tv.tv_sec = t.count() / 1000;
    tv.tv_usec = (t.count() % 1000) * 1000;
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

void connection::write_all(const uint8_t* p, size_t n) {
    size_t done = 0;
    while (done < n) {
        ssize_t w;
        if (ssl_) {
            w = SSL_write(static_cast<SSL*>(ssl_), p + done, int(n - done));
            if (w <= 0) throw network_error("connection to " + address_ + " lost while sending");
        } else {
            w = ::send(fd_, p + done, n - done, MSG_NOSIGNAL);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0)
                throw network_error("connection to " + address_ + " lost while sending: " + std::strerror(errno));
        }
        done += size_t(w);
    }
}

void connection::read_all(uint8_t* p, size_t n) {
    size_t done = 0;
    while (done < n) {
        ssize_t r;
        if (ssl_) {
            r = SSL_read(static_cast<SSL*>(ssl_), p + done, int(n - done));
            if (r <= 0) {
                if (errno == EAGAIN || errno == EWOULDBLOCK) throw network_error("timed out waiting for " + address_);
                throw network_error("connection to " + address_ + " closed");
            }
        } else {
            r = ::recv(fd_, p + done, n - done, 0);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                throw network_error("timed out waiting for " + address_);
            if (r <= 0) throw network_error("connection to " + address_ + " closed by the broker");
        }
        done += size_t(r);
    }
}

void connection::send_frame(byte_view body) {
    uint8_t size[4];
    store_be<int32_t>(size, int32_t(body.size()));
    bytes frame;
    frame.reserve(4 + body.size());
    frame.insert(frame.end(), size, size + 4);
    frame.insert(frame.end(), body.begin(), body.end());
    write_all(frame.data(), frame.size());
}

bytes connection::read_frame() {
    uint8_t size[4];
    read_all(size, 4);
    int32_t n = load_be<int32_t>(size);
    if (n < 0 || n > (512 << 20))
        throw network_error("bad response frame size " + std::to_string(n) + " from " + address_);
    bytes out(static_cast<size_t>(n));
    read_all(out.data(), out.size());
    return out;
}

}  // namespace ketch::cli
