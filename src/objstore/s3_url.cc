#include "objstore/s3_url.h"

#include <charconv>

namespace ketch::objstore {

namespace {

using parse_result = result<s3_location, std::string>;

failure<std::string> refuse(std::string_view why) { return failure{"s3:// URL: " + std::string(why)}; }

// Decodes %XX (a query value may carry its endpoint encoded); false on a bad escape.
bool percent_decode(std::string_view in, std::string& out) {
    out.clear();
    for (size_t i = 0; i < in.size(); ++i) {
        if (in[i] != '%') {
            out += in[i];
            continue;
        }
        int v = 0;
        if (i + 2 >= in.size()) return false;
        auto r = std::from_chars(in.data() + i + 1, in.data() + i + 3, v, 16);
        if (r.ec != std::errc{} || r.ptr != in.data() + i + 3) return false;
        out += char(v);
        i += 2;
    }
    return true;
}

// endpoint=http[s]://host[:port][/]
bool parse_endpoint(std::string_view e, s3_location& loc, std::string& why) {
    constexpr std::string_view http = "http://", https = "https://";
    if (e.substr(0, https.size()) == https) {
        loc.tls = true;
        loc.port = 443;
        e.remove_prefix(https.size());
    } else if (e.substr(0, http.size()) == http) {
        e.remove_prefix(http.size());
    } else {
        why = "endpoint must be http://HOST:PORT or https://HOST:PORT";
        return false;
    }
    if (!e.empty() && e.back() == '/') e.remove_suffix(1);
    if (e.empty()) {
        why = "endpoint has no host";
        return false;
    }
    if (e.find('/') != std::string_view::npos) {
        why = "endpoint must not have a path";
        return false;
    }
    // [v6]:port or host:port; the port may be left out (80).
    auto close = e.front() == '[' ? e.find(']') : std::string_view::npos;
    auto colon = e.rfind(':');
    if (close != std::string_view::npos && colon < close) colon = std::string_view::npos;
    if (colon != std::string_view::npos) {
        unsigned p = 0;
        auto port = e.substr(colon + 1);
        auto r = std::from_chars(port.data(), port.data() + port.size(), p);
        if (port.empty() || r.ec != std::errc{} || r.ptr != port.data() + port.size() || p == 0 || p > 65535) {
            why = "bad endpoint port";
            return false;
        }
        loc.port = uint16_t(p);
        e = e.substr(0, colon);
    }
    if (close != std::string_view::npos) e = e.substr(1, close - 1);
    loc.host = std::string(e);
    if (loc.host.empty()) {
        why = "endpoint has no host";
        return false;
    }
    return true;
}

bool valid_bucket(std::string_view b) {
    if (b.size() < 3 || b.size() > 63) return false;
    for (char c : b)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')) return false;
    return true;
}

}  // namespace

std::string s3_location::host_header() const {
    std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    return port == (tls ? 443 : 80) ? h : h + ":" + std::to_string(port);
}

parse_result parse_s3_url(std::string_view url) {
    constexpr std::string_view scheme = "s3://";
    if (url.substr(0, scheme.size()) != scheme) return refuse("must start with s3://");
    url.remove_prefix(scheme.size());
    auto q = url.find('?');
    std::string_view path = url.substr(0, q), query = q == std::string_view::npos ? "" : url.substr(q + 1);
    s3_location loc;
    auto slash = path.find('/');
    loc.bucket = std::string(path.substr(0, slash));
    if (!valid_bucket(loc.bucket)) return refuse("bad bucket name '" + loc.bucket + "'");
    if (slash != std::string_view::npos && slash + 1 < path.size()) {
        loc.prefix = std::string(path.substr(slash + 1));
        if (loc.prefix.back() != '/') loc.prefix += '/';
    }
    bool have_endpoint = false;
    while (!query.empty()) {
        auto amp = query.find('&');
        auto kv = query.substr(0, amp);
        query = amp == std::string_view::npos ? "" : query.substr(amp + 1);
        auto eq = kv.find('=');
        std::string value;
        if (eq == std::string_view::npos || !percent_decode(kv.substr(eq + 1), value))
            return refuse("bad parameter '" + std::string(kv) + "'");
        auto key = kv.substr(0, eq);
        std::string why;
        if (key == "endpoint") {
            if (!parse_endpoint(value, loc, why)) return refuse(why);
            have_endpoint = true;
        } else if (key == "ca_file") {
            if (value.empty()) return refuse("empty ca_file");
            loc.ca_file = value;
        } else if (key == "cert_file" || key == "key_file") {
            if (value.empty()) return refuse("empty " + std::string(key));
            (key == "cert_file" ? loc.cert_file : loc.key_file) = value;
        } else if (key == "region") {
            if (value.empty()) return refuse("empty region");
            loc.region = value;
        } else {
            return refuse("unknown parameter '" + std::string(key) + "'");
        }
    }
    if (!have_endpoint) return refuse("endpoint=http://HOST:PORT is required");
    if (!loc.ca_file.empty() && !loc.tls) return refuse("ca_file needs an https endpoint");
    if (loc.cert_file.empty() != loc.key_file.empty()) return refuse("cert_file and key_file go together");
    if (!loc.cert_file.empty() && !loc.tls) return refuse("cert_file needs an https endpoint");
    return loc;
}

}  // namespace ketch::objstore
