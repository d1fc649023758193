#include "console/kafka_client.h"

#include <future>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_future.hpp>

#include "protocol/messages/request_header.h"
#include "protocol/messages/response_header.h"
#include "protocol/records.h"

namespace ketch::console {

namespace {

// The response as one byte string: the buffer with its file chunks (if any) read in.
bytes flatten(const kafka::encoded_message& m) {
    bytes out;
    out.reserve(m.size());
    size_t at = 0;
    for (auto& [pos, chunk] : m.splices) {
        out.insert(out.end(), m.buf.begin() + long(at), m.buf.begin() + long(pos));
        at = pos;
        kafka::records r;
        r.chunks.push_back(chunk);
        auto b = r.flatten();
        out.insert(out.end(), b.begin(), b.end());
    }
    out.insert(out.end(), m.buf.begin() + long(at), m.buf.end());
    return out;
}

}  // namespace

kafka_client::kafka_client(net::request_handler& handler, boost::asio::io_context& reactor,
                           std::function<int16_t(int16_t)> max_version)
    : handler_(handler), reactor_(reactor), max_version_(std::move(max_version)) {}

bytes kafka_client::call_raw(int16_t key, int16_t version, const bytes& body, const std::string& principal,
                             std::chrono::milliseconds timeout) {
    const kafka::api_info* api = kafka::find_api(key);
    if (!api) throw kafka_call_error("unknown API key " + std::to_string(key));
    kafka::writer w;
    kafka::request_header h;
    h.request_api_key = key;
    h.request_api_version = version;
    h.correlation_id = correlation_.fetch_add(1);
    h.client_id = "ketch-console";
    h.encode(w, api->request_header_version(version));
    bytes frame = w.take_bytes();
    frame.insert(frame.end(), body.begin(), body.end());

    // The connection the request comes "from": owned by the coroutine, so a
    // request that outlives the timeout still has it.
    auto conn = std::make_shared<net::connection_info>();
    conn->id = (uint64_t(1) << 62) | conn_ids_.fetch_add(1);  // apart from the listeners' ids
    conn->peer = "console";
    conn->listener_name = "CONSOLE";
    conn->principal = principal;
    conn->file_chunks_ok = false;
    conn->client_software_name = "ketch-console";
    auto fut = boost::asio::co_spawn(
        reactor_,
        [this, conn, f = shared_bytes(std::move(frame))]() -> boost::asio::awaitable<net::handler_result> {
            co_return co_await handler_.handle(*conn, f);
        },
        boost::asio::use_future);
    if (fut.wait_for(timeout) != std::future_status::ready)
        throw kafka_call_error(std::string(api->name) + ": no answer within " + std::to_string(timeout.count()) +
                               " ms");
    net::handler_result res = fut.get();
    if (res.what != net::handler_result::action::respond)
        throw kafka_call_error(std::string(api->name) + ": the broker closed the request without an answer");
    bytes out = flatten(res.response);
    kafka::reader r(out.data(), out.size());
    kafka::response_header rh;
    rh.decode(r, api->response_header_version(version));
    return bytes(out.begin() + long(out.size() - r.remaining()), out.end());
}

}  // namespace ketch::console
