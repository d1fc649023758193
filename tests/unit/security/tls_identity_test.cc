#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <sys/stat.h>

#include <cstdio>

#include "security/tls_identity.h"

using namespace ketch::security;

TEST(tls_identity, self_signed_certificate_is_made_once_with_a_private_key_file) {
    auto dir = std::filesystem::temp_directory_path() / ("ketch-tls-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    auto files = ensure_self_signed(dir);
    struct stat st {};
    ASSERT_EQ(::stat(files.key.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    auto before = std::filesystem::last_write_time(files.cert);
    ensure_self_signed(dir);
    EXPECT_EQ(std::filesystem::last_write_time(files.cert), before);

    FILE* f = std::fopen(files.cert.c_str(), "r");
    ASSERT_NE(f, nullptr);
    X509* cert = PEM_read_X509(f, nullptr, nullptr, nullptr);
    std::fclose(f);
    ASSERT_NE(cert, nullptr);
    EXPECT_EQ(subject_rfc2253(cert), "CN=localhost,O=ketch");
    X509_free(cert);
    std::filesystem::remove_all(dir);
}
