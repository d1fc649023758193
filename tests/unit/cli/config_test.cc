// -X client properties and profile files (cli/config.h).
#include <gtest/gtest.h>

#include "cli/config.h"

using namespace ketch;
using namespace ketch::cli;

TEST(ClientConfig, AppliesKafkaPropertyNames) {
    client_config c;
    EXPECT_EQ(apply_property(c, "bootstrap.servers=a:1, b:2"), std::nullopt);
    EXPECT_EQ(c.brokers, (std::vector<std::string>{"a:1", "b:2"}));
    EXPECT_EQ(apply_property(c, "security.protocol=sasl_ssl"), std::nullopt);
    EXPECT_EQ(c.security_protocol, "SASL_SSL");
    EXPECT_TRUE(c.uses_tls());
    EXPECT_TRUE(c.uses_sasl());
    EXPECT_EQ(apply_property(c, "sasl.mechanism=SCRAM-SHA-512"), std::nullopt);
    EXPECT_EQ(apply_property(c, "sasl.username=alice"), std::nullopt);
    EXPECT_EQ(apply_property(c, "sasl.password=a=b"), std::nullopt);  // '=' inside the value
    EXPECT_EQ(c.sasl_password, "a=b");
    EXPECT_EQ(apply_property(c, "ssl.ca.location=/tmp/ca.pem"), std::nullopt);
    EXPECT_EQ(c.tls.ca_location, "/tmp/ca.pem");
    EXPECT_EQ(apply_property(c, "request.timeout.ms=2500"), std::nullopt);
    EXPECT_EQ(c.timeout.count(), 2500);
}

TEST(ClientConfig, RefusesWhatItDoesNotKnow) {
    client_config c;
    EXPECT_NE(apply_property(c, "nokey"), std::nullopt);
    EXPECT_NE(apply_property(c, "=x"), std::nullopt);
    EXPECT_NE(apply_property(c, "security.protocol=TLS"), std::nullopt);
    EXPECT_NE(apply_property(c, "sasl.mechanism=GSSAPI"), std::nullopt);
    EXPECT_NE(apply_property(c, "request.timeout.ms=soon"), std::nullopt);
    auto err = apply_property(c, "fetch.wait.max.ms=5");
    ASSERT_TRUE(err);
    EXPECT_NE(err->find("fetch.wait.max.ms"), std::string::npos);
}

TEST(ClientConfig, ProfileTextRoundTrips) {
    client_config c;
    c.brokers = {"k:9093"};
    c.security_protocol = "SASL_SSL";
    c.sasl_mechanism = "SCRAM-SHA-256";
    c.sasl_username = "bob";
    c.tls.ca_location = "/ca.pem";
    std::string text = "# a comment\n\n";
    for (auto& [k, v] : to_properties(c)) text += k + "=" + v + "\n";
    client_config back;
    EXPECT_EQ(apply_properties_text(back, text), std::nullopt);
    EXPECT_EQ(back.brokers, c.brokers);
    EXPECT_EQ(back.security_protocol, c.security_protocol);
    EXPECT_EQ(back.sasl_mechanism, c.sasl_mechanism);
    EXPECT_EQ(back.sasl_username, "bob");
    EXPECT_EQ(back.tls.ca_location, "/ca.pem");
    auto err = apply_properties_text(back, "a=b\nbogus\n");
    ASSERT_TRUE(err);
    EXPECT_EQ(err->rfind("line 1", 0), 0u);
}

TEST(ClientConfig, SplitsHostPort) {
    EXPECT_EQ(split_host_port("h:9092"), (std::pair<std::string, uint16_t>{"h", 9092}));
    EXPECT_EQ(split_host_port("[::1]:9092").first, "::1");
    EXPECT_THROW(split_host_port("h"), std::invalid_argument);
    EXPECT_THROW(split_host_port("h:0"), std::invalid_argument);
    EXPECT_THROW(split_host_port("h:70000"), std::invalid_argument);
    EXPECT_THROW(split_host_port("h:9x"), std::invalid_argument);
}
