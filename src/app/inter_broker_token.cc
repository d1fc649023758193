#include "app/inter_broker_token.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "base/clock.h"
#include "security/jwt.h"

namespace ketch::app {

namespace {

constexpr const char* k_flag = "--inter-broker-oauthbearer-token-file ";

std::string trimmed(std::string s) {
    auto b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// The file's contents, trimmed (Kafka's FileJwtRetriever trims them too);
// false when it cannot be read.
bool read_token(const std::string& path, std::string& out) {
    std::ifstream in(path);
    if (!in) return false;
    std::stringstream ss;
    ss << in.rdbuf();
    out = trimmed(ss.str());
    return true;
}

}  // namespace

std::string jwt_login_problem(const std::string& token, const std::string& sub_claim, std::string& subject,
                              int64_t& exp_ms) {
    if (token.empty()) return "is empty";
    auto p = security::parse_jwt(token, true);
    if (!p.token) return "is not a JWT: " + p.error;
    auto& claims = p.token->claims;
    auto sub = claims.find(sub_claim);
    if (sub == claims.end() || !sub->is_string() || sub->get<std::string>().empty())
        return "has no '" + sub_claim + "' claim (the principal)";
    subject = sub->get<std::string>();
    bool bad = false;
    auto exp = security::claim_time_ms(claims, "exp", bad);
    if (bad || !exp) return "has no numeric 'exp' claim";
    auto now = wall_ms();
    if (*exp <= now) return "has expired (exp=" + std::to_string(*exp / 1000) + ")";
    exp_ms = *exp;
    return "";
}

namespace {

std::string check(const std::string& token, const std::string& sub_claim, std::string& subject) {
    int64_t exp_ms = 0;
    return jwt_login_problem(token, sub_claim, subject, exp_ms);
}

}  // namespace

inter_broker_token::inter_broker_token(std::string path, std::string sub_claim)
    : path_(std::move(path)), sub_claim_(std::move(sub_claim)) {
    std::error_code ec;
    read_at_ = {std::filesystem::last_write_time(path_, ec), std::filesystem::file_size(path_, ec)};
    if (ec || !read_token(path_, token_)) throw std::runtime_error(k_flag + path_ + ": cannot read it");
    if (auto why = check(token_, sub_claim_, subject_); !why.empty())
        throw std::runtime_error(k_flag + path_ + ": the token " + why);
}

std::string inter_broker_token::current() {
    std::lock_guard l(mu_);
    std::error_code ec;
    stamp now{std::filesystem::last_write_time(path_, ec), 0};
    if (!ec) now.size = std::filesystem::file_size(path_, ec);
    if (ec) {
        spdlog::warn("inter-broker OAUTHBEARER: cannot stat {} ({}); logging in with the token read before", path_,
                     ec.message());
        return token_;
    }
    if (now == read_at_) return token_;
    std::string fresh;
    if (!read_token(path_, fresh) || fresh.empty()) {
        spdlog::warn("inter-broker OAUTHBEARER: cannot read {}; logging in with the token read before", path_);
        return token_;
    }
    read_at_ = now;
    token_ = std::move(fresh);
    std::string subject;
    auto why = check(token_, sub_claim_, subject);
    if (why.empty())
        spdlog::info("inter-broker OAUTHBEARER: read a new token from {} (as User:{})", path_, subject);
    else
        spdlog::warn("inter-broker OAUTHBEARER: the new token in {} {}; logging in with it anyway", path_, why);
    return token_;
}

}  // namespace ketch::app
