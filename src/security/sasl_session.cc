#include "security/sasl_session.h"

#include <algorithm>
#include <optional>

#include "security/oauthbearer.h"

namespace ketch::security {

namespace {
constexpr int16_t k_api_versions = 18, k_sasl_handshake = 17, k_sasl_authenticate = 36;
constexpr int16_t k_unsupported_sasl_mechanism = 33, k_illegal_sasl_state = 34, k_sasl_authentication_failed = 58;
}  // namespace

sasl_session::admit sasl_session::admit_request(int16_t api_key, int64_t now_ms) {
    switch (state_) {
        case state::expect_versions_or_handshake:
            return api_key == k_api_versions || api_key == k_sasl_handshake ? admit::pass : admit::close;
        case state::expect_handshake: return api_key == k_sasl_handshake ? admit::pass : admit::close;
        case state::authenticate: return api_key == k_sasl_authenticate ? admit::pass : admit::illegal_state;
        case state::complete:
            // KIP-368: an expired session may only start re-authentication.
            if (api_key == k_sasl_handshake && client_supports_reauth_) {
                state_ = state::expect_handshake;
                return admit::pass;
            }
            if (expires_at_ms_ > 0 && now_ms > expires_at_ms_) return admit::close;
            return admit::pass;
        case state::reauth_bad_mechanism:
        case state::authenticate_raw:
        case state::failed: break;
    }
    return admit::close;
}

void sasl_session::api_versions_answered() {
    if (state_ == state::expect_versions_or_handshake) state_ = state::expect_handshake;
}

sasl_session::handshake_result sasl_session::handshake(const std::string& mechanism, int16_t version) {
    if (state_ != state::expect_versions_or_handshake && state_ != state::expect_handshake)
        return {k_illegal_sasl_state, false};  // answered by KafkaApis: after authentication
    auto& en = cfg_.enabled_mechanisms;
    if (std::find(en.begin(), en.end(), mechanism) == en.end()) {
        state_ = state::failed;
        return {k_unsupported_sasl_mechanism, true};
    }
    if (reauthenticating() && mechanism != mechanism_) {
        bad_mechanism_message_ = "SASL mechanism '" + mechanism +
                                 "' requested by client is not supported for re-authentication of mechanism '" +
                                 mechanism_ + "'";
        state_ = state::reauth_bad_mechanism;
        return {0, false};
    }
    mech_ = mechanism == "OAUTHBEARER"
                ? (cfg_.oauthbearer ? std::make_unique<oauthbearer_server>(cfg_.oauthbearer) : nullptr)
                : make_mechanism(mechanism, creds_, tokens_);
    if (!mech_) {
        state_ = state::failed;
        return {k_unsupported_sasl_mechanism, true};
    }
    mechanism_ = mechanism;
    state_ = version >= 1 ? state::authenticate : state::authenticate_raw;
    return {0, false};
}

int64_t sasl_session::session_lifetime_ms(const sasl_step& s) const {
    if (s.credential_lifetime_ms < 0) return cfg_.reauth_ms > 0 ? cfg_.reauth_ms : 0;
    return cfg_.reauth_ms > 0 ? std::min(cfg_.reauth_ms, s.credential_lifetime_ms) : s.credential_lifetime_ms;
}

bool sasl_session::complete(const sasl_step& s, int64_t now_ms, std::string& message) {
    const std::string& user = s.user;
    std::string p = "User:" + user;
    if (cfg_.check_user) {
        if (auto why = cfg_.check_user(user, mechanism_); !why.empty()) {
            message = std::move(why);
            return false;
        }
    }
    if (reauthenticating() && p != principal_) {
        message = "Cannot change principals during re-authentication from " + principal_.substr(0, 4) + "." +
                  principal_.substr(5) + ": User." + user;
        return false;
    }
    principal_ = p;
    token_authenticated_ = s.token_authenticated;
    bool expires = cfg_.reauth_ms > 0 || s.credential_lifetime_ms >= 0;
    expires_at_ms_ = expires ? now_ms + session_lifetime_ms(s) : 0;
    state_ = state::complete;
    return true;
}

sasl_session::auth_result sasl_session::authenticate(std::string_view token, int16_t version, int64_t now_ms,
                                                     sasl_lookup lookup) {
    auth_result r;
    if (state_ == state::complete || state_ == state::expect_versions_or_handshake ||
        state_ == state::expect_handshake) {
        // Kafka: after authentication SaslAuthenticate reaches KafkaApis.
        r.error = k_illegal_sasl_state;
        r.message = "SaslAuthenticate request received after successful authentication";
        return r;
    }
    if (state_ == state::reauth_bad_mechanism) {
        state_ = state::failed;
        return {k_sasl_authentication_failed, bad_mechanism_message_, {}, 0, true};
    }
    if (state_ != state::authenticate || !mech_) {
        state_ = state::failed;
        return {k_illegal_sasl_state, {}, {}, 0, true};
    }
    if (version > 0) client_supports_reauth_ = true;
    mech_->set_lookup(lookup);
    sasl_step s = mech_->evaluate(token);
    if (s.what == sasl_step::outcome::needs_read) {
        r.needs_read = true;
        return r;
    }
    if (s.what == sasl_step::outcome::complete && !complete(s, now_ms, s.client_message))
        s.what = sasl_step::outcome::failed;
    if (s.what == sasl_step::outcome::failed) {
        state_ = state::failed;
        r.error = k_sasl_authentication_failed;
        r.message = !s.client_message.empty() ? s.client_message
                                              : std::string("Authentication failed during ") +
                                                    (reauthenticating() ? "re-authentication" : "authentication") +
                                                    " due to invalid credentials with SASL mechanism " + mechanism_;
        r.close = true;
        r.detail = s.detail.empty() ? s.client_message : s.detail;
        return r;
    }
    r.token = std::move(s.response);
    if (s.what == sasl_step::outcome::complete) r.session_lifetime_ms = session_lifetime_ms(s);
    return r;
}

std::optional<std::string> sasl_session::raw_token(std::string_view token, int64_t now_ms) {
    if (state_ != state::authenticate_raw || !mech_) {
        state_ = state::failed;
        return std::nullopt;
    }
    mech_->set_lookup(sasl_lookup::any);
    sasl_step s = mech_->evaluate(token);
    std::string ignored;
    if (s.what == sasl_step::outcome::failed ||
        (s.what == sasl_step::outcome::complete && !complete(s, now_ms, ignored))) {
        state_ = state::failed;
        return std::nullopt;
    }
    return std::move(s.response);
}

std::string_view to_string(sasl_session::state s) {
    switch (s) {
        case sasl_session::state::expect_versions_or_handshake: return "expect_versions_or_handshake";
        case sasl_session::state::expect_handshake: return "expect_handshake";
        case sasl_session::state::authenticate: return "authenticate";
        case sasl_session::state::authenticate_raw: return "authenticate_raw";
        case sasl_session::state::complete: return "complete";
        case sasl_session::state::reauth_bad_mechanism: return "reauth_bad_mechanism";
        case sasl_session::state::failed: return "failed";
    }
    return "?";
}

}  // namespace ketch::security
