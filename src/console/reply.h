// The console API's answers: JSON bodies, and errors as an HTTP status with
// {"error_code": <status>, "message": "..."} (docs/console.md). A resource
// throws api_error for a 4xx; route() turns it (and anything else thrown)
// into the answer, so a bad request never takes more than its own reply.
#pragma once

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "http/message.h"
#include "http/router.h"

namespace ketch::console {

using json = nlohmann::json;

struct api_error : std::runtime_error {
    int status;
    api_error(int s, const std::string& message) : std::runtime_error(message), status(s) {}
};

http::response json_reply(const json& body, int status = 200);
http::response error_reply(int status, const std::string& message);

// Wraps a resource: api_error -> its status; a broker that did not answer ->
// 503; anything else -> 500. Never throws.
http::route_handler route(std::function<http::response(http::request&)> fn);

// The request body as a JSON object (400 when absent or malformed).
json body_object(const http::request& req);

// Query parameters: absent -> fallback; malformed or outside [lo, hi] -> 400.
int64_t query_int(const http::request& req, const std::string& name, int64_t fallback, int64_t lo, int64_t hi);

// A Kafka error code of an answer: 0 -> nothing; otherwise throws api_error
// with the HTTP status it means (unknown topic -> 404, authorization -> 403,
// invalid input -> 400, exists -> 409, else 502) and `what` in the message.
void check_kafka_error(int16_t code, const std::string& what, const std::optional<std::string>& message = {});
int http_status_of(int16_t kafka_error);
std::string kafka_error_name(int16_t code);

}  // namespace ketch::console
