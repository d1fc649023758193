#include "security/crypto.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <stdexcept>

namespace ketch::security {

namespace {
const EVP_MD* md(hash_alg alg) { return alg == hash_alg::sha256 ? EVP_sha256() : EVP_sha512(); }
const unsigned char* u(std::string_view s) { return reinterpret_cast<const unsigned char*>(s.data()); }
}  // namespace

std::string hmac(hash_alg alg, std::string_view key, std::string_view data) {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (!HMAC(md(alg), key.data(), int(key.size()), u(data), data.size(), out, &len))
        throw std::runtime_error("HMAC failed");
    return std::string(reinterpret_cast<char*>(out), len);
}

std::string digest(hash_alg alg, std::string_view data) {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (!EVP_Digest(data.data(), data.size(), out, &len, md(alg), nullptr)) throw std::runtime_error("digest failed");
    return std::string(reinterpret_cast<char*>(out), len);
}

std::string pbkdf2(hash_alg alg, std::string_view password, std::string_view salt, int iterations) {
    std::string out(size_t(EVP_MD_get_size(md(alg))), '\0');
    if (!PKCS5_PBKDF2_HMAC(password.data(), int(password.size()), u(salt), int(salt.size()), iterations, md(alg),
                           int(out.size()), reinterpret_cast<unsigned char*>(out.data())))
        throw std::runtime_error("PBKDF2 failed");
    return out;
}

std::string random_bytes(size_t n) {
    std::string out(n, '\0');
    if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), int(n)) != 1)
        throw std::runtime_error("RAND_bytes failed");
    return out;
}

std::string random_alnum(size_t n) {
    static constexpr char k_chars[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    std::string raw = random_bytes(n), out(n, '0');
    for (size_t i = 0; i < n; ++i) out[i] = k_chars[uint8_t(raw[i]) % 36];
    return out;
}

std::string base64_encode(std::string_view raw) {
    std::string out(4 * ((raw.size() + 2) / 3) + 1, '\0');
    int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), u(raw), int(raw.size()));
    out.resize(size_t(n));
    return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
    if (text.size() % 4 != 0) return std::nullopt;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/' ||
                  (c == '=' && i + 2 >= text.size());
        if (!ok) return std::nullopt;
    }
    std::string out(3 * text.size() / 4 + 1, '\0');
    int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()), u(text), int(text.size()));
    if (n < 0) return std::nullopt;
    size_t pad = 0;
    if (!text.empty() && text.back() == '=') ++pad;
    if (text.size() > 1 && text[text.size() - 2] == '=') ++pad;
    out.resize(size_t(n) - pad);
    if (text.size() > 1 && text[text.size() - 2] == '=' && text.back() != '=') return std::nullopt;
    return out;
}

bool equal_constant_time(std::string_view a, std::string_view b) {
    return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string xor_bytes(std::string_view a, std::string_view b) {
    std::string out(a);
    for (size_t i = 0; i < out.size() && i < b.size(); ++i) out[i] = char(out[i] ^ b[i]);
    return out;
}

}  // namespace ketch::security
