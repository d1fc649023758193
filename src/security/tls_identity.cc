#include "security/tls_identity.h"

#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <cstdio>
#include <memory>
#include <stdexcept>

namespace ketch::security {

namespace {

template <class T, void (*F)(T*)>
struct deleter {
    void operator()(T* p) const { F(p); }
};
using pkey_ptr = std::unique_ptr<EVP_PKEY, deleter<EVP_PKEY, EVP_PKEY_free>>;
using x509_ptr = std::unique_ptr<X509, deleter<X509, X509_free>>;

void add_ext(X509* cert, int nid, const char* value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
    if (!ext || !X509_add_ext(cert, ext, -1)) throw std::runtime_error("cannot add certificate extension");
    X509_EXTENSION_free(ext);
}

void write_pem(const std::filesystem::path& path, mode_t mode, auto&& write) {
    auto tmp = path.string() + ".tmp";
    FILE* f = std::fopen(tmp.c_str(), "w");
    if (!f) throw std::runtime_error("cannot write " + tmp);
    ::chmod(tmp.c_str(), mode);
    bool ok = write(f);
    ok = std::fclose(f) == 0 && ok;
    if (!ok) throw std::runtime_error("cannot write " + tmp);
    std::filesystem::rename(tmp, path);
}

}  // namespace

cert_files ensure_self_signed(const std::filesystem::path& dir) {
    cert_files out{dir / "ketch-selfsigned.crt", dir / "ketch-selfsigned.key"};
    if (std::filesystem::exists(out.cert) && std::filesystem::exists(out.key)) return out;
    std::filesystem::create_directories(dir);

    pkey_ptr key(EVP_EC_gen("P-256"));
    if (!key) throw std::runtime_error("cannot generate an EC key");
    x509_ptr cert(X509_new());
    X509_set_version(cert.get(), 2);
    std::string serial = "1";
    ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), long(std::time(nullptr)));
    X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
    X509_gmtime_adj(X509_getm_notAfter(cert.get()), 10L * 365 * 24 * 3600);
    X509_set_pubkey(cert.get(), key.get());
    X509_NAME* name = X509_get_subject_name(cert.get());
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("ketch"), -1, -1, 0);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"), -1, -1,
                               0);
    X509_set_issuer_name(cert.get(), name);
    add_ext(cert.get(), NID_basic_constraints, "critical,CA:TRUE");
    add_ext(cert.get(), NID_key_usage, "critical,digitalSignature,keyCertSign");
    add_ext(cert.get(), NID_ext_key_usage, "serverAuth");
    add_ext(cert.get(), NID_subject_key_identifier, "hash");
    add_ext(cert.get(), NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1");
    if (!X509_sign(cert.get(), key.get(), EVP_sha256())) throw std::runtime_error("cannot sign the certificate");

    write_pem(out.key, 0600,
              [&](FILE* f) { return PEM_write_PrivateKey(f, key.get(), nullptr, nullptr, 0, nullptr, nullptr) == 1; });
    write_pem(out.cert, 0644, [&](FILE* f) { return PEM_write_X509(f, cert.get()) == 1; });
    return out;
}

std::string subject_rfc2253(X509* cert) {
    if (!cert) return {};
    std::unique_ptr<BIO, deleter<BIO, BIO_free_all>> bio(BIO_new(BIO_s_mem()));
    X509_NAME_print_ex(bio.get(), X509_get_subject_name(cert), 0, XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB);
    char* data = nullptr;
    long n = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, size_t(n));
}

}  // namespace ketch::security
