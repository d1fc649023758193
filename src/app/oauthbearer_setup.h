// SASL/OAUTHBEARER's token validator, built from the --sasl-oauthbearer-*
// flags: unsecured JWTs (development), or JWTs signed by a key of a JWKS
// read from a file or fetched from an http:// URL (again every
// --sasl-oauthbearer-jwks-refresh-ms on a thread of its own, and when a token
// names a kid the keys lack, at most once per 10 s; a failed fetch keeps the
// keys it has, as Kafka's RefreshingHttpsJwks does).
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "app/options.h"
#include "security/jwks.h"
#include "security/oauthbearer_validator.h"

namespace ketch::app {

class oauthbearer_setup {
public:
    // Throws std::runtime_error on bad flags or a JWKS that cannot be read.
    explicit oauthbearer_setup(const options& opt);
    ~oauthbearer_setup();
    oauthbearer_setup(const oauthbearer_setup&) = delete;
    oauthbearer_setup& operator=(const oauthbearer_setup&) = delete;

    // null when neither --sasl-oauthbearer-unsecured nor --sasl-oauthbearer-jwks is given.
    std::shared_ptr<const security::oauthbearer_validator> validator() const { return validator_; }

private:
    void refresh_loop(std::stop_token stop);
    void kid_missing();

    std::string url_;
    int64_t refresh_ms_ = 0;
    std::shared_ptr<security::jwks_keys> keys_;
    std::shared_ptr<const security::oauthbearer_validator> validator_;
    std::mutex mu_;
    bool refresh_now_ = false;                          // under mu_
    std::chrono::steady_clock::time_point last_fetch_;  // under mu_
    std::condition_variable_any wake_;
    std::jthread refresher_;
};

}  // namespace ketch::app
