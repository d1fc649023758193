// ketch env: ready-to-paste client settings for a cluster, and profiles.
//
// Without -b it describes the broker that the given broker flags (--listen,
// --listener, --config, ...) would run, as `ketch env` always has; with -b/-X
// it describes those settings. --profile NAME also saves them to
// <config dir>/NAME.properties and makes NAME the profile later commands use.
#include <filesystem>
#include <fstream>
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

void print(const client_config& c, const std::string& fmt, bool json_out) {
    std::string bootstrap;
    for (auto& b : c.brokers) bootstrap += (bootstrap.empty() ? "" : ",") + b;
    bool sasl = c.uses_sasl(), tls = c.uses_tls();
    std::string user = c.sasl_username.empty() ? "<user>" : c.sasl_username;
    std::string pass = c.sasl_password.empty() ? "<password>" : c.sasl_password;
    std::string ca = c.tls.ca_location;
    if (json_out) {
        json j{{"bootstrap.servers", bootstrap}, {"security.protocol", c.security_protocol}};
        if (sasl) j["sasl.mechanism"] = c.sasl_mechanism;
        if (tls && !ca.empty()) j["ssl.ca.location"] = ca;
        std::cout << j.dump() << "\n";
        return;
    }
    bool all = fmt == "all";
    auto section = [&](const char* name) {
        if (all) std::cout << "\n# " << name << "\n";
    };
    if (fmt == "shell" || all) {
        section("shell (ketch, kcat: KAFKA_BOOTSTRAP_SERVERS)");
        std::cout << "KAFKA_BOOTSTRAP_SERVERS=" << bootstrap << "\n";
        if (c.security_protocol != "PLAINTEXT") std::cout << "KAFKA_SECURITY_PROTOCOL=" << c.security_protocol << "\n";
        if (sasl) std::cout << "KAFKA_SASL_MECHANISM=" << c.sasl_mechanism << "\n";
        if (tls && !ca.empty()) std::cout << "KAFKA_SSL_CA_LOCATION=" << ca << "\n";
    }
    if (fmt == "java" || all) {
        section("Java client properties");
        std::cout << "bootstrap.servers=" << bootstrap << "\nsecurity.protocol=" << c.security_protocol << "\n";
        if (sasl) {
            std::cout << "sasl.mechanism=" << c.sasl_mechanism << "\n";
            std::string module = c.sasl_mechanism == "PLAIN" ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                                                             : "org.apache.kafka.common.security.scram.ScramLoginModule";
            std::cout << "sasl.jaas.config=" << module << " required username=" << q(user) << " password=" << q(pass)
                      << ";\n";
        }
        if (tls && !ca.empty()) std::cout << "ssl.truststore.type=PEM\nssl.truststore.location=" << ca << "\n";
    }
    if (fmt == "librdkafka" || fmt == "kcat" || all) {
        section("librdkafka / kcat (-F file, or -X each line)");
        std::cout << "bootstrap.servers=" << bootstrap << "\nsecurity.protocol=" << c.security_protocol << "\n";
        if (sasl)
            std::cout << "sasl.mechanisms=" << c.sasl_mechanism << "\nsasl.username=" << user
                      << "\nsasl.password=" << pass << "\n";
        if (tls && !ca.empty()) std::cout << "ssl.ca.location=" << ca << "\n";
    }
    if (fmt == "python" || all) {
        section("confluent-kafka Python");
        std::cout << "conf = {\n    \"bootstrap.servers\": " << q(bootstrap) << ",\n    \"security.protocol\": "
                  << q(c.security_protocol) << ",\n";
        if (sasl)
            std::cout << "    \"sasl.mechanisms\": " << q(c.sasl_mechanism) << ",\n    \"sasl.username\": " << q(user)
                      << ",\n    \"sasl.password\": " << q(pass) << ",\n";
        if (tls && !ca.empty()) std::cout << "    \"ssl.ca.location\": " << q(ca) << ",\n";
        std::cout << "}\n";
    }
    if (fmt == "franz-go" || fmt == "go" || all) {
        section("franz-go (kgo options)");
        std::cout << "opts := []kgo.Opt{\n    kgo.SeedBrokers(";
        bool first = true;
        for (auto& b : c.brokers) {
            std::cout << (first ? "" : ", ") << q(b);
            first = false;
        }
        std::cout << "),\n";
        if (tls) std::cout << "    kgo.DialTLSConfig(tlsConfig), // tls.Config with RootCAs from " << (ca.empty() ? "the system" : ca) << "\n";
        if (sasl) {
            if (c.sasl_mechanism == "PLAIN")
                std::cout << "    kgo.SASL(plain.Auth{User: " << q(user) << ", Pass: " << q(pass) << "}.AsMechanism()),\n";
            else
                std::cout << "    kgo.SASL(scram.Auth{User: " << q(user) << ", Pass: " << q(pass) << "}.As"
                          << (c.sasl_mechanism == "SCRAM-SHA-512" ? "Sha512" : "Sha256") << "Mechanism()),\n";
        }
        std::cout << "}\n";
    }
    if (fmt == "kafkajs" || all) {
        section("kafkajs");
        std::cout << "const kafka = new Kafka({\n  brokers: [";
        bool first = true;
        for (auto& b : c.brokers) {
            std::cout << (first ? "" : ", ") << "'" << b << "'";
            first = false;
        }
        std::cout << "],\n";
        if (tls) std::cout << "  ssl: " << (ca.empty() ? "true" : "{ ca: [fs.readFileSync('" + ca + "', 'utf-8')] }") << ",\n";
        if (sasl) {
            std::string m = c.sasl_mechanism == "PLAIN" ? "plain" : c.sasl_mechanism == "SCRAM-SHA-256" ? "scram-sha-256" : "scram-sha-512";
            std::cout << "  sasl: { mechanism: '" << m << "', username: '" << user << "', password: '" << pass << "' },\n";
        }
        std::cout << "})\n";
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
    print(c, o.format, ctx.json);
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
    e->footer("Without -b, the remaining flags are the broker's (--listen, --listener, --config, ...).\n"
              "Examples:\n  eval $(ketch env --listen 127.0.0.1:9092)\n  ketch env -f all\n"
              "  ketch env -b kafka:9093 -X security.protocol=SASL_SSL -X sasl.mechanism=SCRAM-SHA-512 "
              "-X sasl.username=alice -X sasl.password=secret --profile prod");
    e->callback([&ctx, o, e] { run_env(ctx, *o, e->remaining()); });
}

}  // namespace ketch::cli
