#include "cli/run.h"

#include <array>
#include <iostream>

namespace ketch::cli {

namespace {
constexpr std::array k_groups = {"topic",   "produce", "consume", "group",      "acl",   "user",  "quota",
                                 "cluster", "txn",     "env",     "completion", "fault", "tenant"};
}

bool is_command(std::string_view arg) {
    for (auto g : k_groups)
        if (arg == g) return true;
    return false;
}

int run(int argc, char** argv, local_broker_fn local) {
    // stdin/stdout carry the records: C++ streams without the C stdio sync.
    std::ios::sync_with_stdio(false);
    context ctx;
    ctx.local = std::move(local);
    CLI::App app{
        "ketch: the Kafka command line (topics, produce, consume, groups, ACLs, users, quotas) "
        "against any Kafka-compatible cluster"};
    app.name("ketch");
    app.require_subcommand(1);
    app.footer(
        "Connection: -b host:port (or KAFKA_BOOTSTRAP_SERVERS, or a profile from `ketch env --profile NAME`),\n"
        "-X security.protocol=SASL_SSL -X sasl.mechanism=SCRAM-SHA-256 -X sasl.username=U -X sasl.password=P\n"
        "-X ssl.ca.location=ca.pem. Exit codes: 0 ok, 1 error, 2 usage. See docs/cli.md.");
    add_topic_commands(app, ctx);
    add_produce_command(app, ctx);
    add_consume_command(app, ctx);
    add_group_commands(app, ctx);
    add_acl_commands(app, ctx);
    add_user_commands(app, ctx);
    add_quota_commands(app, ctx);
    add_cluster_commands(app, ctx);
    add_txn_commands(app, ctx);
    add_env_command(app, ctx);
    add_completion_command(app, ctx);
    add_fault_commands(app, ctx);
    add_tenant_commands(app, ctx);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return 2;
    } catch (const usage_error& e) {
        std::cerr << "ketch: " << e.what() << " (see --help)\n";
        return 2;
    } catch (const kafka_error& e) {
        std::cerr << "ketch: " << e.what() << "\n";
        if (auto h = error_hint(e.code); !h.empty()) std::cerr << "hint: " << h << "\n";
        return 1;
    } catch (const network_error& e) {
        std::cerr << "ketch: " << e.what() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "ketch: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

}  // namespace ketch::cli
