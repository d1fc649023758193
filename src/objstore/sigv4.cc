#include "objstore/sigv4.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "base/percent_encode.h"

namespace ketch::objstore {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Leading and trailing blanks removed, inner runs of blanks made one space.
std::string trim_value(std::string_view v) {
    std::string out;
    bool blank = false;
    for (char c : v) {
        if (c == ' ' || c == '\t') {
            blank = !out.empty();
            continue;
        }
        if (blank) out += ' ';
        blank = false;
        out += c;
    }
    return out;
}

// name -> value(s), sorted by lower-case name; repeated names joined by ','.
std::map<std::string, std::string> canonical_headers(const signing_request& r) {
    std::map<std::string, std::string> h;
    for (auto& [name, value] : r.headers) {
        auto& v = h[lower(name)];
        if (!v.empty()) v += ',';
        v += trim_value(value);
    }
    return h;
}

}  // namespace

std::string uri_encode(std::string_view s, bool encode_slash) { return percent_encode(s, encode_slash ? "" : "/"); }

std::string uri_encode_path(std::string_view key) { return "/" + uri_encode(key, false); }

std::string hex(std::string_view bytes) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (unsigned char c : bytes) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

std::string sha256_hex(std::string_view data) {
    unsigned char md[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), md);
    return hex({reinterpret_cast<const char*>(md), sizeof md});
}

std::string hmac_sha256(std::string_view key, std::string_view data) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    HMAC(EVP_sha256(), key.data(), int(key.size()), reinterpret_cast<const unsigned char*>(data.data()), data.size(),
         md, &len);
    return {reinterpret_cast<const char*>(md), len};
}

std::string amz_date(std::chrono::system_clock::time_point t) {
    std::time_t secs = std::chrono::system_clock::to_time_t(t);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
    return buf;
}

std::string signed_headers(const signing_request& r) {
    std::string out;
    for (auto& [name, value] : canonical_headers(r)) {
        if (!out.empty()) out += ';';
        out += name;
    }
    return out;
}

std::string canonical_query(const std::vector<std::pair<std::string, std::string>>& query) {
    std::vector<std::pair<std::string, std::string>> q;
    for (auto& [k, v] : query) q.emplace_back(uri_encode(k), uri_encode(v));
    std::sort(q.begin(), q.end());
    std::string out;
    for (auto& [k, v] : q) {
        if (!out.empty()) out += '&';
        out += k + "=" + v;
    }
    return out;
}

std::string canonical_request(const signing_request& r) {
    std::string query = canonical_query(r.query);
    std::string headers;
    for (auto& [name, value] : canonical_headers(r)) headers += name + ":" + value + "\n";
    return r.method + "\n" + r.path + "\n" + query + "\n" + headers + "\n" + signed_headers(r) + "\n" +
           r.payload_sha256;
}

std::string string_to_sign(const signing_scope& scope, std::string_view canonical) {
    return "AWS4-HMAC-SHA256\n" + scope.amz_date + "\n" + scope.string() + "\n" + sha256_hex(canonical);
}

std::string signing_key(std::string_view secret, const signing_scope& scope) {
    std::string k = hmac_sha256("AWS4" + std::string(secret), scope.date());
    k = hmac_sha256(k, scope.region);
    k = hmac_sha256(k, scope.service);
    return hmac_sha256(k, "aws4_request");
}

std::string signature(const credentials& c, const signing_scope& scope, const signing_request& r) {
    return hex(hmac_sha256(signing_key(c.secret_access_key, scope), string_to_sign(scope, canonical_request(r))));
}

std::string authorization(const credentials& c, const signing_scope& scope, const signing_request& r) {
    return "AWS4-HMAC-SHA256 Credential=" + c.access_key_id + "/" + scope.string() +
           ", SignedHeaders=" + signed_headers(r) + ", Signature=" + signature(c, scope, r);
}

}  // namespace ketch::objstore
