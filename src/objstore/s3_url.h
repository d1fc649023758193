// The object store's address: s3://BUCKET[/PREFIX]?endpoint=http://HOST:PORT&region=R
// (--object-store). Requests are path-style (http://HOST:PORT/BUCKET/KEY), as
// S3-compatible servers (MinIO, moto, Ceph) expect.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace ketch::objstore {

struct s3_location {
    std::string bucket;
    std::string prefix;  // "" or "a/b/": prepended to every key
    std::string host;    // of the endpoint
    uint16_t port = 80;
    std::string region = "us-east-1";
    // Host header value: "host" or "host:port" when the port is not 80.
    std::string host_header() const;
};

// The location, or why the URL is refused ("s3:// URL: ..."). Only plain
// http endpoints are served for now (TLS to the object store is not there yet).
result<s3_location, std::string> parse_s3_url(std::string_view url);

}  // namespace ketch::objstore
