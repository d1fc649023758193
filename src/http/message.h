// The request and response a route handler sees: the method, the decoded path
// parameters, the query string, the headers (names lower-cased), the body, and
// the principal the server's authentication hook accepted (empty when none).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ketch::http {

struct request {
    std::string method;                             // upper case: "GET", "POST", ... (HEAD is routed as GET)
    std::string target;                             // the raw request target, query string included
    std::string path;                               // the target without the query string, not decoded
    std::map<std::string, std::string> params;      // {name} segments of the route, percent-decoded
    std::multimap<std::string, std::string> query;  // percent-decoded ('+' is a space)
    std::map<std::string, std::string> headers;     // lower-case names
    std::string body;
    std::string principal;  // set by the authentication hook
    std::string remote_ip;  // the peer's address

    // The first value of a query parameter.
    std::optional<std::string> query_value(const std::string& name) const;
    // A boolean query flag: true for "true" (any case), false when absent or anything else.
    bool query_flag(const std::string& name) const;
    std::optional<std::string> header(const std::string& lower_name) const;
    const std::string& param(const std::string& name) const;
};

struct response {
    int status = 200;
    std::string content_type = "text/plain; charset=utf-8";
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers = {};
};

// "%2F" -> "/"; with plus_is_space, '+' -> ' ' (query strings). Invalid escapes stay as they are.
std::string percent_decode(std::string_view s, bool plus_is_space);
// Splits "a=1&b=&c" into {a:1, b:"", c:""}, each part decoded.
std::multimap<std::string, std::string> parse_query(std::string_view query);

}  // namespace ketch::http
