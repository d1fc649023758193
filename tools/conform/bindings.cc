#include "bindings.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <regex>
#include <vector>

namespace ketch::conform {
namespace {

const std::regex& placeholder_re() {
    static const std::regex re(R"(\$\{([A-Za-z0-9_]+)(?::([0-9]+))?\})");
    return re;
}

std::string base36(uint64_t v, size_t width) {
    std::string s;
    for (size_t i = 0; i < width; ++i, v /= 36) s.push_back("0123456789abcdefghijklmnopqrstuvwxyz"[v % 36]);
    return s;
}

}  // namespace

std::string bindings::new_run_id() {
    std::random_device rd;
    uint64_t seed = (uint64_t(rd()) << 32) ^ uint64_t(rd()) ^
                    uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) ^ uint64_t(::getpid());
    return base36(seed, 8);
}

std::string bindings::unique_value(const std::string& name, int length) {
    std::string v = "c" + name + "-" + run_id_;
    if (length > 0) {
        if (int(v.size()) > length) v = v.substr(v.size() - size_t(length));  // keep the run id
        v.append(size_t(length) - v.size(), 'x');
    }
    return v;
}

std::string bindings::substitute_string(const std::string& s) {
    std::string out;
    auto begin = std::sregex_iterator(s.begin(), s.end(), placeholder_re());
    size_t last = 0;
    for (auto it = begin; it != std::sregex_iterator(); ++it) {
        const std::smatch& m = *it;
        out.append(s, last, size_t(m.position(0)) - last);
        std::string name = m[1].str();
        if (auto c = captured_.find(name); c != captured_.end()) {
            out += c->second.is_string() ? c->second.get<std::string>() : c->second.dump();
        } else {
            std::string token = m[0].str();
            auto [g, fresh] = generated_.try_emplace(token);
            if (fresh) g->second = unique_value(name, m[2].matched ? std::stoi(m[2].str()) : 0);
            out += g->second;
        }
        last = size_t(m.position(0) + m.length(0));
    }
    out.append(s, last, std::string::npos);
    return out;
}

json bindings::substitute(const json& j) {
    if (j.is_string()) {
        const auto& s = j.get_ref<const std::string&>();
        std::smatch m;
        if (std::regex_match(s, m, placeholder_re()) && !m[2].matched) {
            if (auto c = captured_.find(m[1].str()); c != captured_.end()) return c->second;
        }
        return substitute_string(s);
    }
    if (j.is_object()) {
        json out = json::object();
        for (auto& [k, v] : j.items()) out[k] = substitute(v);
        return out;
    }
    if (j.is_array()) {
        json out = json::array();
        for (auto& v : j) out.push_back(substitute(v));
        return out;
    }
    return j;
}

json bindings::reverse(const json& j) const {
    if (j.is_string()) {
        std::string s = j.get<std::string>();
        // Longest values first, so a value that contains another is replaced whole.
        std::vector<std::pair<std::string, std::string>> pairs;
        for (auto& [token, value] : generated_) pairs.emplace_back(value, token);
        std::sort(pairs.begin(), pairs.end(), [](auto& a, auto& b) { return a.first.size() > b.first.size(); });
        for (auto& [value, token] : pairs) {
            for (size_t pos = s.find(value); pos != std::string::npos; pos = s.find(value, pos + token.size()))
                s.replace(pos, value.size(), token);
        }
        return s;
    }
    if (j.is_object()) {
        json out = json::object();
        for (auto& [k, v] : j.items()) out[k] = reverse(v);
        return out;
    }
    if (j.is_array()) {
        json out = json::array();
        for (auto& v : j) out.push_back(reverse(v));
        return out;
    }
    return j;
}

}  // namespace ketch::conform
