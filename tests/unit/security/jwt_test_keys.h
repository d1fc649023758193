// Keys made at test time with OpenSSL, and JWTs signed with them, for the
// OAUTHBEARER tests: a JWKS entry for each public key, RS256 / ES256
// signatures in their JWS forms (ES256: raw r||s).
#pragma once

#include <memory>
#include <string>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <nlohmann/json.hpp>

#include "security/jwt.h"

namespace ketch::security::test {

using pkey_ptr = std::shared_ptr<EVP_PKEY>;

inline pkey_ptr rsa_key(int bits = 2048) {
    return {EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", size_t(bits)), &EVP_PKEY_free};
}
inline pkey_ptr ec_key() { return {EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"), &EVP_PKEY_free}; }

inline std::string bn_param(EVP_PKEY* k, const char* name) {
    BIGNUM* bn = nullptr;
    EVP_PKEY_get_bn_param(k, name, &bn);
    std::string out(size_t(BN_num_bytes(bn)), '\0');
    BN_bn2bin(bn, reinterpret_cast<unsigned char*>(out.data()));
    BN_free(bn);
    return out;
}

// The public key as a JWK.
inline nlohmann::json jwk_of(EVP_PKEY* k, const std::string& kid) {
    nlohmann::json j{{"kid", kid}, {"use", "sig"}};
    if (EVP_PKEY_is_a(k, "RSA")) {
        j.update({{"kty", "RSA"},
                  {"alg", "RS256"},
                  {"n", base64url_encode(bn_param(k, OSSL_PKEY_PARAM_RSA_N))},
                  {"e", base64url_encode(bn_param(k, OSSL_PKEY_PARAM_RSA_E))}});
    } else {
        unsigned char pub[65];
        size_t len = 0;
        EVP_PKEY_get_octet_string_param(k, OSSL_PKEY_PARAM_PUB_KEY, pub, sizeof pub, &len);
        std::string p(reinterpret_cast<char*>(pub), len);
        j.update({{"kty", "EC"},
                  {"crv", "P-256"},
                  {"x", base64url_encode(p.substr(1, 32))},
                  {"y", base64url_encode(p.substr(33, 32))}});
    }
    return j;
}

inline std::string sign(EVP_PKEY* k, const std::string& input) {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    size_t len = 0;
    EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, k);
    EVP_DigestSign(ctx, nullptr, &len, reinterpret_cast<const unsigned char*>(input.data()), input.size());
    std::string sig(len, '\0');
    EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(sig.data()), &len,
                   reinterpret_cast<const unsigned char*>(input.data()), input.size());
    EVP_MD_CTX_free(ctx);
    sig.resize(len);
    if (EVP_PKEY_is_a(k, "RSA")) return sig;
    // DER ECDSA-Sig-Value -> r||s
    const unsigned char* p = reinterpret_cast<const unsigned char*>(sig.data());
    ECDSA_SIG* es = d2i_ECDSA_SIG(nullptr, &p, long(sig.size()));
    std::string raw(64, '\0');
    BN_bn2binpad(ECDSA_SIG_get0_r(es), reinterpret_cast<unsigned char*>(raw.data()), 32);
    BN_bn2binpad(ECDSA_SIG_get0_s(es), reinterpret_cast<unsigned char*>(raw.data()) + 32, 32);
    ECDSA_SIG_free(es);
    return raw;
}

inline std::string make_jwt(const nlohmann::json& header, const nlohmann::json& claims, EVP_PKEY* k) {
    std::string input = base64url_encode(header.dump()) + "." + base64url_encode(claims.dump());
    return input + "." + (k ? base64url_encode(sign(k, input)) : std::string{});
}

}  // namespace ketch::security::test
