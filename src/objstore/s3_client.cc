#include "objstore/s3_client.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string_view>
#include <type_traits>

namespace ketch::objstore {

namespace {

// The text of <Tag>...</Tag> in an S3 error document, or "".
std::string xml_field(const std::string& body, const std::string& tag) {
    auto open = body.find("<" + tag + ">");
    if (open == std::string::npos) return {};
    open += tag.size() + 2;
    auto close = body.find("</" + tag + ">", open);
    return close == std::string::npos ? std::string{} : body.substr(open, close - open);
}

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

// How long a connection may wait in the pool: below the idle timeouts of
// S3-compatible servers (S3 closes after about 20 s), so a kept connection is
// rarely found closed by the server.
constexpr auto k_max_idle = std::chrono::seconds(4);
constexpr size_t k_max_pooled = 16;
// An answer's header block and body (a GET of a whole object).
constexpr http::client_limits k_limits{64 * 1024, 256 * 1024 * 1024};

}  // namespace

// A kept-alive connection and since when it waits in the pool.
struct s3_client::connection {
    connection(const s3_location& where, const http::client_tls* tls) : http(where.host, where.port, tls) {}
    http::client_connection http;
    std::chrono::steady_clock::time_point idle_since;
};

struct s3_client::connection_pool {
    std::mutex mu;
    std::vector<std::unique_ptr<connection>> idle;  // the most recently used last
    uint64_t opened = 0;                            // connections made, for tests and logs
};

std::unique_ptr<s3_client::connection> s3_client::take_connection() {
    {
        std::lock_guard l(pool_->mu);
        const auto now = std::chrono::steady_clock::now();
        while (!pool_->idle.empty()) {
            auto c = std::move(pool_->idle.back());
            pool_->idle.pop_back();
            if (now - c->idle_since < k_max_idle) return c;
        }
        ++pool_->opened;
    }
    return std::make_unique<connection>(where_, tls_.get());
}

void s3_client::keep_connection(std::unique_ptr<connection> c) {
    c->idle_since = std::chrono::steady_clock::now();
    std::lock_guard l(pool_->mu);
    if (pool_->idle.size() < k_max_pooled) pool_->idle.push_back(std::move(c));
}

uint64_t s3_client::connections_opened() const {
    std::lock_guard l(pool_->mu);
    return pool_->opened;
}

std::string s3_error::describe() const {
    std::string s = http_status ? "HTTP " + std::to_string(http_status) : "no answer";
    if (!code.empty()) s += " " + code;
    if (!message.empty()) s += ": " + message;
    return s;
}

credentials credentials_from_environment() {
    return {env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY"), env("AWS_SESSION_TOKEN")};
}

s3_client::s3_client(s3_location where, credentials who, std::chrono::milliseconds timeout)
    : where_(std::move(where)), who_(std::move(who)), timeout_(timeout), pool_(std::make_shared<connection_pool>()) {
    if (!where_.tls) return;
    try {
        tls_ = std::make_shared<http::client_tls>(
            http::client_tls_files{where_.ca_file, where_.cert_file, where_.key_file});
    } catch (const std::runtime_error& e) {
        tls_error_ = e.what();
    }
}

std::string s3_client::object_path(const std::string& key) const {
    if (key.empty()) return "/" + uri_encode(where_.bucket);
    return "/" + uri_encode(where_.bucket) + uri_encode_path(where_.prefix + key);
}

s3_client::request s3_client::make_request(const std::string& method, const std::string& key, std::string body,
                                           std::vector<std::pair<std::string, std::string>> extra,
                                           clock::time_point now,
                                           const std::vector<std::pair<std::string, std::string>>& query) const {
    request r{method, object_path(key), canonical_query(query), {}, std::move(body)};
    signing_scope scope{amz_date(now), where_.region, "s3"};
    std::string payload = sha256_hex(r.body);
    r.headers = {{"host", where_.host_header()}, {"x-amz-content-sha256", payload}, {"x-amz-date", scope.amz_date}};
    if (!who_.session_token.empty()) r.headers.emplace_back("x-amz-security-token", who_.session_token);
    for (auto& h : extra) r.headers.push_back(std::move(h));
    signing_request s{method, r.path, query, r.headers, payload};
    r.headers.emplace_back("authorization", authorization(who_, scope, s));
    return r;
}

result<s3_client::response, s3_error> s3_client::send(request r) {
    const bool conditional =
        std::any_of(r.headers.begin(), r.headers.end(), [](auto& h) { return h.first == "if-none-match"; });
    const http::client_request req{r.method, r.query.empty() ? r.path : r.path + "?" + r.query, std::move(r.headers),
                                   r.body};
    if (!tls_error_.empty()) return failure{s3_error{0, "TlsError", tls_error_}};
    for (;;) {
        auto c = take_connection();
        const bool reused = c->http.open();
        auto x = c->http.send(req, timeout_, k_limits);
        // A kept connection the server closed meanwhile fails before any answer:
        // the request is sent again on a new one, unless it is a conditional PUT,
        // whose first copy might have been stored (its caller's retry decides).
        if (reused && x.error && !x.answered && !conditional) continue;
        if (x.error) {
            // TLS 1.3: a server refusing our certificate says so after the
            // handshake, with an alert read in place of the answer.
            return failure{s3_error{0, x.tls_failure() ? "TlsError" : "NetworkError",
                                    std::string(x.stage) + " with " + where_.host_header() + ": " + x.error.message()}};
        }
        if (c->http.open()) keep_connection(std::move(c));
        response out{x.status, std::move(x.body)};
        if (out.status / 100 == 2 || out.status == 206) return out;
        return failure{s3_error{out.status, xml_field(out.body, "Code"), xml_field(out.body, "Message")}};
    }
}

status<s3_error> s3_client::head_bucket() {
    auto r = send(make_request("HEAD", "", "", {}, clock::now()));
    if (!r.ok()) return failure{r.error()};
    return ok_v;
}

status<s3_error> s3_client::put_object(const std::string& key, const std::string& body, bool if_none_match) {
    std::vector<std::pair<std::string, std::string>> extra;
    if (if_none_match) extra.emplace_back("if-none-match", "*");
    auto r = send(make_request("PUT", key, body, std::move(extra), clock::now()));
    if (!r.ok()) return failure{r.error()};
    return ok_v;
}

result<std::string, s3_error> s3_client::get_object(const std::string& key,
                                                    std::optional<std::pair<uint64_t, uint64_t>> range) {
    std::vector<std::pair<std::string, std::string>> extra;
    if (range)
        extra.emplace_back("range", "bytes=" + std::to_string(range->first) + "-" + std::to_string(range->second));
    auto r = send(make_request("GET", key, "", std::move(extra), clock::now()));
    if (!r.ok()) return failure{r.error()};
    return std::move(r->body);
}

status<s3_error> s3_client::delete_object(const std::string& key) {
    auto r = send(make_request("DELETE", key, "", {}, clock::now()));
    if (!r.ok()) return failure{r.error()};
    return ok_v;
}

result<object_page, s3_error> s3_client::list_objects(const std::string& prefix, const std::string& continuation) {
    std::vector<std::pair<std::string, std::string>> q{{"list-type", "2"}, {"prefix", where_.prefix + prefix}};
    if (!continuation.empty()) q.emplace_back("continuation-token", continuation);
    auto r = send(make_request("GET", "", "", {}, clock::now(), q));
    if (!r.ok()) return failure{r.error()};
    auto page = parse_list_objects(r->body);
    if (!page) return failure{s3_error{r->status, "MalformedListing", "cannot read the ListObjectsV2 answer"}};
    for (auto& o : page->objects)
        if (o.key.rfind(where_.prefix, 0) == 0) o.key.erase(0, where_.prefix.size());
    return std::move(*page);
}

}  // namespace ketch::objstore
