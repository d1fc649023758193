// The OAUTHBEARER inter-broker login from a token file
// (--inter-broker-oauthbearer-token-file, app/inter_broker_token.h): Kafka's
// FileJwtRetriever (clients/src/main/java/org/apache/kafka/common/security/
// oauthbearer/FileJwtRetriever.java: the file's contents trimmed) with
// CachedFile's lastModifiedCacheRefreshPolicy (CachedFile.java: read again
// when the file's modification time changed). A token that cannot log in is
// refused at start naming the flag.
#include "app/inter_broker_token.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/inter_broker.h"
#include "parse_args.h"
#include "security/jwt.h"

namespace ketch::app {
namespace {

namespace fs = std::filesystem;

// An unsecured JWT (alg none) for `sub`, expiring `lifetime_s` from now.
std::string jwt(const std::string& sub, int64_t lifetime_s, const std::string& sub_claim = "sub") {
    auto now =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    nlohmann::json claims = {{sub_claim, sub}, {"iat", now}, {"exp", now + lifetime_s}};
    return security::base64url_encode(R"({"alg":"none"})") + "." + security::base64url_encode(claims.dump()) + ".";
}

struct token_dir : ::testing::Test {
    fs::path dir = fs::temp_directory_path() / ("ketch-ib-token-" + std::to_string(::getpid()));
    fs::path file = dir / "token";
    void SetUp() override { fs::create_directories(dir); }
    void TearDown() override { fs::remove_all(dir); }
    void write(const std::string& text) { std::ofstream(file, std::ios::trunc) << text; }
    std::string refusal(const std::string& sub_claim = "sub") {
        try {
            inter_broker_token t(file.string(), sub_claim);
        } catch (const std::runtime_error& e) {
            return e.what();
        }
        return "";
    }
};

TEST_F(token_dir, the_files_token_trimmed_and_its_subject) {
    auto t = jwt("broker", 3600);
    write(t + "\n");
    inter_broker_token token(file.string(), "sub");
    EXPECT_EQ(token.current(), t);
    EXPECT_EQ(token.subject(), "broker");
}

TEST_F(token_dir, a_rewritten_file_is_read_again_and_a_vanished_one_keeps_the_last_token) {
    auto first = jwt("broker", 3600), second = jwt("broker", 7200);
    write(first);
    inter_broker_token token(file.string(), "sub");
    ASSERT_EQ(token.current(), first);
    write(second + "  \n");  // another size, so the change is seen even within the clock's resolution
    EXPECT_EQ(token.current(), second);
    fs::remove(file);
    EXPECT_EQ(token.current(), second);
    auto third = jwt("broker-2", 60);
    write(third);
    EXPECT_EQ(token.current(), third);
}

TEST_F(token_dir, a_token_that_cannot_log_in_is_refused_naming_the_flag) {
    EXPECT_NE(refusal().find("--inter-broker-oauthbearer-token-file " + file.string() + ": cannot read it"),
              std::string::npos);
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"\n", "is empty"},
        {"not-a-jwt", "is not a JWT"},
        {jwt("broker", -10), "has expired"},
        {security::base64url_encode(R"({"alg":"none"})") + "." + security::base64url_encode(R"({"sub":"b"})") + ".",
         "no numeric 'exp'"},
    };
    for (auto& [text, why] : cases) {
        write(text);
        auto r = refusal();
        EXPECT_NE(r.find("--inter-broker-oauthbearer-token-file"), std::string::npos) << r;
        EXPECT_NE(r.find(why), std::string::npos) << r;
    }
    write(jwt("broker", 3600, "client_id"));  // the listener reads the principal from another claim
    EXPECT_NE(refusal("sub").find("no 'sub' claim"), std::string::npos);
    EXPECT_EQ(refusal("client_id"), "");
}

// --inter-broker-sasl-mechanism OAUTHBEARER (or the first of
// --sasl-mechanisms) logs in with the token; its subject is the user.
TEST_F(token_dir, an_oauthbearer_inter_broker_login_uses_the_token_and_its_subject) {
    auto t = jwt("broker", 3600);
    write(t);
    std::vector<listener_endpoint> eps = {{"PLAINTEXT", "SASL_PLAINTEXT", "127.0.0.1", 9092, "127.0.0.1", 9092}};
    auto c = inter_broker_config_of(
        testing::parse({"--inter-broker-listener", "PLAINTEXT", "--sasl-mechanisms", "OAUTHBEARER,PLAIN",
                        "--inter-broker-oauthbearer-token-file", file.string()}),
        eps);
    EXPECT_EQ(c.client.sasl_mechanism, "OAUTHBEARER");
    EXPECT_EQ(c.client.sasl_oauthbearer_token, t);
    EXPECT_EQ(c.client.sasl_username, "broker");
    ASSERT_TRUE(c.token);
    EXPECT_EQ(c.describe(), "SASL_PLAINTEXT listener PLAINTEXT as User:broker (OAUTHBEARER)");
    // Without the file OAUTHBEARER is not a mechanism brokers log in with: PLAIN is the first.
    ::setenv("KETCH_INTER_BROKER_SASL_USERNAME", "b", 1);
    ::setenv("KETCH_INTER_BROKER_SASL_PASSWORD", "pw", 1);
    auto plain = inter_broker_config_of(
        testing::parse({"--inter-broker-listener", "PLAINTEXT", "--sasl-mechanisms", "OAUTHBEARER,PLAIN"}), eps);
    ::unsetenv("KETCH_INTER_BROKER_SASL_USERNAME");
    ::unsetenv("KETCH_INTER_BROKER_SASL_PASSWORD");
    EXPECT_EQ(plain.client.sasl_mechanism, "PLAIN");
    EXPECT_FALSE(plain.token);
    // Under tenancy the token's subject must be a super user.
    auto tenancy = [&](const char* supers) {
        try {
            inter_broker_config_of(
                testing::parse({"--inter-broker-listener", "PLAINTEXT", "--sasl-mechanisms", "OAUTHBEARER", "--tenancy",
                                "--super-users", supers, "--inter-broker-oauthbearer-token-file", file.string()}),
                eps);
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_NE(tenancy("User:root").find("the token's subject broker"), std::string::npos);
    EXPECT_EQ(tenancy("User:root;User:broker"), "");
}

}  // namespace
}  // namespace ketch::app
