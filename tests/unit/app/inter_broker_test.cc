// Cluster mode's inter-broker client settings (app/inter_broker.h): Kafka's
// inter.broker.listener.name and sasl.mechanism.inter.broker.protocol, and the
// login and TLS trust the calls use; settings that cannot work are refused at
// start, naming the flag.
#include "app/inter_broker.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "parse_args.h"

namespace ketch::app {
namespace {

using testing::parse;

std::vector<listener_endpoint> endpoints() {
    return {{"PLAINTEXT", "PLAINTEXT", "127.0.0.1", 9092, "127.0.0.1", 9092},
            {"SECURE", "SASL_SSL", "127.0.0.1", 9094, "127.0.0.1", 9094},
            {"MTLS", "SSL", "127.0.0.1", 9093, "127.0.0.1", 9093}};
}

std::string listener_refusal(const options& o, const std::vector<listener_endpoint>& eps) {
    try {
        inter_broker_config_of(o, eps);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "";
}

TEST(inter_broker, default_is_the_first_plaintext_listener_and_none_without_one) {
    auto c = inter_broker_config_of(parse({}), endpoints());
    ASSERT_TRUE(c.listener);
    EXPECT_EQ(*c.listener, "PLAINTEXT");
    EXPECT_EQ(c.client.security_protocol, "PLAINTEXT");
    EXPECT_FALSE(c.client.tls.enabled);
    EXPECT_EQ(c.client.client_id, "ketch-broker");
    EXPECT_FALSE(inter_broker_config_of(parse({}), {endpoints()[2]}).listener);
}

TEST(inter_broker, a_sasl_ssl_listener_logs_in_with_the_given_user_and_trusts_the_given_ca) {
    auto dir = std::filesystem::temp_directory_path() / ("ketch-inter-broker-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "pw") << "s3cret\n";
    auto o = parse({"--inter-broker-listener", "SECURE", "--sasl-mechanisms", "SCRAM-SHA-512,PLAIN",
                    "--inter-broker-sasl-username", "broker", "--inter-broker-sasl-password-file",
                    (dir / "pw").string(), "--inter-broker-tls-ca", "/ca.pem"});
    auto c = inter_broker_config_of(o, endpoints());
    EXPECT_EQ(*c.listener, "SECURE");
    EXPECT_EQ(c.client.security_protocol, "SASL_SSL");
    EXPECT_TRUE(c.client.tls.enabled);
    EXPECT_EQ(c.client.tls.ca_location, "/ca.pem");
    EXPECT_EQ(c.client.sasl_mechanism, "SCRAM-SHA-512");  // the first of --sasl-mechanisms
    EXPECT_EQ(c.client.sasl_username, "broker");
    EXPECT_EQ(c.client.sasl_password, "s3cret");  // the first line, without its newline
    EXPECT_EQ(c.describe(), "SASL_SSL listener SECURE as User:broker (SCRAM-SHA-512)");
    std::filesystem::remove_all(dir);
}

TEST(inter_broker, tls_trust_defaults_to_the_client_ca_and_the_password_to_the_environment) {
    ::setenv("KETCH_INTER_BROKER_SASL_USERNAME", "env-user", 1);
    ::setenv("KETCH_INTER_BROKER_SASL_PASSWORD", "env-pw", 1);
    auto c = inter_broker_config_of(parse({"--inter-broker-listener", "SECURE", "--tls-client-ca", "/clients.pem",
                                           "--inter-broker-sasl-mechanism", "PLAIN"}),
                                    endpoints());
    ::unsetenv("KETCH_INTER_BROKER_SASL_USERNAME");
    ::unsetenv("KETCH_INTER_BROKER_SASL_PASSWORD");
    EXPECT_EQ(c.client.tls.ca_location, "/clients.pem");
    EXPECT_EQ(c.client.sasl_mechanism, "PLAIN");
    EXPECT_EQ(c.client.sasl_username, "env-user");
    EXPECT_EQ(c.client.sasl_password, "env-pw");
}

TEST(inter_broker, settings_that_cannot_work_are_refused_naming_the_flag) {
    EXPECT_NE(listener_refusal(parse({"--inter-broker-listener", "NOPE"}), endpoints()).find("no such listener"),
              std::string::npos);
    EXPECT_NE(listener_refusal(parse({"--inter-broker-listener", "SECURE"}), endpoints())
                  .find("--inter-broker-sasl-username"),
              std::string::npos);
    EXPECT_NE(listener_refusal(parse({"--inter-broker-listener", "SECURE", "--inter-broker-sasl-mechanism",
                                      "OAUTHBEARER", "--inter-broker-sasl-username", "b"}),
                               endpoints())
                  .find("--inter-broker-sasl-mechanism"),
              std::string::npos);
    EXPECT_NE(listener_refusal(parse({"--inter-broker-listener", "SECURE", "--inter-broker-sasl-username", "b",
                                      "--inter-broker-sasl-password-file", "/nonexistent/pw"}),
                               endpoints())
                  .find("--inter-broker-sasl-password-file"),
              std::string::npos);
    // An SSL listener needs no login: the principal is the certificate's (or ANONYMOUS).
    EXPECT_EQ(listener_refusal(parse({"--inter-broker-listener", "MTLS"}), endpoints()), "");
}

// Under --tenancy a user that is not a super user is scoped to its tenant
// (tenant/directory.cc), so the brokers' calls naming other tenants' topics
// would fail: refused at start, and accepted once the user is a super user.
TEST(inter_broker, under_tenancy_the_brokers_user_must_be_a_super_user) {
    ::setenv("KETCH_INTER_BROKER_SASL_PASSWORD", "secret", 1);
    const std::vector<std::string> login = {"--inter-broker-listener",       "SECURE",
                                            "--inter-broker-sasl-mechanism", "PLAIN",
                                            "--inter-broker-sasl-username",  "broker"};
    auto with = [&](std::vector<std::string> more) {
        more.insert(more.begin(), login.begin(), login.end());
        return listener_refusal(parse(more), endpoints());
    };
    EXPECT_NE(with({"--tenancy", "--super-users", "User:root"}).find("--super-users"), std::string::npos);
    EXPECT_EQ(with({"--tenancy", "--super-users", "User:root;User:broker"}), "");
    EXPECT_EQ(with({"--super-users", "User:root"}), "");  // no tenancy: any user (ACLs decide)
    ::unsetenv("KETCH_INTER_BROKER_SASL_PASSWORD");
}

}  // namespace
}  // namespace ketch::app
