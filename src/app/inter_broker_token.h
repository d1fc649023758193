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

// The JWT of an OAUTHBEARER inter-broker login: a token file's
// (inter_broker_token) or a token endpoint's (inter_broker_token_endpoint.h).
class inter_broker_jwt {
public:
    virtual ~inter_broker_jwt() = default;
    // The token a new connection logs in with; never waits on the network.
    virtual std::string current() = 0;
    // The principal's name in the token got at start ("User:" + it).
    virtual const std::string& subject() const = 0;
    // The flag that gave it, for errors ("--inter-broker-oauthbearer-token-file").
    virtual std::string flag() const = 0;
};

// Why `token` cannot log in ("" when it can: a JWT with a `sub_claim` and an
// `exp` in the future), its subject and its exp (ms since the epoch).
std::string jwt_login_problem(const std::string& token, const std::string& sub_claim, std::string& subject,
                              int64_t& exp_ms);

class inter_broker_token : public inter_broker_jwt {
public:
    // Reads `path` now: throws std::runtime_error naming
    // --inter-broker-oauthbearer-token-file when the file cannot be read, is
    // empty, is not a JWT, has no `sub_claim` (the principal the listener
    // will see) or has expired (Kafka's login fails the same way at start).
    inter_broker_token(std::string path, std::string sub_claim);

    // The token for a new connection: the file's contents (trimmed), read
    // again when it changed; a file that cannot be read then (being replaced)
    // keeps the last token, logged.
    std::string current() override;
    const std::string& subject() const override { return subject_; }
    std::string flag() const override { return "--inter-broker-oauthbearer-token-file"; }

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
