// ketch env: ready-to-paste client settings for a cluster, and profiles.
//
// Without -b it describes the broker that the given broker flags (--listen,
// --listener, --config, ...) would run, as `ketch env` always has; with -b/-X
// it describes those settings. --profile NAME also saves them to
// <config dir>/NAME.properties and makes NAME the profile later commands use.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>

#include "cli/command.h"

namespace ketch::cli {

namespace {

struct env_opts {
    std::vector<std::string> brokers;
    std::vector<std::string> properties;
    std::string profile;
    std::string format = "shell";
};

std::string q(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

// What every format prints, taken from the settings once.
struct env_view {
    const client_config& c;
    std::string bootstrap;
    bool sasl, tls;
    std::string user, pass, ca;

    explicit env_view(const client_config& cfg)
        : c(cfg),
          sasl(cfg.uses_sasl()),
          tls(cfg.uses_tls()),
          user(cfg.sasl_username.empty() ? "<user>" : cfg.sasl_username),
          pass(cfg.sasl_password.empty() ? "<password>" : cfg.sasl_password),
          ca(cfg.tls.ca_location) {
        for (auto& b : cfg.brokers) bootstrap += (bootstrap.empty() ? "" : ",") + b;
    }
    bool ca_file() const { return tls && !ca.empty(); }
    // The brokers, each quoted with `quote`, comma separated.
    std::string broker_list(const std::function<std::string(const std::string&)>& quote) const {
        std::string out;
        for (auto& b : c.brokers) out += (out.empty() ? "" : ", ") + quote(b);
        return out;
    }
};

void print_shell(const env_view& e) {
    std::cout << "KAFKA_BOOTSTRAP_SERVERS=" << e.bootstrap << "\n";
    if (e.c.security_protocol != "PLAINTEXT") std::cout << "KAFKA_SECURITY_PROTOCOL=" << e.c.security_protocol << "\n";
    if (e.sasl) std::cout << "KAFKA_SASL_MECHANISM=" << e.c.sasl_mechanism << "\n";
    if (e.ca_file()) std::cout << "KAFKA_SSL_CA_LOCATION=" << e.ca << "\n";
}

void print_java(const env_view& e) {
    std::cout << "bootstrap.servers=" << e.bootstrap << "\nsecurity.protocol=" << e.c.security_protocol << "\n";
    if (e.sasl) {
        std::cout << "sasl.mechanism=" << e.c.sasl_mechanism << "\n";
        std::string module = e.c.sasl_mechanism == "PLAIN" ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                                                           : "org.apache.kafka.common.security.scram.ScramLoginModule";
        std::cout << "sasl.jaas.config=" << module << " required username=" << q(e.user) << " password=" << q(e.pass)
                  << ";\n";
    }
    if (e.ca_file()) std::cout << "ssl.truststore.type=PEM\nssl.truststore.location=" << e.ca << "\n";
}

void print_librdkafka(const env_view& e) {
    std::cout << "bootstrap.servers=" << e.bootstrap << "\nsecurity.protocol=" << e.c.security_protocol << "\n";
    if (e.sasl)
        std::cout << "sasl.mechanisms=" << e.c.sasl_mechanism << "\nsasl.username=" << e.user
                  << "\nsasl.password=" << e.pass << "\n";
    if (e.ca_file()) std::cout << "ssl.ca.location=" << e.ca << "\n";
}

void print_python(const env_view& e) {
    std::cout << "conf = {\n    \"bootstrap.servers\": " << q(e.bootstrap)
              << ",\n    \"security.protocol\": " << q(e.c.security_protocol) << ",\n";
    if (e.sasl)
        std::cout << "    \"sasl.mechanisms\": " << q(e.c.sasl_mechanism) << ",\n    \"sasl.username\": " << q(e.user)
                  << ",\n    \"sasl.password\": " << q(e.pass) << ",\n";
    if (e.ca_file()) std::cout << "    \"ssl.ca.location\": " << q(e.ca) << ",\n";
    std::cout << "}\n";
}

void print_franz_go(const env_view& e) {
    std::cout << "opts := []kgo.Opt{\n    kgo.SeedBrokers(" << e.broker_list(q) << "),\n";
    if (e.tls)
        std::cout << "    kgo.DialTLSConfig(tlsConfig), // tls.Config with RootCAs from "
                  << (e.ca.empty() ? "the system" : e.ca) << "\n";
    if (e.sasl) {
        if (e.c.sasl_mechanism == "PLAIN")
            std::cout << "    kgo.SASL(plain.Auth{User: " << q(e.user) << ", Pass: " << q(e.pass)
                      << "}.AsMechanism()),\n";
        else
            std::cout << "    kgo.SASL(scram.Auth{User: " << q(e.user) << ", Pass: " << q(e.pass) << "}.As"
                      << (e.c.sasl_mechanism == "SCRAM-SHA-512" ? "Sha512" : "Sha256") << "Mechanism()),\n";
    }
    std::cout << "}\n";
}

void print_kafkajs(const env_view& e) {
    std::cout << "const kafka = new Kafka({\n  brokers: ["
              << e.broker_list([](const std::string& b) { return "'" + b + "'"; }) << "],\n";
    if (e.tls)
        std::cout << "  ssl: " << (e.ca.empty() ? "true" : "{ ca: [fs.readFileSync('" + e.ca + "', 'utf-8')] }")
                  << ",\n";
    if (e.sasl) {
        const auto& m = e.c.sasl_mechanism;
        std::string js = m == "PLAIN" ? "plain" : m == "SCRAM-SHA-256" ? "scram-sha-256" : "scram-sha-512";
        std::cout << "  sasl: { mechanism: '" << js << "', username: '" << e.user << "', password: '" << e.pass
                  << "' },\n";
    }
    std::cout << "})\n";
}

struct env_format {
    std::vector<std::string> names;  // what --format accepts
    const char* title;               // the section heading of --format all
    void (*print)(const env_view&);
};

const std::vector<env_format>& env_formats() {
    static const std::vector<env_format> formats = {
        {{"shell"}, "shell (ketch, kcat: KAFKA_BOOTSTRAP_SERVERS)", print_shell},
        {{"java"}, "Java client properties", print_java},
        {{"librdkafka", "kcat"}, "librdkafka / kcat (-F file, or -X each line)", print_librdkafka},
        {{"python"}, "confluent-kafka Python", print_python},
        {{"franz-go", "go"}, "franz-go (kgo options)", print_franz_go},
        {{"kafkajs"}, "kafkajs", print_kafkajs},
    };
    return formats;
}

void print_env(const client_config& c, const std::string& fmt, bool json_out) {
    env_view e(c);
    if (json_out) {
        json j{{"bootstrap.servers", e.bootstrap}, {"security.protocol", c.security_protocol}};
        if (e.sasl) j["sasl.mechanism"] = c.sasl_mechanism;
        if (e.ca_file()) j["ssl.ca.location"] = e.ca;
        std::cout << j.dump() << "\n";
        return;
    }
    bool all = fmt == "all";
    for (auto& f : env_formats()) {
        if (!all && std::find(f.names.begin(), f.names.end(), fmt) == f.names.end()) continue;
        if (all) std::cout << "\n# " << f.title << "\n";
        f.print(e);
    }
}

void run_env(context& ctx, env_opts& o, const std::vector<std::string>& broker_args) {
    client_config c;
    if (o.brokers.empty() && !std::getenv("KAFKA_BOOTSTRAP_SERVERS")) {
        if (!ctx.local) throw usage_error("give -b host:port");
        local_broker lb;
        try {
            lb = ctx.local(broker_args);
        } catch (const std::invalid_argument& e) {
            throw usage_error(e.what());
        }
        c.brokers = {lb.bootstrap};
        c.security_protocol = lb.security_protocol;
        if (!lb.sasl_mechanisms.empty()) c.sasl_mechanism = lb.sasl_mechanisms.front();
        c.tls.ca_location = lb.ca_location;
    } else {
        if (!broker_args.empty()) throw usage_error("unexpected arguments with -b: " + broker_args.front());
        if (const char* env = std::getenv("KAFKA_BOOTSTRAP_SERVERS"); env && *env) c.brokers = split_list(env);
    }
    for (auto& p : o.properties)
        if (auto err = apply_property(c, p)) throw usage_error("-X " + p + ": " + *err);
    if (!o.brokers.empty()) c.brokers = o.brokers;
    print_env(c, o.format, ctx.json);
    if (o.profile.empty()) return;
    if (o.profile.find('/') != std::string::npos || o.profile.front() == '.')
        throw usage_error("a profile name may not contain '/' or start with '.'");
    std::filesystem::create_directories(config_dir());
    std::string path = profile_path(o.profile);
    {
        std::ofstream out(path, std::ios::trunc);
        out << "# written by `ketch env --profile " << o.profile << "`\n";
        for (auto& [k, v] : to_properties(c)) out << k << "=" << v << "\n";
        if (!out) throw std::runtime_error("cannot write " + path);
    }
    std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    std::ofstream(config_dir() + "/current", std::ios::trunc) << o.profile << "\n";
    std::cerr << "saved profile '" << o.profile << "' to " << path << " (now the default)\n";
}

}  // namespace

void add_env_command(CLI::App& app, context& ctx) {
    auto o = std::make_shared<env_opts>();
    auto* e = app.add_subcommand("env", "client settings for a cluster, ready to paste; --profile saves them");
    e->add_option("-b,--brokers", o->brokers, "describe these servers instead of the local broker")->delimiter(',');
    e->add_option("-X", o->properties, "client property key=value (security.protocol, sasl.*, ssl.ca.location)");
    e->add_option("--profile", o->profile, "save the settings as profile NAME and make it the default");
    e->add_option("-f,--format", o->format, "shell, java, librdkafka (kcat), python, franz-go, kafkajs or all")
        ->check(CLI::IsMember({"shell", "java", "librdkafka", "kcat", "python", "franz-go", "go", "kafkajs", "all"}));
    e->add_flag("--json", ctx.json, "JSON output");
    e->allow_extras();
    e->footer(
        "Without -b, the remaining flags are the broker's (--listen, --listener, --config, ...).\n"
        "Examples:\n  eval $(ketch env --listen 127.0.0.1:9092)\n  ketch env -f all\n"
        "  ketch env -b kafka:9093 -X security.protocol=SASL_SSL -X sasl.mechanism=SCRAM-SHA-512 "
        "-X sasl.username=alice -X sasl.password=secret --profile prod");
    e->callback([&ctx, o, e] { run_env(ctx, *o, e->remaining()); });
}

}  // namespace ketch::cli
