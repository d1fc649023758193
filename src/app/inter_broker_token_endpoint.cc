#include "app/inter_broker_token_endpoint.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "base/clock.h"

namespace ketch::app {

namespace {

constexpr int64_t k_backoff_ms = 100, k_backoff_max_ms = 10000;  // Kafka's sasl.login.retry.backoff(.max).ms
constexpr double k_refresh_window = 0.8;                         // sasl.login.refresh.window.factor

int64_t next_backoff(int64_t ms) { return std::min(ms * 2, k_backoff_max_ms); }

}  // namespace

inter_broker_token_endpoint::inter_broker_token_endpoint(token_endpoint_settings s, std::string sub_claim)
    : settings_(std::move(s)), sub_claim_(std::move(sub_claim)) {
    const std::string flag = "--inter-broker-oauthbearer-token-endpoint " + settings_.url + ": ";
    if (settings_.client_id.empty() || settings_.client_secret.empty())
        throw std::runtime_error(flag +
                                 "give the client id and secret with --inter-broker-oauthbearer-client-id (or "
                                 "$KETCH_INTER_BROKER_OAUTHBEARER_CLIENT_ID) and "
                                 "--inter-broker-oauthbearer-client-secret-file (or "
                                 "$KETCH_INTER_BROKER_OAUTHBEARER_CLIENT_SECRET)");
    try {
        check_token_endpoint_url(settings_.url);
    } catch (const std::invalid_argument& e) {
        throw std::runtime_error(flag + e.what());
    }
    const int64_t give_up = wall_ms() + k_backoff_max_ms;
    for (int64_t backoff = k_backoff_ms;; backoff = next_backoff(backoff)) {
        try {
            auto t = fetch({});
            subject_ = t.subject;
            jwt_ = std::move(t.jwt);
            refresh_at_ms_ = t.refresh_at_ms;
            fetched_ = 1;
            break;
        } catch (const token_endpoint_error& e) {
            if (!e.retriable || wall_ms() + backoff > give_up) throw std::runtime_error(flag + e.what());
            spdlog::warn("inter-broker OAUTHBEARER: {}; trying again in {} ms", e.what(), backoff);
            std::this_thread::sleep_for(std::chrono::milliseconds(backoff));
        }
    }
    spdlog::info("inter-broker OAUTHBEARER: got a token from {} (as User:{}), the next at {} ms", settings_.url,
                 subject_, refresh_at_ms_ - wall_ms());
    refresher_ = std::jthread([this](std::stop_token st) { refresh_loop(st); });
}

inter_broker_token_endpoint::~inter_broker_token_endpoint() {
    if (refresher_.joinable()) {
        refresher_.request_stop();
        wake_.notify_all();
    }
}

std::string inter_broker_token_endpoint::current() {
    std::lock_guard l(mu_);
    return jwt_;
}

int64_t inter_broker_token_endpoint::fetched() const {
    std::lock_guard l(mu_);
    return fetched_;
}

inter_broker_token_endpoint::token inter_broker_token_endpoint::fetch(std::stop_token stop) const {
    const int64_t asked = wall_ms();
    auto answer = request_token(settings_, stop);
    token t;
    int64_t exp_ms = 0;
    if (auto why = jwt_login_problem(answer.access_token, sub_claim_, t.subject, exp_ms); !why.empty())
        throw token_endpoint_error("the token endpoint's access_token " + why, false);
    int64_t ends = exp_ms;
    if (answer.expires_in_s && *answer.expires_in_s > 0)
        ends = std::min(ends, asked + std::min<int64_t>(*answer.expires_in_s, INT32_MAX) * 1000);
    t.refresh_at_ms = asked + int64_t(double(std::max<int64_t>(ends - asked, 0)) * k_refresh_window);
    t.jwt = std::move(answer.access_token);
    return t;
}

void inter_broker_token_endpoint::refresh_loop(std::stop_token stop) {
    int64_t backoff = k_backoff_ms;
    int64_t due;
    {
        std::lock_guard l(mu_);
        due = refresh_at_ms_;
    }
    while (!stop.stop_requested()) {
        {
            std::unique_lock l(mu_);
            const int64_t wait = due - wall_ms();
            if (wait > 0) {
                wake_.wait_for(l, stop, std::chrono::milliseconds(wait), [] { return false; });
                continue;  // stopped, or due: the loop's condition and the wait again
            }
        }
        if (stop.stop_requested()) return;
        try {
            auto t = fetch(stop);
            if (t.subject != subject_)
                spdlog::warn("inter-broker OAUTHBEARER: the new token's subject is {}, not {}: logging in with it",
                             t.subject, subject_);
            std::lock_guard l(mu_);
            jwt_ = std::move(t.jwt);
            refresh_at_ms_ = due = t.refresh_at_ms;
            ++fetched_;
            backoff = k_backoff_ms;
            spdlog::info("inter-broker OAUTHBEARER: got a new token from {}, the next in {} ms", settings_.url,
                         due - wall_ms());
        } catch (const token_endpoint_error& e) {
            if (stop.stop_requested()) return;
            spdlog::warn(
                "inter-broker OAUTHBEARER: cannot get a new token from {}: {}; logging in with the last one, "
                "trying again in {} ms",
                settings_.url, e.what(), backoff);
            due = wall_ms() + backoff;
            backoff = next_backoff(backoff);
        }
    }
}

}  // namespace ketch::app
