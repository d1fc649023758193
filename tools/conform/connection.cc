#include "connection.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "base/endian.h"

namespace ketch::conform {

std::pair<std::string, uint16_t> split_address(const std::string& address) {
    auto colon = address.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == address.size())
        throw std::invalid_argument("expected host:port, got '" + address + "'");
    int port = std::stoi(address.substr(colon + 1));
    if (port <= 0 || port > 65535) throw std::invalid_argument("bad port in '" + address + "'");
    return {address.substr(0, colon), uint16_t(port)};
}

connection& connection::operator=(connection&& o) noexcept {
    if (this != &o) {
        close();
        fd_ = o.fd_;
        o.fd_ = -1;
    }
    return *this;
}

connection connection::open(const std::string& address, std::chrono::milliseconds timeout) {
    auto [host, port] = split_address(address);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
    if (rc != 0) throw std::runtime_error("resolve " + address + ": " + gai_strerror(rc));
    connection c;
    std::string last = "no address";
    for (addrinfo* ai = res; ai; ai = ai->ai_next) {
        int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) continue;
        if (::connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
            c.fd_ = fd;
            break;
        }
        last = std::strerror(errno);
        ::close(fd);
    }
    ::freeaddrinfo(res);
    if (c.fd_ < 0) throw std::runtime_error("connect " + address + ": " + last);
    int one = 1;
    ::setsockopt(c.fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    timeval tv{};
    tv.tv_sec = timeout.count() / 1000;
    tv.tv_usec = (timeout.count() % 1000) * 1000;
    ::setsockopt(c.fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(c.fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    return c;
}

bool connection::send(byte_view data) {
    size_t done = 0;
    while (done < data.size()) {
        ssize_t n = ::send(fd_, data.data() + done, data.size() - done, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += size_t(n);
    }
    return true;
}

bool connection::read_exact(uint8_t* p, size_t n, read_status& why) {
    size_t done = 0;
    while (done < n) {
        ssize_t r = ::recv(fd_, p + done, n - done, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            why = read_status::timeout;
            return false;
        }
        if (r <= 0) {
            why = read_status::closed;
            return false;
        }
        done += size_t(r);
    }
    return true;
}

connection::read_status connection::read_frame(bytes& out) {
    read_status why = read_status::frame;
    uint8_t size_buf[4];
    if (!read_exact(size_buf, 4, why)) return why;
    int32_t size = load_be<int32_t>(size_buf);
    if (size < 0 || size > (256 << 20)) throw std::runtime_error("response frame size " + std::to_string(size));
    out.resize(size_t(size));
    if (!read_exact(out.data(), out.size(), why)) return why;
    return read_status::frame;
}

void connection::close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

}  // namespace ketch::conform
