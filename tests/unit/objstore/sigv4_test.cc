// SigV4 against AWS's published examples: the Signature Version 4 test suite
// (get-vanilla, get-vanilla-query-order-key-case, post-vanilla: credentials
// AKIDEXAMPLE, 20150830T123600Z, us-east-1, service "service") and the S3 API
// reference's "Signature Calculations for the Authorization Header" (GET Object
// with a Range, PUT Object, GET Bucket lifecycle, GET Bucket list:
// AKIAIOSFODNN7EXAMPLE, 20130524T000000Z).
#include <gtest/gtest.h>

#include "objstore/s3_client.h"
#include "objstore/sigv4.h"

using namespace ketch::objstore;

namespace {

const credentials suite{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", ""};
const signing_scope suite_scope{"20150830T123600Z", "us-east-1", "service"};
const credentials s3_docs{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""};
const signing_scope s3_scope{"20130524T000000Z", "us-east-1", "s3"};
const std::string empty_sha = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

signing_request suite_request(std::string method, std::vector<std::pair<std::string, std::string>> query = {}) {
    return {std::move(method),
            "/",
            std::move(query),
            {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}},
            empty_sha};
}

signing_request s3_get(std::vector<std::pair<std::string, std::string>> query) {
    return {"GET",
            "/",
            std::move(query),
            {{"Host", "examplebucket.s3.amazonaws.com"},
             {"x-amz-date", "20130524T000000Z"},
             {"x-amz-content-sha256", empty_sha}},
            empty_sha};
}

}  // namespace

TEST(sigv4, empty_payload_hash_is_sha256_of_nothing) { EXPECT_EQ(sha256_hex(""), empty_sha); }

TEST(sigv4, suite_get_vanilla) {
    auto r = suite_request("GET");
    EXPECT_EQ(canonical_request(r),
              "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n" + empty_sha);
    EXPECT_EQ(string_to_sign(suite_scope, canonical_request(r)),
              "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n"
              "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63");
    EXPECT_EQ(authorization(suite, suite_scope, r),
              "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
              "SignedHeaders=host;x-amz-date, "
              "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

TEST(sigv4, suite_query_parameters_are_sorted) {
    auto r = suite_request("GET", {{"Param2", "value2"}, {"Param1", "value1"}});
    EXPECT_EQ(signature(suite, suite_scope, r), "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
}

TEST(sigv4, suite_post_vanilla) {
    EXPECT_EQ(signature(suite, suite_scope, suite_request("POST")),
              "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b");
}

TEST(sigv4, s3_get_object_with_range) {
    signing_request r{"GET",
                      "/test.txt",
                      {},
                      {{"Host", "examplebucket.s3.amazonaws.com"},
                       {"Range", "bytes=0-9"},
                       {"x-amz-content-sha256", empty_sha},
                       {"x-amz-date", "20130524T000000Z"}},
                      empty_sha};
    EXPECT_EQ(string_to_sign(s3_scope, canonical_request(r)),
              "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
              "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
    EXPECT_EQ(signature(s3_docs, s3_scope, r), "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(sigv4, s3_put_object_encodes_the_key_and_signs_the_payload) {
    const std::string body = "Welcome to Amazon S3.";
    const std::string payload = sha256_hex(body);
    EXPECT_EQ(payload, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
    EXPECT_EQ(uri_encode_path("test$file.text"), "/test%24file.text");
    signing_request r{"PUT",
                      uri_encode_path("test$file.text"),
                      {},
                      {{"Date", "Fri, 24 May 2013 00:00:00 GMT"},
                       {"Host", "examplebucket.s3.amazonaws.com"},
                       {"x-amz-content-sha256", payload},
                       {"x-amz-date", "20130524T000000Z"},
                       {"x-amz-storage-class", "REDUCED_REDUNDANCY"}},
                      payload};
    EXPECT_EQ(signed_headers(r), "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class");
    EXPECT_EQ(signature(s3_docs, s3_scope, r), "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(sigv4, s3_query_without_value_and_sorted_query) {
    EXPECT_EQ(signature(s3_docs, s3_scope, s3_get({{"lifecycle", ""}})),
              "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
    EXPECT_EQ(signature(s3_docs, s3_scope, s3_get({{"prefix", "J"}, {"max-keys", "2"}})),
              "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST(sigv4, header_values_are_trimmed_and_inner_blanks_collapsed) {
    signing_request a{"GET", "/", {}, {{"Host", "h"}, {"X-Custom", "  a   b  "}}, empty_sha};
    signing_request b{"GET", "/", {}, {{"host", "h"}, {"x-custom", "a b"}}, empty_sha};
    EXPECT_EQ(canonical_request(a), canonical_request(b));
}

TEST(sigv4, uri_encode_keeps_unreserved_only) {
    EXPECT_EQ(uri_encode("aZ09-_.~"), "aZ09-_.~");
    EXPECT_EQ(uri_encode("a b/c+d="), "a%20b%2Fc%2Bd%3D");
    EXPECT_EQ(uri_encode("a/b", false), "a/b");
    EXPECT_EQ(uri_encode("\xc3\xa9"), "%C3%A9");
}

TEST(sigv4, amz_date_is_utc_basic_format) {
    using namespace std::chrono;
    EXPECT_EQ(amz_date(system_clock::time_point(seconds(1440938160))), "20150830T123600Z");
    EXPECT_EQ(amz_date(system_clock::time_point(seconds(0))), "19700101T000000Z");
}

TEST(s3_client, requests_are_path_style_and_signed) {
    auto loc = parse_s3_url("s3://bucket-1/pre?endpoint=http://127.0.0.1:9000&region=eu-west-1");
    ASSERT_TRUE(loc.ok()) << loc.error();
    s3_client c(*loc, {"AKID", "SECRET", ""});
    auto now = std::chrono::system_clock::time_point(std::chrono::seconds(1440938160));
    auto r = c.make_request("PUT", "a b/c", "xyz", {{"if-none-match", "*"}}, now);
    EXPECT_EQ(r.path, "/bucket-1/pre/a%20b/c");
    std::string auth;
    for (auto& [k, v] : r.headers)
        if (k == "authorization") auth = v;
    EXPECT_EQ(auth.rfind("AWS4-HMAC-SHA256 Credential=AKID/20150830/eu-west-1/s3/aws4_request, "
                         "SignedHeaders=host;if-none-match;x-amz-content-sha256;x-amz-date, Signature=",
                         0),
              0u)
        << auth;
    // The same request signed by hand from its parts gives the same signature.
    signing_request s{"PUT", r.path, {}, {}, sha256_hex("xyz")};
    for (auto& h : r.headers)
        if (h.first != "authorization") s.headers.push_back(h);
    EXPECT_EQ(auth.substr(auth.find("Signature=") + 10),
              signature({"AKID", "SECRET", ""}, {"20150830T123600Z", "eu-west-1", "s3"}, s));
}
