// One client connection: reads size-prefixed frames, hands each to the
// request handler, writes the responses back in request order.
//
// Kafka handles a connection's requests one at a time (the channel is muted
// while a request is in flight); so does this. A frame larger than
// max_request_bytes, a negative size, or a handler's "close" ends only this
// connection.
#pragma once

#include <memory>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "net/request_handler.h"
#include "net/server_options.h"

namespace ketch::net {

class connection_registry;

boost::asio::awaitable<void> run_connection(boost::asio::ip::tcp::socket socket, request_handler& handler,
                                            const server_options& opts, connection_info info);

// Writes a response frame (size prefix + message), sending file chunks with
// sendfile(2) when the socket allows it.
boost::asio::awaitable<void> write_frame(boost::asio::ip::tcp::socket& socket, const kafka::encoded_message& msg);

}  // namespace ketch::net
