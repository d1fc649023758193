// Settings: every flag --NAME is also the key NAME in ketch.toml; the file
// gives defaults, flags override them.
#include "app/options.h"

#include <gtest/gtest.h>

#include <fstream>
#include <vector>

#include "unit/meta/temp_dir.h"

#include "parse_args.h"

namespace ketch::app {
namespace {

using testing::parse;

std::string write_toml(const std::filesystem::path& dir, const std::string& text) {
    auto path = (dir / "ketch.toml").string();
    std::ofstream(path) << text;
    return path;
}

TEST(options, defaults_without_a_file_or_flags) {
    auto d = parse({});
    EXPECT_EQ(d.listen, "127.0.0.1:9092");
    EXPECT_EQ(d.max_connections, 2147483647);
    EXPECT_FALSE(d.authorizer);
}

TEST(options, file_values_of_every_kind_are_read_under_the_flag_names) {
    meta::testing::temp_dir dir;
    auto path = write_toml(dir.path(),
                           "listen = \"127.0.0.1:19092\"\n"
                           "listener = [\"SASL=SASL_PLAINTEXT://127.0.0.1:0\", \"TLS=SSL://127.0.0.1:0\"]\n"
                           "advertised-listener = \"SASL=example:1\"\n"
                           "max-connections = 7\n"
                           "flush-ms = 250\n"
                           "authorizer = true\n"
                           "log-cleaner-io-max-bytes-per-second = 1.5\n"
                           "[[users]]\nname = \"alice\"\npassword = \"secret\"\n");
    auto o = parse({"--config", path});
    EXPECT_EQ(o.listen, "127.0.0.1:19092");
    EXPECT_EQ(o.listeners, (std::vector<std::string>{"SASL=SASL_PLAINTEXT://127.0.0.1:0", "TLS=SSL://127.0.0.1:0"}));
    EXPECT_EQ(o.advertised_listeners, std::vector<std::string>{"SASL=example:1"});
    EXPECT_EQ(o.max_connections, 7);
    EXPECT_EQ(o.flush_ms, 250);
    EXPECT_TRUE(o.authorizer);
    EXPECT_DOUBLE_EQ(o.log_cleaner_io_max_bytes_per_second, 1.5);
    EXPECT_EQ(o.users.at("alice"), "secret");
}

TEST(options, flags_override_the_file) {
    meta::testing::temp_dir dir;
    auto path = write_toml(dir.path(), "max-connections = 7\nlisten = \"127.0.0.1:19092\"\n");
    auto o = parse({"--config", path, "--max-connections", "9"});
    EXPECT_EQ(o.max_connections, 9);
    EXPECT_EQ(o.listen, "127.0.0.1:19092");  // not given as a flag: the file's value stays
}

}  // namespace
}  // namespace ketch::app
