// The few cryptographic primitives SASL needs, on OpenSSL: HMAC, digests,
// PBKDF2 (SCRAM's Hi()), random bytes, base64, constant-time comparison.
// Strings hold raw bytes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ketch::security {

enum class hash_alg { sha256, sha512 };

std::string hmac(hash_alg alg, std::string_view key, std::string_view data);
std::string digest(hash_alg alg, std::string_view data);
// PBKDF2-HMAC with the digest's output length (RFC 5802 Hi()).
std::string pbkdf2(hash_alg alg, std::string_view password, std::string_view salt, int iterations);
// n bytes from OpenSSL's CSPRNG; throws if it fails.
std::string random_bytes(size_t n);
// A random string of [0-9a-z] characters (Kafka's SCRAM nonces look alike).
std::string random_alnum(size_t n);
std::string base64_encode(std::string_view raw);
// nullopt when `text` is not canonical padded base64.
std::optional<std::string> base64_decode(std::string_view text);
bool equal_constant_time(std::string_view a, std::string_view b);
std::string xor_bytes(std::string_view a, std::string_view b);

}  // namespace ketch::security
