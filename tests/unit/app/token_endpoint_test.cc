// The client-credentials request to a token endpoint (app/token_endpoint.h)
// as Kafka's HttpAccessTokenRetriever makes it and reads its answer
// (clients/src/main/java/org/apache/kafka/common/security/oauthbearer/
// internals/secured/HttpAccessTokenRetriever.java: formatRequestBody,
// parseAccessToken, formatErrorMessage, UNRETRYABLE_HTTP_CODES).
#include "app/token_endpoint.h"

#include <gtest/gtest.h>

namespace ketch::app {
namespace {

TEST(token_endpoint, the_body_is_the_grant_and_the_trimmed_form_encoded_scope) {
    EXPECT_EQ(token_request_body(""), "grant_type=client_credentials");
    EXPECT_EQ(token_request_body("  "), "grant_type=client_credentials");
    EXPECT_EQ(token_request_body(" kafka.broker a/b "), "grant_type=client_credentials&scope=kafka.broker%20a%2Fb");
}

TEST(token_endpoint, a_200_or_201_with_an_access_token_is_the_token_and_its_expires_in) {
    auto a = parse_token_answer(200, R"({"access_token":"x.y.z","token_type":"Bearer","expires_in":300})");
    EXPECT_EQ(a.access_token, "x.y.z");
    EXPECT_EQ(a.expires_in_s, 300);
    auto b = parse_token_answer(201, R"({"access_token":"t"})");
    EXPECT_EQ(b.access_token, "t");
    EXPECT_FALSE(b.expires_in_s);
}

TEST(token_endpoint, an_answer_without_a_token_is_a_retriable_error) {
    for (const char* body : {"", "not json", "[]", R"({"access_token":7})", R"({"access_token":""})", "{}"}) {
        try {
            parse_token_answer(200, body);
            ADD_FAILURE() << body;
        } catch (const token_endpoint_error& e) {
            EXPECT_TRUE(e.retriable) << body;
            EXPECT_NE(std::string(e.what()).find("no access_token"), std::string::npos) << e.what();
        }
    }
}

TEST(token_endpoint, kafkas_unretryable_statuses_are_not_retried_and_name_the_oauth_error) {
    try {
        parse_token_answer(401, R"({"error":"invalid_client","error_description":"bad secret"})");
        ADD_FAILURE();
    } catch (const token_endpoint_error& e) {
        EXPECT_FALSE(e.retriable);
        EXPECT_EQ(std::string(e.what()),
                  R"(the token endpoint answered 401 {"invalid_client" - "bad secret"}; not retried)");
    }
    for (int status : {400, 403, 404, 415, 501, 505}) {
        try {
            parse_token_answer(status, "");
            ADD_FAILURE() << status;
        } catch (const token_endpoint_error& e) {
            EXPECT_FALSE(e.retriable) << status;
        }
    }
    for (int status : {408, 429, 500, 502, 503}) {
        try {
            parse_token_answer(status, "<html>busy\r\n</html>");
            ADD_FAILURE() << status;
        } catch (const token_endpoint_error& e) {
            EXPECT_TRUE(e.retriable) << status;
            EXPECT_NE(std::string(e.what()).find("{<html>busy?\?</html>}"), std::string::npos) << e.what();
        }
    }
}

TEST(token_endpoint, a_url_must_be_http_or_https_with_a_host_and_a_port_in_range) {
    check_token_endpoint_url("https://idp.example/oauth2/token");
    check_token_endpoint_url("http://127.0.0.1:8080");
    check_token_endpoint_url("https://[::1]:8443/token?tenant=a");
    for (const char* bad : {"file:///tmp/token", "idp.example/token", "https:///token", "http://h:0/",
                            "http://h:99999/", "http://h:8x/", "https://user:pw@idp.example/token", "http://[::1/"})
        EXPECT_THROW(check_token_endpoint_url(bad), std::invalid_argument) << bad;
}

TEST(token_endpoint, a_url_that_cannot_work_is_not_retried) {
    try {
        request_token({.url = "ftp://idp.example/token", .client_id = "c", .client_secret = "s"});
        ADD_FAILURE();
    } catch (const token_endpoint_error& e) {
        EXPECT_FALSE(e.retriable);
    }
}

TEST(token_endpoint, a_closed_port_is_a_retriable_error_naming_the_stage) {
    try {
        // Port 1 on loopback: nothing listens (and connecting is refused at once).
        request_token({.url = "http://127.0.0.1:1/token", .client_id = "c", .client_secret = "s"});
        ADD_FAILURE();
    } catch (const token_endpoint_error& e) {
        EXPECT_TRUE(e.retriable);
        EXPECT_NE(std::string(e.what()).find("connect: "), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace ketch::app
