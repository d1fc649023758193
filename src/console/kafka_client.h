// The console's way to the broker: a Kafka request built with the generated
// codec, handed to the broker's own dispatcher in-process (no socket), and its
// response decoded. So the console sees exactly what a client sees — the same
// handlers, authorization (as the console's logged-in principal), quotas and
// locks — and a console read takes no lock a produce does not also take
// through the same path.
//
// call() blocks the calling (HTTP server) thread until the answer or the
// timeout; the request runs on a broker reactor.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <boost/asio/io_context.hpp>

#include "base/bytes.h"
#include "net/request_handler.h"
#include "protocol/messages/api_table.h"
#include "protocol/wire.h"

namespace ketch::console {

// A request the broker did not answer (closed the "connection", timed out).
struct kafka_call_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class kafka_client {
public:
    // `max_version(key)`: the newest version the broker serves of an API (-1: none).
    kafka_client(net::request_handler& handler, boost::asio::io_context& reactor,
                 std::function<int16_t(int16_t)> max_version);

    // Sends `body` (encoded at `version`) as `principal`; returns the
    // response body (after the response header), flattened.
    bytes call_raw(int16_t key, int16_t version, const bytes& body, const std::string& principal,
                   std::chrono::milliseconds timeout);

    template <class Req, class Resp>
    Resp call(const Req& req, const std::string& principal,
              std::chrono::milliseconds timeout = std::chrono::seconds(30), int16_t version_cap = INT16_MAX) {
        int16_t v = std::min<int16_t>(std::min<int16_t>(Req::max_version, version_cap), max_version_(Req::api_key));
        if (v < Req::min_version) throw kafka_call_error(std::string(Req::message_name) + " is not served");
        kafka::writer w;
        req.encode(w, v);
        bytes out = call_raw(Req::api_key, v, w.take_bytes(), principal, timeout);
        kafka::reader r(out.data(), out.size());
        Resp resp;
        resp.decode(r, v);
        return resp;
    }

    int16_t version_of(int16_t key) const { return max_version_(key); }

private:
    net::request_handler& handler_;
    boost::asio::io_context& reactor_;
    std::function<int16_t(int16_t)> max_version_;
    std::atomic<int32_t> correlation_{1};
    std::atomic<uint64_t> conn_ids_{1};
};

}  // namespace ketch::console
