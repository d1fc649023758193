#include "http/router.h"

#include "base/split.h"

namespace ketch::http {

std::vector<std::string> split_path(std::string_view path) {
    auto out = split_nonempty(path, '/');
    for (auto& segment : out) segment = percent_decode(segment, false);
    return out;
}

void router::add(std::string method, const std::string& pattern, route_handler h) {
    route r{std::move(method), {}, 0, std::move(h)};
    for (auto& part : split_path(pattern)) {
        if (part.size() > 2 && part.front() == '{' && part.back() == '}') {
            r.segments.push_back({true, part.substr(1, part.size() - 2)});
        } else {
            r.segments.push_back({false, part});
            ++r.literals;
        }
    }
    routes_.push_back(std::move(r));
}

router::match router::find(request& req) const {
    auto parts = split_path(req.path);
    const std::string method = req.method == "HEAD" ? "GET" : req.method;
    const route* best = nullptr;
    const route* best_any_method = nullptr;
    std::string allow;
    for (auto& r : routes_) {
        if (r.segments.size() != parts.size()) continue;
        bool ok = true;
        for (size_t i = 0; i < parts.size() && ok; ++i)
            ok = r.segments[i].is_param ? !parts[i].empty() : r.segments[i].text == parts[i];
        if (!ok) continue;
        if (!best_any_method || r.literals > best_any_method->literals) best_any_method = &r;
        if (r.method == method && (!best || r.literals > best->literals)) best = &r;
    }
    match m;
    if (!best_any_method) return m;
    // A more specific pattern that lacks the method shadows a generic one that has it
    // (GET /schemas/types is not GET /schemas/{x}): answer 405 for it.
    if (!best || best->literals < best_any_method->literals) {
        for (auto& r : routes_) {
            if (r.segments.size() != parts.size() || r.literals != best_any_method->literals) continue;
            bool same = true;
            for (size_t i = 0; i < parts.size() && same; ++i)
                same = r.segments[i].is_param == best_any_method->segments[i].is_param &&
                       r.segments[i].text == best_any_method->segments[i].text;
            if (!same) continue;
            if (!allow.empty()) allow += ", ";
            allow += r.method;
        }
        m.result = outcome::method_not_allowed;
        m.allow = allow;
        return m;
    }
    for (size_t i = 0; i < parts.size(); ++i)
        if (best->segments[i].is_param) req.params[best->segments[i].text] = parts[i];
    m.result = outcome::found;
    m.handler = &best->handler;
    return m;
}

}  // namespace ketch::http
