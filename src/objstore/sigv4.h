// AWS Signature Version 4 (the Authorization header of S3 requests):
// canonical request, string to sign, signing key, signature. Pure functions
// over strings; the S3 client (s3_client.h) builds the request and sends it.
// Reference: AWS's "Signature Version 4 signing process" and the S3 API
// reference's "Signature Calculations for the Authorization Header"; pinned by
// their published examples in tests/unit/objstore/sigv4_test.cc.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ketch::objstore {

struct credentials {
    std::string access_key_id;
    std::string secret_access_key;
    std::string session_token;  // empty: none (else sent and signed as x-amz-security-token)
};

// What is signed of a request. `path` is the URI path as sent, already
// percent-encoded (uri_encode_path); `query` the decoded parameters, in any
// order; `headers` every header to sign, names in any case (host and
// x-amz-date among them).
struct signing_request {
    std::string method;
    std::string path;
    std::vector<std::pair<std::string, std::string>> query;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string payload_sha256;  // hex; or "UNSIGNED-PAYLOAD"
};

struct signing_scope {
    std::string amz_date;  // 20150830T123600Z
    std::string region;    // us-east-1
    std::string service;   // s3
    std::string date() const { return amz_date.substr(0, 8); }
    std::string string() const { return date() + "/" + region + "/" + service + "/aws4_request"; }
};

// RFC 3986 unreserved characters kept, every other byte %XX (upper case);
// '/' kept when encode_slash is false (paths).
std::string uri_encode(std::string_view s, bool encode_slash = true);
// "/" + each segment of an object key encoded (S3 encodes a path once).
std::string uri_encode_path(std::string_view key);

std::string sha256_hex(std::string_view data);
std::string hmac_sha256(std::string_view key, std::string_view data);  // raw 32 bytes
std::string hex(std::string_view bytes);

// 20150830T123600Z for a time point (UTC).
std::string amz_date(std::chrono::system_clock::time_point t);

// The query as signed and sent: each name and value encoded, sorted, "a=1&b=2".
std::string canonical_query(const std::vector<std::pair<std::string, std::string>>& query);
std::string canonical_request(const signing_request& r);
std::string signed_headers(const signing_request& r);  // "host;x-amz-date"
std::string string_to_sign(const signing_scope& scope, std::string_view canonical);
// HMAC chain: "AWS4"+secret, date, region, service, "aws4_request".
std::string signing_key(std::string_view secret, const signing_scope& scope);
std::string signature(const credentials& c, const signing_scope& scope, const signing_request& r);
// "AWS4-HMAC-SHA256 Credential=AKID/scope, SignedHeaders=..., Signature=..."
std::string authorization(const credentials& c, const signing_scope& scope, const signing_request& r);

}  // namespace ketch::objstore
