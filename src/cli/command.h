// What every command group shares: the connection options (-b, -X,
// --profile, --json), the client built from them, output helpers, and the
// errors that decide the exit code (usage_error: 2; anything else: 1).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/client.h"
#include "cli/config.h"

namespace ketch::cli {

using json = nlohmann::ordered_json;

// A mistake in how the command was called: exit code 2.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The running broker's client settings (`ketch env` without -b): given the
// broker's own flags, what a client needs. The app layer provides it.
struct local_broker {
    std::string bootstrap;
    std::string security_protocol = "PLAINTEXT";
    std::vector<std::string> sasl_mechanisms;
    std::string ca_location;
};
using local_broker_fn = std::function<local_broker(const std::vector<std::string>& broker_args)>;

struct context {
    std::vector<std::string> brokers_flag;
    std::vector<std::string> properties;  // -X
    std::string profile;
    bool json = false;
    local_broker_fn local;

    // The settings from profile, environment, -X and -b (throws usage_error).
    client_config settings() const;
    client& connect();
    std::unique_ptr<client> client_;
};

// Adds -b/--brokers, -X, --profile and --json to `cmd`.
void add_connection_options(CLI::App* cmd, context& ctx);

// A subcommand of `parent` that talks to the broker: the connection options
// first, `examples` under its help ("Example:\n  ketch ..."), and what it runs.
// The caller adds the command's own options to the result.
CLI::App* add_broker_command(CLI::App* parent, context& ctx, const std::string& name, const std::string& help,
                             const std::string& examples, std::function<void()> run);

// A table with a header row, columns padded to their widest cell.
void print_table(std::ostream& out, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows);

// What a command answers: `out` with --json, else a table of `rows`; and the
// first error of a batch of results, thrown once the answer is printed.
struct answer {
    json out = json::array();
    std::vector<std::vector<std::string>> rows;
    std::optional<kafka_error> first;

    // Notes a result's error (code 0: none); the first one is thrown by print.
    void fail(int16_t code, std::string what, std::string broker_message = {});
    // Prints the answer (the table under `header`), then throws the first error.
    void print(bool as_json, const std::vector<std::string>& header) const;
};

// A command's answer with --json (`as_json`): `answer` as one JSON line, and
// true; else false, and the caller prints it as text.
bool print_json(bool as_json, const json& answer);
// A command's answer: `answer` as one JSON line with --json, else the table.
void print_answer(bool as_json, const json& answer, const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows);

// The command groups (one file each).
void add_topic_commands(CLI::App& app, context& ctx);
void add_produce_command(CLI::App& app, context& ctx);
void add_consume_command(CLI::App& app, context& ctx);
void add_group_commands(CLI::App& app, context& ctx);
void add_acl_commands(CLI::App& app, context& ctx);
void add_user_commands(CLI::App& app, context& ctx);
void add_quota_commands(CLI::App& app, context& ctx);
void add_cluster_commands(CLI::App& app, context& ctx);
void add_txn_commands(CLI::App& app, context& ctx);
void add_env_command(CLI::App& app, context& ctx);
void add_completion_command(CLI::App& app, context& ctx);
void add_fault_commands(CLI::App& app, context& ctx);
void add_tenant_commands(CLI::App& app, context& ctx);

// "k=v" (for -c/--config); throws usage_error.
std::pair<std::string, std::string> split_kv(const std::string& kv, const char* what);

}  // namespace ketch::cli
