#include "app/oauthbearer_setup.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "cli/http_client.h"

namespace ketch::app {

namespace {

std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');) {
        auto b = item.find_first_not_of(' '), e = item.find_last_not_of(' ');
        if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
    }
    return out;
}

bool is_url(const std::string& s) { return s.rfind("http://", 0) == 0 || s.rfind("https://", 0) == 0; }

// The JWKS document: a file's contents or an http:// URL's body.
std::string read_jwks(const std::string& where) {
    if (where.rfind("https://", 0) == 0)
        throw std::runtime_error("--sasl-oauthbearer-jwks: https URLs are not supported; fetch the JWKS to a file");
    if (!is_url(where)) {
        std::string path = where.rfind("file://", 0) == 0 ? where.substr(7) : where;
        std::ifstream f(path);
        if (!f) throw std::runtime_error("--sasl-oauthbearer-jwks: cannot read " + path);
        std::stringstream ss;
        ss << f.rdbuf();
        return ss.str();
    }
    auto slash = where.find('/', 7);
    std::string base = where.substr(0, slash), path = slash == std::string::npos ? "/" : where.substr(slash);
    try {
        auto r = cli::http_call(base, "GET", path);
        if (r.status != 200) throw std::runtime_error("HTTP " + std::to_string(r.status));
        return r.body;
    } catch (const std::exception& e) {
        throw std::runtime_error("--sasl-oauthbearer-jwks: cannot fetch " + where + ": " + e.what());
    }
}

std::shared_ptr<const security::jwk_set> load_keys(const std::string& where) {
    try {
        auto set = std::make_shared<const security::jwk_set>(security::jwk_set::parse(read_jwks(where)));
        if (set->size() == 0) spdlog::warn("OAUTHBEARER: the JWKS {} has no RS256 or ES256 key", where);
        return set;
    } catch (const std::invalid_argument& e) {
        throw std::runtime_error("--sasl-oauthbearer-jwks " + where + ": " + e.what());
    }
}

}  // namespace

oauthbearer_setup::oauthbearer_setup(const options& opt) {
    if (opt.oauthbearer_unsecured && !opt.oauthbearer_jwks.empty())
        throw std::runtime_error("--sasl-oauthbearer-unsecured and --sasl-oauthbearer-jwks exclude each other");
    if (opt.oauthbearer_unsecured) {
        security::unsecured_validator_options o;
        o.principal_claim = opt.oauthbearer_sub_claim;
        o.scope_claim = opt.oauthbearer_scope_claim;
        try {
            o.required_scope = security::parse_scope(opt.oauthbearer_unsecured_required_scope);
        } catch (const std::invalid_argument& e) {
            throw std::runtime_error(std::string("--sasl-oauthbearer-unsecured-required-scope: ") + e.what());
        }
        o.clock_skew_ms = opt.oauthbearer_unsecured_clock_skew_ms;
        validator_ = security::make_unsecured_validator(std::move(o));
        spdlog::warn(
            "OAUTHBEARER accepts UNSECURED JWTs (--sasl-oauthbearer-unsecured): anyone can log in as "
            "anyone; for development only");
        return;
    }
    if (opt.oauthbearer_jwks.empty()) return;
    keys_ = std::make_shared<security::jwks_keys>();
    keys_->set(load_keys(opt.oauthbearer_jwks));
    security::signed_validator_options o;
    o.keys = keys_;
    o.audiences = split_commas(opt.oauthbearer_expected_audience);
    o.issuer = opt.oauthbearer_expected_issuer;
    o.clock_skew_s = opt.oauthbearer_clock_skew_seconds;
    o.sub_claim = opt.oauthbearer_sub_claim;
    o.scope_claim = opt.oauthbearer_scope_claim;
    validator_ = security::make_signed_validator(std::move(o));
    spdlog::info("OAUTHBEARER: JWTs signed by the {} key(s) of {}", keys_->get()->size(), opt.oauthbearer_jwks);
    if (is_url(opt.oauthbearer_jwks)) {
        url_ = opt.oauthbearer_jwks;
        refresh_ms_ = opt.oauthbearer_jwks_refresh_ms;
        last_fetch_ = std::chrono::steady_clock::now();
        keys_->on_refresh_request([this] { kid_missing(); });
        refresher_ = std::jthread([this](std::stop_token st) { refresh_loop(st); });
    }
}

oauthbearer_setup::~oauthbearer_setup() {
    if (keys_) keys_->on_refresh_request({});
    if (refresher_.joinable()) {
        refresher_.request_stop();
        wake_.notify_all();
    }
}

void oauthbearer_setup::kid_missing() {
    {
        std::lock_guard l(mu_);
        if (std::chrono::steady_clock::now() - last_fetch_ < std::chrono::seconds(10)) return;
        refresh_now_ = true;
    }
    wake_.notify_all();
}

void oauthbearer_setup::refresh_loop(std::stop_token stop) {
    while (!stop.stop_requested()) {
        {
            std::unique_lock l(mu_);
            wake_.wait_for(l, stop, std::chrono::milliseconds(refresh_ms_), [this] { return refresh_now_; });
            refresh_now_ = false;
            last_fetch_ = std::chrono::steady_clock::now();
        }
        if (stop.stop_requested()) return;
        try {
            keys_->set(load_keys(url_));
        } catch (const std::exception& e) {
            spdlog::warn("OAUTHBEARER: keeping the keys we have: {}", e.what());
        }
    }
}

}  // namespace ketch::app
