#include "net/stream_writes.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <memory>
#include <system_error>
#include <vector>

#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "base/endian.h"

namespace ketch::net::stream_writes {

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

asio::awaitable<void> send_chunk(tcp::socket& socket, const kafka::file_chunk& c) {
    off_t off = c.position;
    size_t left = c.length;
    while (left > 0) {
        ssize_t n = ::sendfile(socket.native_handle(), c.fd, &off, left);
        if (n > 0) {
            left -= size_t(n);
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            co_await socket.async_wait(tcp::socket::wait_write, asio::use_awaitable);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            throw std::system_error(n == 0 ? EIO : errno, std::generic_category(), "sendfile");
        }
    }
}

// A stream without sendfile (TLS): file chunks are read and written as bytes,
// 256 KiB at a time (a large answer is never held in memory whole).
asio::awaitable<void> send_chunk(tls_socket& stream, const kafka::file_chunk& c) {
    std::vector<uint8_t> buf(std::min<size_t>(c.length, 256 * 1024));
    size_t done = 0;
    while (done < c.length) {
        size_t want = std::min(buf.size(), c.length - done);
        ssize_t n = ::pread(c.fd, buf.data(), want, off_t(c.position + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw std::system_error(n == 0 ? EIO : errno, std::generic_category(), "pread");
        co_await stream.write(asio::buffer(buf.data(), size_t(n)));
        done += size_t(n);
    }
}

// All of a buffer sequence, on either kind of connection.
template <class Buffers>
asio::awaitable<void> write_all(tcp::socket& s, const Buffers& parts) {
    co_await asio::async_write(s, parts, asio::use_awaitable);
}
template <class Buffers>
asio::awaitable<void> write_all(tls_socket& s, const Buffers& parts) {
    co_await s.write(parts);
}

// TCP_CORK on a plain socket while a response with file chunks is written:
// the size prefix, the bytes between the chunks and the chunks' sendfile
// output leave as full segments instead of one small segment per piece
// (TCP_NODELAY sends each write at once). Uncorking sends what is left.
// A TLS stream writes records of its own: no cork.
template <class Stream>
struct cork {
    explicit cork(Stream&) {}
};
template <>
struct cork<tcp::socket> {
    explicit cork(tcp::socket& s) : fd(s.native_handle()) { set(1); }
    ~cork() { set(0); }
    void set(int on) const { ::setsockopt(fd, IPPROTO_TCP, TCP_CORK, &on, sizeof on); }
    int fd;
};

// Reads a file chunk whole into `to` (a short read means the file shrank
// under the response: the connection ends, as a failed sendfile ends it).
void read_chunk(const kafka::file_chunk& c, uint8_t* to) {
    size_t done = 0;
    while (done < c.length) {
        ssize_t n = ::pread(c.fd, to + done, c.length - done, off_t(c.position + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw std::system_error(n == 0 ? EIO : errno, std::generic_category(), "pread");
        done += size_t(n);
    }
}

// File chunks adding up to at most this many bytes are read into memory and
// the response goes out in one write: for the few KiB a tailing consumer gets,
// that is fewer system calls than corking, a sendfile per chunk and uncorking.
constexpr size_t k_copy_chunks_up_to = 64 * 1024;

template <class Stream>
asio::awaitable<void> write_any(Stream& s, const kafka::encoded_message& msg, page_in_pool* pages) {
    uint8_t size_prefix[4];
    store_be<int32_t>(size_prefix, int32_t(msg.size()));
    const uint8_t* p = msg.buf.data();
    if (msg.splices.empty()) {
        std::array<asio::const_buffer, 2> bufs{asio::buffer(size_prefix, 4), asio::buffer(msg.buf)};
        co_await write_all(s, bufs);
        co_return;
    }
    if (size_t file_bytes = msg.size() - msg.buf.size(); file_bytes <= k_copy_chunks_up_to) {
        auto staged = std::make_unique_for_overwrite<uint8_t[]>(file_bytes);  // every byte is read into
        std::vector<asio::const_buffer> bufs;
        bufs.reserve(2 * msg.splices.size() + 2);
        bufs.push_back(asio::buffer(size_prefix, 4));
        size_t at = 0, used = 0;
        for (auto& [pos, chunk] : msg.splices) {
            bufs.push_back(asio::buffer(p + at, pos - at));
            read_chunk(chunk, staged.get() + used);
            bufs.push_back(asio::buffer(staged.get() + used, chunk.length));
            used += chunk.length;
            at = pos;
        }
        bufs.push_back(asio::buffer(p + at, msg.buf.size() - at));
        co_await write_all(s, bufs);
        co_return;
    }
    if (pages) co_await pages->ensure_resident(msg.splices);  // page_in.h: cold chunks off the reactor
    cork<Stream> corked(s);
    size_t at = 0;
    size_t prefix = 4;  // sent with the first bytes
    for (auto& [pos, chunk] : msg.splices) {
        std::array<asio::const_buffer, 2> bufs{asio::buffer(size_prefix, prefix), asio::buffer(p + at, pos - at)};
        if (prefix + pos - at > 0) co_await write_all(s, bufs);
        prefix = 0;
        at = pos;
        co_await send_chunk(s, chunk);
    }
    if (at < msg.buf.size()) co_await write_all(s, asio::buffer(p + at, msg.buf.size() - at));
}

}  // namespace

asio::awaitable<void> write_message(tcp::socket& s, const kafka::encoded_message& msg, page_in_pool* pages) {
    co_await write_any(s, msg, pages);
}

asio::awaitable<void> write_message(tls_socket& s, const kafka::encoded_message& msg, page_in_pool* pages) {
    co_await write_any(s, msg, pages);
}

}  // namespace ketch::net::stream_writes
