// A small router: routes are (method, pattern) pairs, a pattern being a path of
// literal segments and {name} segments ("/subjects/{subject}/versions/{version}").
// A path is split at '/', then each segment is percent-decoded, so "%2F" inside
// a parameter stays inside it. Among the patterns that match a path the one with
// the most literal segments wins (ties: the first added); a path that matches no
// pattern is a 404, a path whose patterns lack the method a 405 (with Allow).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "http/message.h"

namespace ketch::http {

using route_handler = std::function<response(request&)>;

class router {
public:
    void add(std::string method, const std::string& pattern, route_handler h);

    enum class outcome { found, not_found, method_not_allowed };
    struct match {
        outcome result = outcome::not_found;
        const route_handler* handler = nullptr;
        std::string allow;  // for method_not_allowed: "GET, POST"
    };
    // Fills req.params on a match. HEAD is matched as GET.
    match find(request& req) const;

private:
    struct segment {
        bool is_param = false;
        std::string text;  // the literal, or the parameter's name
    };
    struct route {
        std::string method;
        std::vector<segment> segments;
        int literals = 0;
        route_handler handler;
    };
    std::vector<route> routes_;
};

// "/a/b%2Fc/" -> {"a", "b/c"} (empty segments dropped, so a trailing slash is ignored).
std::vector<std::string> split_path(std::string_view path);

}  // namespace ketch::http
