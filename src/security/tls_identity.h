// TLS identities: the self-signed certificate ketch makes for localhost when
// an SSL listener has no --tls-cert, and the principal of a client
// certificate (Kafka's DefaultKafkaPrincipalBuilder: "User:" + the subject
// distinguished name in RFC 2253 form).
#pragma once

#include <filesystem>
#include <string>

typedef struct x509_st X509;

namespace ketch::security {

struct cert_files {
    std::filesystem::path cert, key;
};

// Returns <dir>/ketch-selfsigned.{crt,key}, creating them if missing: an EC
// P-256 key (file mode 0600) and a certificate valid 10 years for
// CN=localhost with subjectAltName DNS:localhost, IP:127.0.0.1, IP:::1. The
// certificate is its own CA: clients trust it with ssl.ca.location / a
// truststore holding it. Throws on failure.
cert_files ensure_self_signed(const std::filesystem::path& dir);

// "CN=alice,OU=eng,O=Example" (RFC 2253: most specific first, escaped).
std::string subject_rfc2253(X509* cert);

}  // namespace ketch::security
