// The object store's address:
// s3://BUCKET[/PREFIX]?endpoint=http[s]://HOST:PORT&region=R[&ca_file=PATH]
// [&cert_file=PATH&key_file=PATH] (--object-store). Requests are path-style (http://HOST:PORT/BUCKET/KEY), as
// S3-compatible servers (MinIO, moto, Ceph) expect. An https endpoint's
// certificate is verified against ca_file when given, else the system's
// trust store, and must name the endpoint's host. cert_file and key_file (PEM,
// both or neither) are a client certificate presented to an endpoint that
// requires one (mutual TLS).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace ketch::objstore {

struct s3_location {
    std::string bucket;
    std::string prefix;               // "" or "a/b/": prepended to every key
    std::string host;                 // of the endpoint
    uint16_t port = 80;               // 443 for https when not given
    bool tls = false;                 // an https endpoint
    std::string ca_file;              // PEM certificates to trust instead of the system's (https only)
    std::string cert_file, key_file;  // PEM client certificate (chain) and its private key (https only)
    std::string region = "us-east-1";
    // Host header value: "host" or "host:port" when the port is not the scheme's default.
    std::string host_header() const;
};

// The location, or why the URL is refused ("s3:// URL: ...").
result<s3_location, std::string> parse_s3_url(std::string_view url);

}  // namespace ketch::objstore
