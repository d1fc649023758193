#include "security/jwks.h"

#include <stdexcept>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/param_build.h>
#include <nlohmann/json.hpp>

#include "security/jwt.h"

namespace ketch::security {

namespace {

using bn_ptr = std::unique_ptr<BIGNUM, decltype(&BN_free)>;

bn_ptr to_bn(std::string_view raw) {
    return {BN_bin2bn(reinterpret_cast<const unsigned char*>(raw.data()), int(raw.size()), nullptr), &BN_free};
}

std::string b64_member(const nlohmann::json& k, const char* name) {
    auto it = k.find(name);
    if (it == k.end() || !it->is_string()) return {};
    return base64url_decode(it->get<std::string>()).value_or(std::string{});
}

std::string string_member(const nlohmann::json& k, const char* name) {
    auto it = k.find(name);
    return it != k.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

// EVP_PKEY_fromdata for a public key of `type` ("RSA" or "EC") from `params`.
std::shared_ptr<EVP_PKEY> from_params(const char* type, OSSL_PARAM_BLD* bld) {
    OSSL_PARAM* params = OSSL_PARAM_BLD_to_param(bld);
    EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr);
    EVP_PKEY* pkey = nullptr;
    if (!params || !ctx || EVP_PKEY_fromdata_init(ctx) <= 0 ||
        EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0)
        pkey = nullptr;
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    return pkey ? std::shared_ptr<EVP_PKEY>(pkey, &EVP_PKEY_free) : nullptr;
}

std::shared_ptr<EVP_PKEY> rsa_key(const nlohmann::json& k) {
    auto n = b64_member(k, "n"), e = b64_member(k, "e");
    if (n.empty() || e.empty()) return nullptr;
    auto bn_n = to_bn(n), bn_e = to_bn(e);
    std::unique_ptr<OSSL_PARAM_BLD, decltype(&OSSL_PARAM_BLD_free)> bld(OSSL_PARAM_BLD_new(), &OSSL_PARAM_BLD_free);
    if (!bn_n || !bn_e || !bld || !OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get()) ||
        !OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get()))
        return nullptr;
    auto key = from_params("RSA", bld.get());
    return key && EVP_PKEY_get_bits(key.get()) >= 2048 ? key : nullptr;  // jose4j's minimum for RS256
}

std::shared_ptr<EVP_PKEY> ec_p256_key(const nlohmann::json& k) {
    if (string_member(k, "crv") != "P-256") return nullptr;
    auto x = b64_member(k, "x"), y = b64_member(k, "y");
    if (x.size() != 32 || y.size() != 32) return nullptr;
    std::string point = "\x04" + x + y;  // uncompressed SEC1 point
    std::unique_ptr<OSSL_PARAM_BLD, decltype(&OSSL_PARAM_BLD_free)> bld(OSSL_PARAM_BLD_new(), &OSSL_PARAM_BLD_free);
    if (!bld || !OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) ||
        !OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size()))
        return nullptr;
    return from_params("EC", bld.get());
}

bool fits(const jwk& k, const std::string& alg) {
    if (!k.alg.empty() && k.alg != alg) return false;
    return (alg == "RS256" && k.kty == "RSA") || (alg == "ES256" && k.kty == "EC");
}

// A JWS ES256 signature (r||s, 32 bytes each) as the DER ECDSA-Sig-Value EVP verifies.
std::string es256_der(std::string_view sig) {
    if (sig.size() != 64) return {};
    ECDSA_SIG* s = ECDSA_SIG_new();
    auto r = to_bn(sig.substr(0, 32)), ss = to_bn(sig.substr(32));
    if (!s || !r || !ss || !ECDSA_SIG_set0(s, r.get(), ss.get())) {
        ECDSA_SIG_free(s);
        return {};
    }
    r.release();
    ss.release();
    unsigned char* der = nullptr;
    int n = i2d_ECDSA_SIG(s, &der);
    std::string out = n > 0 ? std::string(reinterpret_cast<char*>(der), size_t(n)) : std::string{};
    OPENSSL_free(der);
    ECDSA_SIG_free(s);
    return out;
}

}  // namespace

jwk_set jwk_set::parse(std::string_view json_text) {
    auto j = nlohmann::json::parse(json_text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("keys") || !j["keys"].is_array())
        throw std::invalid_argument("not a JSON Web Key Set (an object with a \"keys\" array)");
    jwk_set set;
    for (auto& k : j["keys"]) {
        if (!k.is_object()) continue;
        auto use = string_member(k, "use");
        if (!use.empty() && use != "sig") continue;
        jwk key{string_member(k, "kid"), string_member(k, "kty"), string_member(k, "alg"), nullptr};
        if (key.kty == "RSA")
            key.key = rsa_key(k);
        else if (key.kty == "EC")
            key.key = ec_p256_key(k);
        if (key.key) set.keys_.push_back(std::move(key));
    }
    return set;
}

const jwk* jwk_set::find(const std::string& kid, const std::string& alg, std::string& why) const {
    for (auto& k : keys_)
        if (fits(k, alg) && (kid.empty() || k.kid == kid)) return &k;
    why = "Unable to find a suitable verification key for JWS w/ header {\"alg\":\"" + alg + "\"" +
          (kid.empty() ? std::string{} : ",\"kid\":\"" + kid + "\"") + "} from " + std::to_string(keys_.size()) +
          " JWK(s)";
    return nullptr;
}

bool supported_jws_alg(const std::string& alg) { return alg == "RS256" || alg == "ES256"; }

bool verify_jws(const std::string& alg, EVP_PKEY* key, std::string_view input, std::string_view signature) {
    std::string der;
    if (alg == "ES256") {
        der = es256_der(signature);
        if (der.empty()) return false;
        signature = der;
    } else if (alg != "RS256") {
        return false;
    }
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    bool ok = ctx && EVP_DigestVerifyInit(ctx, nullptr, EVP_sha256(), nullptr, key) == 1 &&
              EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                               reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
    EVP_MD_CTX_free(ctx);
    return ok;
}

}  // namespace ketch::security
