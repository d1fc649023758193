#include "broker/dispatcher.h"

#include <spdlog/spdlog.h>

#include "base/endian.h"
#include "broker/handler.h"
#include "broker/handlers/handlers.h"
#include "protocol/messages/api_table.h"
#include "protocol/messages/request_header.h"

namespace ketch::broker {

int16_t response_header_version(int16_t api_key, int16_t version) {
    auto* api = kafka::find_api(api_key);
    return api ? api->response_header_version(version) : 0;
}

boost::asio::awaitable<net::handler_result> dispatcher::handle(net::connection_info& conn, shared_bytes frame) {
    if (frame.size() < 8) {
        spdlog::info("conn {}: request shorter than a header, closing", conn.id);
        co_return net::handler_result::close();
    }
    const int16_t key = load_be<int16_t>(frame.data());
    const int16_t version = load_be<int16_t>(frame.data() + 2);
    const kafka::api_info* api = kafka::find_api(key);
    if (!api) {
        spdlog::info("conn {}: unknown api key {}, closing", conn.id, key);
        co_return net::handler_result::close();
    }

    kafka::reader r(frame);
    kafka::request_header header;
    try {
        header.decode(r, api->request_header_version(version));
    } catch (const kafka::decode_error& e) {
        spdlog::info("conn {}: malformed request header ({}), closing", conn.id, e.what());
        co_return net::handler_result::close();
    }

    request_context ctx{key, version, header.correlation_id, header.client_id, conn, ctx_};
    const handler_entry* h = find_handler(key);
    if (!h || version < h->min_version || version > h->max_version) {
        if (key == int16_t(kafka::api_key::api_versions)) co_return unsupported_api_versions(ctx);
        spdlog::info("conn {} client {}: {} v{} is not served, closing", conn.id, header.client_id.value_or(""),
                     api->name, version);
        co_return net::handler_result::close();
    }
    spdlog::debug("conn {} client {} corr {}: {} v{}", conn.id, header.client_id.value_or(""), header.correlation_id,
                  api->name, version);
    co_return co_await h->fn(ctx, r);
}

}  // namespace ketch::broker
