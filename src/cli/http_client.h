// A blocking HTTP/1.1 client for the broker's own HTTP endpoints (`ketch
// fault` talks to the console's /api/v1/faults): plain http:// only, one
// request per connection.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ketch::cli {

struct http_reply {
    int status = 0;
    std::string body;
};

// `base` is "http://host:port" (a trailing '/' allowed); throws usage_error on
// a malformed URL, network_error when the server cannot be reached or answers
// no HTTP.
// `basic_auth` "user:password" sends an HTTP Basic login (the console's).
http_reply http_call(const std::string& base, const std::string& method, const std::string& path,
                     const std::string& json_body = {}, const std::string& basic_auth = {});

// A call to the console's JSON API (`ketch fault`, `ketch tenant`): the answer
// parsed; a 4xx/5xx throws std::runtime_error with the console's message, an
// answer that is not JSON too.
nlohmann::json console_call(const std::string& base, const std::string& method, const std::string& path,
                            const std::string& json_body = {}, const std::string& basic_auth = {});

}  // namespace ketch::cli
