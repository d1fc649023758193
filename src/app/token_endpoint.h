// Cluster mode: one request of the OAuth 2 client-credentials grant
// (RFC 6749 4.4) to a token endpoint, as Kafka's HttpAccessTokenRetriever
// (clients/.../oauthbearer/internals/secured/HttpAccessTokenRetriever.java,
// ClientCredentialsJwtRetriever in 4.x) makes it: POST
// "grant_type=client_credentials[&scope=...]" with the client id and secret
// in an HTTP Basic header, the access_token (and expires_in) of the JSON
// answer. http:// or https:// (OpenSSL, the peer's certificate verified
// against `ca_file` or the system's trust store, and its name). Blocking, on
// a private io_context: called from the refresher's thread and at start,
// never from a reactor. docs/cluster.md "Inter-broker calls".
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>

namespace ketch::app {

struct token_endpoint_settings {
    std::string url;  // http://host[:port]/path or https://...
    std::string client_id, client_secret;
    std::string scope;                         // empty: none sent
    std::string ca_file;                       // https: PEM CA certificates; empty: the system's
    std::chrono::milliseconds timeout{10000};  // of the whole exchange (connect, TLS, request, answer)
};

// The most bytes of an answer read (headers and body each): a larger one is
// an error, not read on.
inline constexpr size_t k_token_endpoint_max_answer = 64 * 1024;

struct token_answer {
    std::string access_token;
    std::optional<int64_t> expires_in_s;  // absent when the endpoint did not say
};

// Why a request failed. `retriable` false for the answers Kafka does not
// retry (HttpAccessTokenRetriever's UNRETRYABLE_HTTP_CODES: 400-407, 409-415,
// 501, 505, such as 401 for a wrong secret) and for a URL that cannot work.
struct token_endpoint_error : std::runtime_error {
    bool retriable;
    token_endpoint_error(const std::string& what, bool r) : std::runtime_error(what), retriable(r) {}
};

// Throws std::invalid_argument when `url` is not http(s)://host[:port][/path].
void check_token_endpoint_url(const std::string& url);

// One POST; `stop` cancels it (the broker stopping). Throws token_endpoint_error.
token_answer request_token(const token_endpoint_settings& s, std::stop_token stop = {});

// The request's body: "grant_type=client_credentials", with "&scope=" and
// the scope (trimmed, form-encoded) when there is one.
std::string token_request_body(const std::string& scope);

// What the endpoint answered: the token and expires_in of a 200 or 201 with
// a JSON body holding a string access_token; else token_endpoint_error
// naming the status and the body's error and error_description (retriable
// per Kafka's codes).
token_answer parse_token_answer(int status, const std::string& body);

}  // namespace ketch::app
