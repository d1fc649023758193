#include "console/reply.h"

#include "console/context.h"

#include <charconv>

#include <spdlog/spdlog.h>

#include "base/error_code.h"
#include "console/kafka_client.h"

namespace ketch::console {

http::response json_reply(const json& body, int status) {
    http::response r;
    r.status = status;
    r.content_type = "application/json";
    r.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
    r.headers.emplace_back("Cache-Control", "no-store");
    return r;
}

http::response error_reply(int status, const std::string& message) {
    return json_reply({{"error_code", status}, {"message", message}}, status);
}

http::route_handler route(std::function<http::response(http::request&)> fn) {
    return [fn = std::move(fn)](http::request& req) -> http::response {
        try {
            return fn(req);
        } catch (const api_error& e) {
            return error_reply(e.status, e.what());
        } catch (const kafka_call_error& e) {
            return error_reply(503, e.what());
        } catch (const json::exception& e) {
            return error_reply(400, std::string("bad JSON value: ") + e.what());
        } catch (const std::exception& e) {
            spdlog::warn("console {} {}: {}", req.method, req.path, e.what());
            return error_reply(500, e.what());
        }
    };
}

json body_object(const http::request& req) {
    json j = json::parse(req.body, nullptr, false);
    if (j.is_discarded()) throw api_error(400, "the body is not valid JSON");
    if (!j.is_object()) throw api_error(400, "the body must be a JSON object");
    return j;
}

int64_t query_int(const http::request& req, const std::string& name, int64_t fallback, int64_t lo, int64_t hi) {
    auto v = req.query_value(name);
    if (!v || v->empty()) return fallback;
    int64_t out = 0;
    auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
    if (ec != std::errc() || p != v->data() + v->size())
        throw api_error(400, "query parameter " + name + " must be an integer");
    if (out < lo || out > hi)
        throw api_error(
            400, "query parameter " + name + " must lie in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return out;
}

std::string kafka_error_name(int16_t code) { return std::string(error_name(error_code(code))); }

int http_status_of(int16_t kafka_error) {
    switch (error_code(kafka_error)) {
        case error_code::none: return 200;
        case error_code::unknown_topic_or_partition:
        case error_code::unknown_topic_id:
        case error_code::group_id_not_found:
        case error_code::transactional_id_not_found:
        case error_code::resource_not_found: return 404;
        case error_code::topic_authorization_failed:
        case error_code::group_authorization_failed:
        case error_code::cluster_authorization_failed:
        case error_code::transactional_id_authorization_failed: return 403;
        case error_code::topic_already_exists:
        case error_code::non_empty_group:
        case error_code::concurrent_transactions: return 409;
        case error_code::security_disabled: return 501;
        case error_code::request_timed_out:
        case error_code::coordinator_not_available:
        case error_code::coordinator_load_in_progress:
        case error_code::not_coordinator: return 503;
        case error_code::unknown_server_error:
        case error_code::kafka_storage_error: return 500;
        default: return 400;
    }
}

void check_kafka_error(int16_t code, const std::string& what, const std::optional<std::string>& message) {
    if (code == 0) return;
    std::string m = what + ": " + kafka_error_name(code);
    if (message && !message->empty()) m += " (" + *message + ")";
    throw api_error(http_status_of(code), m);
}

}  // namespace ketch::console
