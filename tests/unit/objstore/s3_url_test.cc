#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "objstore/s3_url.h"

using namespace ketch::objstore;

TEST(s3_url, bucket_endpoint_and_region) {
    auto l = parse_s3_url("s3://ketch-data?endpoint=http://127.0.0.1:9000&region=eu-west-1");
    ASSERT_TRUE(l.ok()) << l.error();
    EXPECT_EQ(l->bucket, "ketch-data");
    EXPECT_EQ(l->prefix, "");
    EXPECT_EQ(l->host, "127.0.0.1");
    EXPECT_EQ(l->port, 9000);
    EXPECT_EQ(l->region, "eu-west-1");
    EXPECT_EQ(l->host_header(), "127.0.0.1:9000");
}

TEST(s3_url, defaults_prefix_encoded_endpoint_and_ipv6) {
    auto l = parse_s3_url("s3://b12/some/prefix?endpoint=http%3A%2F%2Fminio.local");
    ASSERT_TRUE(l.ok()) << l.error();
    EXPECT_EQ(l->prefix, "some/prefix/");
    EXPECT_EQ(l->host, "minio.local");
    EXPECT_EQ(l->port, 80);
    EXPECT_EQ(l->region, "us-east-1");
    EXPECT_EQ(l->host_header(), "minio.local");
    auto v6 = parse_s3_url("s3://b12?endpoint=http://[::1]:9000/");
    ASSERT_TRUE(v6.ok()) << v6.error();
    EXPECT_EQ(v6->host, "::1");
    EXPECT_EQ(v6->host_header(), "[::1]:9000");
}

TEST(s3_url, refusals_say_why) {
    for (const char* bad :
         {"http://b?endpoint=http://h:1", "s3://Bad_Bucket?endpoint=http://h:1", "s3://ab?endpoint=http://h:1",
          "s3://bucket", "s3://bucket?endpoint=ftp://h:1", "s3://bucket?endpoint=http://h:0",
          "s3://bucket?endpoint=http://h:99999", "s3://bucket?endpoint=http://h:1/path", "s3://bucket?endpoint=http://",
          "s3://bucket?endpoint=http://h:1&color=red", "s3://bucket?endpoint=http://h:1&region=",
          "s3://bucket?endpoint=http://h:1&region", "s3://bucket?endpoint=http%3", "s3://bucket?endpoint=http://h:x",
          "s3://bucket?endpoint=http://h:1&ca_file=/ca.pem", "s3://bucket?endpoint=https://h:1&ca_file="}) {
        auto l = parse_s3_url(bad);
        ASSERT_FALSE(l.ok()) << bad;
        EXPECT_EQ(l.error().rfind("s3:// URL: ", 0), 0u) << l.error();
    }
}

// Mutual TLS: a client certificate and its key, both or neither, https only.
TEST(s3_url, client_certificate_and_key) {
    auto l = parse_s3_url(
        "s3://b12?endpoint=https://h:9443&ca_file=/ca.pem&cert_file=%2Fetc%2Fketch%2Fbroker.pem"
        "&key_file=/etc/ketch/broker.key");
    ASSERT_TRUE(l.ok()) << l.error();
    EXPECT_EQ(l->cert_file, "/etc/ketch/broker.pem");
    EXPECT_EQ(l->key_file, "/etc/ketch/broker.key");
    auto none = parse_s3_url("s3://b12?endpoint=https://h:9443");
    ASSERT_TRUE(none.ok()) << none.error();
    EXPECT_EQ(none->cert_file, "");
    EXPECT_EQ(none->key_file, "");
    const std::pair<const char*, const char*> refused[] = {
        {"s3://b12?endpoint=https://h:1&cert_file=/c.pem", "cert_file and key_file go together"},
        {"s3://b12?endpoint=https://h:1&key_file=/c.key", "cert_file and key_file go together"},
        {"s3://b12?endpoint=http://h:1&cert_file=/c.pem&key_file=/c.key", "cert_file needs an https endpoint"},
        {"s3://b12?endpoint=https://h:1&cert_file=&key_file=/c.key", "empty cert_file"},
        {"s3://b12?endpoint=https://h:1&cert_file=/c.pem&key_file=", "empty key_file"}};
    for (auto [url, why] : refused) {
        auto r = parse_s3_url(url);
        ASSERT_FALSE(r.ok()) << url;
        EXPECT_EQ(r.error(), std::string("s3:// URL: ") + why) << url;
    }
}

TEST(s3_url, https_endpoint_and_ca_file) {
    auto l = parse_s3_url("s3://b12?endpoint=https://s3.example.com&ca_file=%2Fetc%2Fketch%2Fca.pem");
    ASSERT_TRUE(l.ok()) << l.error();
    EXPECT_TRUE(l->tls);
    EXPECT_EQ(l->port, 443);
    EXPECT_EQ(l->ca_file, "/etc/ketch/ca.pem");
    EXPECT_EQ(l->host_header(), "s3.example.com");
    auto p = parse_s3_url("s3://b12?endpoint=https://127.0.0.1:9443");
    ASSERT_TRUE(p.ok()) << p.error();
    EXPECT_TRUE(p->tls);
    EXPECT_EQ(p->ca_file, "");
    EXPECT_EQ(p->host_header(), "127.0.0.1:9443");
    auto plain = parse_s3_url("s3://b12?endpoint=http://h:443");
    ASSERT_TRUE(plain.ok()) << plain.error();
    EXPECT_FALSE(plain->tls);
    EXPECT_EQ(plain->host_header(), "h:443");
}
