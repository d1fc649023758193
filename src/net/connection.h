// One client connection: reads size-prefixed frames, hands each to the
// request handler, writes the responses back in request order.
//
// Kafka handles a connection's requests one at a time (the channel is muted
// while a request is in flight); so does this, with one exception: a Produce
// whose records are appended and only wait for their fsync lets the next
// request be read (release_pipeline), and the answers still go
// out in request order. A frame larger than the cap
// (max_request_bytes; sasl_max_receive_bytes before authentication), a
// negative size, or a handler's "close" ends only this connection. A
// watchdog closes the connection when it is idle longer than
// idle_timeout_ms, or not authenticated (TLS handshake + SASL) within
// auth_timeout_ms.
#pragma once

#include <functional>
#include <memory>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>

#include "net/page_in.h"
#include "net/request_handler.h"
#include "net/server_options.h"

namespace ketch::net {

// Serves a plaintext connection (PLAINTEXT, SASL_PLAINTEXT) on the socket's
// reactor; `on_end` is called there once it has ended. Between requests the
// connection is parked: no coroutine waits, its socket's readiness wakes it.
// `pages`: where cold file chunks of answers are paged in (null: on the reactor).
void start_connection(boost::asio::ip::tcp::socket socket, request_handler& handler, const server_options& opts,
                      connection_info info, page_in_pool* pages, std::function<void()> on_end);
// Serves a TLS connection (SSL, SASL_SSL) the same way: handshake first; on
// an SSL listener a client certificate's subject becomes the principal.
void start_tls_connection(boost::asio::ip::tcp::socket socket, boost::asio::ssl::context& tls, request_handler& handler,
                          const server_options& opts, connection_info info, page_in_pool* pages,
                          std::function<void()> on_end);
// The same, ending when the connection has ended.
boost::asio::awaitable<void> run_connection(boost::asio::ip::tcp::socket socket, request_handler& handler,
                                            const server_options& opts, connection_info info,
                                            page_in_pool* pages = nullptr);
boost::asio::awaitable<void> run_tls_connection(boost::asio::ip::tcp::socket socket, boost::asio::ssl::context& tls,
                                                request_handler& handler, const server_options& opts,
                                                connection_info info, page_in_pool* pages = nullptr);

// Writes a response frame (size prefix + message), sending file chunks with
// sendfile(2) when the socket allows it.
boost::asio::awaitable<void> write_frame(boost::asio::ip::tcp::socket& socket, const kafka::encoded_message& msg);

}  // namespace ketch::net
