#include "app/token_endpoint.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "base/percent_encode.h"
#include "http/client.h"
#include "security/crypto.h"

namespace ketch::app {

namespace {

struct endpoint_url {
    bool tls = false;
    std::string host;  // without brackets
    uint16_t port = 0;
    std::string target;  // "/path?query"
};

endpoint_url parse_url(const std::string& url) {
    endpoint_url u;
    std::string rest;
    if (url.rfind("https://", 0) == 0) {
        u.tls = true;
        rest = url.substr(8);
    } else if (url.rfind("http://", 0) == 0) {
        rest = url.substr(7);
    } else {
        throw std::invalid_argument("the URL must start with http:// or https://");
    }
    auto slash = rest.find('/');
    std::string authority = rest.substr(0, slash);
    u.target = slash == std::string::npos ? "/" : rest.substr(slash);
    if (authority.find('@') != std::string::npos)
        throw std::invalid_argument("the URL may not carry credentials (give the client id and secret)");
    std::string port;
    if (!authority.empty() && authority.front() == '[') {
        auto close = authority.find(']');
        if (close == std::string::npos) throw std::invalid_argument("an IPv6 host needs its closing ']'");
        u.host = authority.substr(1, close - 1);
        if (close + 1 < authority.size()) {
            if (authority[close + 1] != ':') throw std::invalid_argument("junk after the IPv6 host");
            port = authority.substr(close + 2);
        }
    } else {
        auto colon = authority.rfind(':');
        u.host = authority.substr(0, colon);
        if (colon != std::string::npos) port = authority.substr(colon + 1);
    }
    if (u.host.empty()) throw std::invalid_argument("the URL names no host");
    if (port.empty()) {
        u.port = u.tls ? 443 : 80;
    } else {
        if (port.size() > 5 || !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
            std::stoi(port) == 0 || std::stoi(port) > 65535)
            throw std::invalid_argument("the port must be 1-65535");
        u.port = uint16_t(std::stoi(port));
    }
    return u;
}

// Kafka's UNRETRYABLE_HTTP_CODES (HttpAccessTokenRetriever.java).
bool retriable_status(int status) {
    static const std::set<int> never = {400, 401, 402, 403, 404, 405, 406, 407, 409,
                                        410, 411, 412, 413, 414, 415, 501, 505};
    return !never.contains(status);
}

// "{error - error_description}" of an OAuth error body, else its first 1000
// bytes (HttpAccessTokenRetriever.formatErrorMessage).
std::string error_of(const std::string& body) {
    auto j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_object() && j.contains("error"))
        return "{" + j["error"].dump() + " - " +
               (j.contains("error_description") ? j["error_description"].dump() : "") + "}";
    std::string cut = body.substr(0, 1000);
    std::replace_if(
        cut.begin(), cut.end(), [](char c) { return c < 0x20 || c == 0x7f; }, '?');
    return "{" + cut + "}";
}

http::client_request post(const endpoint_url& u, const token_endpoint_settings& s, const std::string& body) {
    const bool default_port = u.port == (u.tls ? 443 : 80);
    const bool v6 = u.host.find(':') != std::string::npos;
    return {"POST",
            u.target,
            {{"Host", (v6 ? "[" + u.host + "]" : u.host) + (default_port ? "" : ":" + std::to_string(u.port))},
             {"User-Agent", "ketch"},
             {"Accept", "application/json"},
             {"Cache-Control", "no-cache"},
             {"Content-Type", "application/x-www-form-urlencoded"},
             // RFC 7617's standard (not URL-safe) base64, as Kafka (KAFKA-14496).
             {"Authorization", "Basic " + security::base64_encode(s.client_id + ":" + s.client_secret)},
             {"Connection", "close"}},
            body};
}

}  // namespace

void check_token_endpoint_url(const std::string& url) { parse_url(url); }

std::string token_request_body(const std::string& scope) {
    std::string body = "grant_type=client_credentials";
    auto b = scope.find_first_not_of(" \t"), e = scope.find_last_not_of(" \t");
    if (b != std::string::npos) body += "&scope=" + percent_encode(scope.substr(b, e - b + 1));
    return body;
}

token_answer parse_token_answer(int status, const std::string& body) {
    if (status != 200 && status != 201)
        throw token_endpoint_error("the token endpoint answered " + std::to_string(status) + " " + error_of(body) +
                                       (retriable_status(status) ? "" : "; not retried"),
                                   retriable_status(status));
    auto j = nlohmann::json::parse(body, nullptr, false);
    if (!j.is_object() || !j.contains("access_token") || !j["access_token"].is_string() ||
        j["access_token"].get<std::string>().empty())
        throw token_endpoint_error("the token endpoint's answer holds no access_token: " + error_of(body), true);
    token_answer a;
    a.access_token = j["access_token"].get<std::string>();
    if (j.contains("expires_in") && j["expires_in"].is_number_integer())
        a.expires_in_s = j["expires_in"].get<int64_t>();
    return a;
}

token_answer request_token(const token_endpoint_settings& s, std::stop_token stop) {
    endpoint_url u;
    try {
        u = parse_url(s.url);
    } catch (const std::invalid_argument& e) {
        throw token_endpoint_error(e.what(), false);
    }
    const std::string body = token_request_body(s.scope);
    const auto req = post(u, s, body);
    std::optional<http::client_tls> tls;
    if (u.tls) {
        try {
            tls.emplace(http::client_tls_files{s.ca_file, {}, {}});
        } catch (const std::runtime_error& e) {
            throw token_endpoint_error(e.what(), false);
        }
    }
    http::client_connection conn(u.host, u.port, tls ? &*tls : nullptr);
    std::stop_callback cancel(stop, [&conn] { conn.cancel(); });
    auto out = conn.send(req, s.timeout, {k_token_endpoint_max_answer, k_token_endpoint_max_answer});
    if (stop.stop_requested()) throw token_endpoint_error("stopped", false);
    if (out.error) throw token_endpoint_error("the token endpoint " + s.url + ": " + out.describe(), true);
    return parse_token_answer(out.status, out.body);
}

}  // namespace ketch::app
