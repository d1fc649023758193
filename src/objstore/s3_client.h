// A small S3 client: HEAD bucket, PUT (optionally conditional: If-None-Match: *),
// GET (optionally a byte range), DELETE, signed with SigV4 (sigv4.h), over
// HTTP/1.1, or HTTPS for an https endpoint (http/client.h):
// the server's certificate is verified (the location's CA file, else the
// system's trust store) and must name the endpoint's host. Blocking calls
// with a deadline, over kept-alive connections: a call takes an idle one from
// the client's pool (shared by copies; one used in the last seconds) or opens
// one, and gives it back when the server keeps it open. Errors carry
// S3's status, code and message, and whether a retry may succeed (5xx, 429,
// network errors). Copies share the TLS context and the pool; calls may run on
// any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "http/client.h"
#include "objstore/list_xml.h"
#include "objstore/s3_url.h"
#include "objstore/sigv4.h"

namespace ketch::objstore {

struct s3_error {
    int http_status = 0;  // 0: no answer (connect, timeout, broken connection)
    std::string code;     // S3's <Code> (NoSuchKey, PreconditionFailed, ...), "NetworkError" or "TlsError"
    std::string message;
    // A certificate that does not verify is not retried: it will not verify the next time either.
    bool retriable() const {
        return (http_status == 0 && code != "TlsError") || http_status == 429 || http_status >= 500;
    }
    // A conditional PUT found the key already there (412, or 409 from some servers).
    bool precondition_failed() const { return http_status == 412 || code == "ConditionalRequestConflict"; }
    std::string describe() const;
};

// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, as AWS's clients read them.
credentials credentials_from_environment();

class s3_client {
public:
    using clock = std::chrono::system_clock;
    s3_client(s3_location where, credentials who, std::chrono::milliseconds timeout = std::chrono::seconds(10));

    status<s3_error> head_bucket();
    // if_none_match: written only if no object has the key (412 otherwise).
    status<s3_error> put_object(const std::string& key, const std::string& body, bool if_none_match = false);
    // [first, last] inclusive, as the Range header.
    result<std::string, s3_error> get_object(const std::string& key,
                                             std::optional<std::pair<uint64_t, uint64_t>> range = std::nullopt);
    status<s3_error> delete_object(const std::string& key);
    // One page (up to 1000 keys) of ListObjectsV2 under the location's prefix
    // + `prefix`; keys come back without the location's prefix.
    result<object_page, s3_error> list_objects(const std::string& prefix, const std::string& continuation = "");

    const s3_location& location() const { return where_; }
    // The connections this client and its copies opened so far.
    uint64_t connections_opened() const;

    // The request a call sends (also what the unit tests check): path, headers
    // (signed: all but Content-Length), payload.
    struct request {
        std::string method;
        std::string path;
        std::string query;  // encoded and sorted as signed; "" for none
        std::vector<std::pair<std::string, std::string>> headers;
        std::string body;
    };
    request make_request(const std::string& method, const std::string& key, std::string body,
                         std::vector<std::pair<std::string, std::string>> extra, clock::time_point now,
                         const std::vector<std::pair<std::string, std::string>>& query = {}) const;

private:
    struct response {
        int status = 0;
        std::string body;
    };
    struct connection;
    struct connection_pool;
    // A conditional request (If-None-Match) is never sent twice by the client itself.
    result<response, s3_error> send(request r);
    std::unique_ptr<connection> take_connection();
    void keep_connection(std::unique_ptr<connection> c);
    // the object's full key: the location's prefix + key
    std::string object_path(const std::string& key) const;

    s3_location where_;
    credentials who_;
    std::chrono::milliseconds timeout_;
    std::shared_ptr<http::client_tls> tls_;  // https: built once, shared by copies
    std::string tls_error_;                  // why the TLS context could not be built ("": it was)
    std::shared_ptr<connection_pool> pool_;  // idle kept-alive connections, shared by copies
};

}  // namespace ketch::objstore
