#include <gtest/gtest.h>

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
          "s3://bucket", "s3://bucket?endpoint=https://h:1", "s3://bucket?endpoint=http://h:0",
          "s3://bucket?endpoint=http://h:99999", "s3://bucket?endpoint=http://h:1/path", "s3://bucket?endpoint=http://",
          "s3://bucket?endpoint=http://h:1&color=red", "s3://bucket?endpoint=http://h:1&region=",
          "s3://bucket?endpoint=http://h:1&region", "s3://bucket?endpoint=http%3", "s3://bucket?endpoint=http://h:x"}) {
        auto l = parse_s3_url(bad);
        ASSERT_FALSE(l.ok()) << bad;
        EXPECT_EQ(l.error().rfind("s3:// URL: ", 0), 0u) << l.error();
    }
}
