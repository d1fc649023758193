// Cluster mode: the JWT this broker logs in with on an OAUTHBEARER
// inter-broker listener, fetched from an OAuth token endpoint with the
// client-credentials grant (--inter-broker-oauthbearer-token-endpoint; Kafka's
// sasl.oauthbearer.token.endpoint.url=https://... with
// sasl.oauthbearer.client.credentials.client.id/secret and scope,
// app/token_endpoint.h).
//
// The first token is fetched at start, retried with backoff (100 ms doubling
// to 10 s, Kafka's sasl.login.retry.backoff.ms/.max.ms) for up to 10 s; an
// answer Kafka does not retry (401 for a wrong secret, ...) or a token that
// cannot log in (not a JWT, no subject, expired) fails the start. A thread of
// its own then fetches the next one at 80% of the token's lifetime (Kafka's
// sasl.login.refresh.window.factor; the lifetime ends at the JWT's exp or
// after the answer's expires_in, whichever comes first), retrying with the
// same backoff for as long as it fails (the current token kept, logged). A
// connection logs in with the newest token: current() only reads it.
// docs/cluster.md "Inter-broker calls".
#pragma once

#include <condition_variable>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>

#include "app/inter_broker_token.h"
#include "app/token_endpoint.h"

namespace ketch::app {

class inter_broker_token_endpoint : public inter_broker_jwt {
public:
    // Throws std::runtime_error naming the flag when no token is got at start.
    inter_broker_token_endpoint(token_endpoint_settings s, std::string sub_claim);
    ~inter_broker_token_endpoint() override;

    std::string current() override;
    const std::string& subject() const override { return subject_; }
    std::string flag() const override { return "--inter-broker-oauthbearer-token-endpoint"; }

    // Tokens fetched since start (the first included), for logs and tests.
    int64_t fetched() const;

private:
    struct token {
        std::string jwt, subject;
        int64_t refresh_at_ms = 0;  // wall clock: 80% of its lifetime
    };
    // One request and the token's checks; throws token_endpoint_error.
    token fetch(std::stop_token stop) const;
    void refresh_loop(std::stop_token stop);

    const token_endpoint_settings settings_;
    const std::string sub_claim_;
    std::string subject_;
    mutable std::mutex mu_;
    std::condition_variable_any wake_;
    std::string jwt_;            // under mu_
    int64_t refresh_at_ms_ = 0;  // under mu_
    int64_t fetched_ = 0;        // under mu_
    std::jthread refresher_;
};

}  // namespace ketch::app
