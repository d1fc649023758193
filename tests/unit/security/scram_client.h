// The client side of SCRAM (RFC 5802 section 3) for the tests' round trips:
// the client-final message answering `server_first`, its proof computed from
// `password`; gs2 is the client-first's GS2 header ("n,,": base64 "biws").
#pragma once

#include <string>

#include "security/crypto.h"

namespace ketch::security::test {

inline std::string client_final_for(hash_alg alg, const std::string& password, const std::string& client_first_bare,
                                    const std::string& server_first, const std::string& gs2 = "n,,") {
    auto r = server_first.substr(2, server_first.find(',') - 2);
    auto s_at = server_first.find(",s=") + 3;
    auto salt = base64_decode(server_first.substr(s_at, server_first.find(",i=") - s_at)).value();
    int iters = std::stoi(server_first.substr(server_first.find(",i=") + 3));
    auto salted = pbkdf2(alg, password, salt, iters);
    auto client_key = hmac(alg, salted, "Client Key");
    std::string without_proof = "c=" + base64_encode(gs2) + ",r=" + r;
    auto auth = client_first_bare + "," + server_first + "," + without_proof;
    auto sig = hmac(alg, digest(alg, client_key), auth);
    return without_proof + ",p=" + base64_encode(xor_bytes(client_key, sig));
}

}  // namespace ketch::security::test
