// The writes of a connection's answers (net/connection.cc), for a plain
// socket and a TLS stream: the size prefix, the answer's bytes and the file
// chunks it carries (sendfile on a plain socket; read and sent in TLS records
// on TLS), in as few system calls as the answer's shape allows.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "net/page_in.h"
#include "net/tls_socket.h"
#include "protocol/wire.h"

namespace ketch::net::stream_writes {

// Writes a response frame: its size prefix, then the message. `pages`: where
// cold file chunks are paged in first (null: read on the reactor).
boost::asio::awaitable<void> write_message(boost::asio::ip::tcp::socket& s, const kafka::encoded_message& msg,
                                           page_in_pool* pages);
boost::asio::awaitable<void> write_message(tls_socket& s, const kafka::encoded_message& msg, page_in_pool* pages);

}  // namespace ketch::net::stream_writes
