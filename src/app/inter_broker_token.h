// Cluster mode: the JWT this broker logs in with on an OAUTHBEARER
// inter-broker listener (--inter-broker-oauthbearer-token-file), read from a
// file that something else keeps fresh (a Kubernetes projected service
// account token, a sidecar running the client-credentials flow). As Kafka's
// FileJwtRetriever (sasl.oauthbearer.token.endpoint.url=file:...) with
// CachedFile's lastModified policy: the file is read again when its
// modification time or size changed, so a rotated token is used by the next
// connection without a restart. docs/cluster.md "Inter-broker calls".
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>

namespace ketch::app {

class inter_broker_token {
public:
    // Reads `path` now: throws std::runtime_error naming
    // --inter-broker-oauthbearer-token-file when the file cannot be read, is
    // empty, is not a JWT, has no `sub_claim` (the principal the listener
    // will see) or has expired (Kafka's login fails the same way at start).
    inter_broker_token(std::string path, std::string sub_claim);

    // The token for a new connection: the file's contents (trimmed), read
    // again when it changed; a file that cannot be read then (being replaced)
    // keeps the last token, logged.
    std::string current();
    // The principal's name in the token read at start ("User:" + it).
    const std::string& subject() const { return subject_; }

private:
    struct stamp {
        std::filesystem::file_time_type modified;
        std::uintmax_t size = 0;
        bool operator==(const stamp&) const = default;
    };
    const std::string path_, sub_claim_;
    std::string subject_;
    std::mutex mu_;
    stamp read_at_;      // under mu_
    std::string token_;  // under mu_
};

}  // namespace ketch::app
