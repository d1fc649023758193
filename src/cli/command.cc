#include "cli/command.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

namespace ketch::cli {

void add_connection_options(CLI::App* cmd, context& ctx) {
    cmd->add_option("-b,--brokers", ctx.brokers_flag,
                    "bootstrap servers, host:port[,host:port] (KAFKA_BOOTSTRAP_SERVERS)")
        ->delimiter(',');
    cmd->add_option("-X", ctx.properties,
                    "client property key=value: security.protocol, sasl.mechanism, sasl.username, sasl.password, "
                    "ssl.ca.location, ...");
    cmd->add_option("--profile", ctx.profile, "use the settings `ketch env --profile NAME` saved ($KETCH_PROFILE)");
    cmd->add_flag("--json", ctx.json, "JSON output for scripts");
}

CLI::App* add_broker_command(CLI::App* parent, context& ctx, const std::string& name, const std::string& help,
                             const std::string& examples, std::function<void()> run) {
    auto* cmd = parent->add_subcommand(name, help);
    add_connection_options(cmd, ctx);
    cmd->footer(examples);
    cmd->callback(std::move(run));
    return cmd;
}

client_config context::settings() const {
    client_config c;
    std::string name = profile;
    if (name.empty())
        if (const char* p = std::getenv("KETCH_PROFILE"); p && *p) name = p;
    bool explicit_profile = !name.empty();
    if (name.empty()) {
        std::ifstream cur(config_dir() + "/current");
        std::getline(cur, name);
    }
    if (!name.empty()) {
        std::ifstream in(profile_path(name));
        if (!in) {
            if (explicit_profile)
                throw usage_error("no profile '" + name + "' (" + profile_path(name) + "); `ketch env --profile " +
                                  name + "` writes it");
        } else {
            std::stringstream ss;
            ss << in.rdbuf();
            if (auto err = apply_properties_text(c, ss.str()))
                throw usage_error("profile " + profile_path(name) + ": " + *err);
        }
    }
    if (const char* env = std::getenv("KAFKA_BOOTSTRAP_SERVERS"); env && *env) c.brokers = split_list(env);
    for (auto& p : properties)
        if (auto err = apply_property(c, p)) throw usage_error("-X " + p + ": " + *err);
    if (!brokers_flag.empty()) c.brokers = brokers_flag;
    if (c.brokers.empty())
        throw usage_error(
            "no brokers: give -b host:port, set KAFKA_BOOTSTRAP_SERVERS, or save a profile with "
            "`ketch env --profile NAME`");
    for (auto& b : c.brokers) {
        try {
            split_host_port(b);
        } catch (const std::invalid_argument& e) {
            throw usage_error(std::string("broker address: ") + e.what());
        }
    }
    if (c.uses_tls()) c.tls.enabled = true;
    return c;
}

client& context::connect() {
    if (!client_) client_ = std::make_unique<client>(settings());
    return *client_;
}

void print_table(std::ostream& out, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows) {
    std::vector<size_t> width(header.size());
    for (size_t i = 0; i < header.size(); ++i) width[i] = header[i].size();
    for (auto& r : rows)
        for (size_t i = 0; i < r.size() && i < width.size(); ++i) width[i] = std::max(width[i], r[i].size());
    auto line = [&](const std::vector<std::string>& cells) {
        std::string s;
        for (size_t i = 0; i < cells.size() && i < width.size(); ++i) {
            s += cells[i];
            if (i + 1 < cells.size()) s += std::string(width[i] - cells[i].size() + 2, ' ');
        }
        out << s << "\n";
    };
    line(header);
    for (auto& r : rows) line(r);
}

bool print_json(bool as_json, const json& answer) {
    if (as_json) std::cout << answer.dump() << "\n";
    return as_json;
}

void print_answer(bool as_json, const json& answer, const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows) {
    if (!print_json(as_json, answer)) print_table(std::cout, header, rows);
}

void answer::fail(int16_t code, std::string what, std::string broker_message) {
    if (code && !first) first.emplace(code, std::move(what), std::move(broker_message));
}

void answer::print(bool as_json, const std::vector<std::string>& header) const {
    print_answer(as_json, out, header, rows);
    if (first) throw *first;
}

std::pair<std::string, std::string> split_kv(const std::string& kv, const char* what) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
        throw usage_error(std::string(what) + ": expected key=value, got '" + kv + "'");
    return {kv.substr(0, eq), kv.substr(eq + 1)};
}

}  // namespace ketch::cli
