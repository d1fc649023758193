// ketch fault add|list|clear: scripted faults of a broker started with
// --faults (docs/cli.md, docs/design/faults.md), through its console's
// /api/v1/faults (--console-url, KETCH_CONSOLE_URL, default
// http://127.0.0.1:9093).
#include <cstdlib>
#include <iostream>

#include "cli/command.h"
#include "cli/http_client.h"

namespace ketch::cli {

namespace {

struct fault_opts {
    std::string url;
    bool json = false;
    std::string kind, error, api, topic, client_id;
    std::optional<int32_t> partition;
    std::optional<int64_t> count, duration_ms;
    std::vector<std::string> ids;
};

std::string console_url(const fault_opts& o) {
    if (!o.url.empty()) return o.url;
    if (const char* env = std::getenv("KETCH_CONSOLE_URL"); env && *env) return env;
    return "http://127.0.0.1:9093";
}

// The answer's JSON; a 4xx/5xx becomes an error with the console's message.
json call_faults(const fault_opts& o, const std::string& method, const std::string& path,
                 const std::string& body = {}) {
    return console_call(console_url(o), method, path, body);
}

std::string cell(const json& f, const char* key) {
    if (!f.contains(key) || f[key].is_null()) return "-";
    return f[key].is_string() ? f[key].get<std::string>() : f[key].dump();
}

void add_fault(const fault_opts& o) {
    json b = {{"kind", o.kind}};
    if (!o.error.empty()) {
        if (std::isdigit(static_cast<unsigned char>(o.error[0])))
            b["error_code"] = std::atoi(o.error.c_str());
        else
            b["error"] = o.error;
    }
    if (!o.api.empty()) {
        if (std::isdigit(static_cast<unsigned char>(o.api[0])))
            b["api"] = std::atoi(o.api.c_str());
        else
            b["api"] = o.api;
    }
    if (!o.topic.empty()) b["topic"] = o.topic;
    if (o.partition) b["partition"] = *o.partition;
    if (!o.client_id.empty()) b["client_id"] = o.client_id;
    if (o.count) b["count"] = *o.count;
    if (o.duration_ms) b["duration_ms"] = *o.duration_ms;
    auto f = call_faults(o, "POST", "/api/v1/faults", b.dump());
    if (!print_json(o.json, f)) std::cout << "fault " << cell(f, "id") << " added\n";
}

void list_faults(const fault_opts& o) {
    auto j = call_faults(o, "GET", "/api/v1/faults");
    if (print_json(o.json, j)) return;
    std::vector<std::vector<std::string>> rows;
    for (auto& f : j["faults"]) {
        std::string what = cell(f, "kind");
        if (f.contains("error")) what += " " + cell(f, "error");
        if (f.contains("duration_ms")) what += " " + cell(f, "duration_ms") + "ms";
        rows.push_back({cell(f, "id"), what, cell(f, "api"), cell(f, "topic"), cell(f, "partition"),
                        cell(f, "client_id"), f["remaining"].is_null() ? "until cleared" : cell(f, "remaining"),
                        cell(f, "injected")});
    }
    print_table(std::cout, {"ID", "FAULT", "API", "TOPIC", "PARTITION", "CLIENT", "REMAINING", "INJECTED"}, rows);
}

void clear(const fault_opts& o) {
    if (o.ids.empty()) {
        auto j = call_faults(o, "DELETE", "/api/v1/faults");
        if (!print_json(o.json, j)) std::cout << cell(j, "cleared") << " fault(s) cleared\n";
        return;
    }
    for (auto& id : o.ids) {
        auto j = call_faults(o, "DELETE", "/api/v1/faults/" + id);
        if (!print_json(o.json, j)) std::cout << "fault " << id << " cleared\n";
    }
}

void fault_options(CLI::App* c, fault_opts& o) {
    c->add_option("--console-url", o.url,
                  "the broker's console (default $KETCH_CONSOLE_URL, else http://127.0.0.1:9093)");
    c->add_flag("--json", o.json, "print the console's JSON answer");
}

}  // namespace

void add_fault_commands(CLI::App& app, context&) {
    auto o = std::make_shared<fault_opts>();
    auto* g = app.add_subcommand("fault", "inject faults into a broker started with --faults (docs/cli.md)");
    g->require_subcommand(1);
    auto* a = g->add_subcommand("add", "inject a fault into the next matching requests");
    fault_options(a, *o);
    a->add_option("kind", o->kind, "error, latency, drop, disk_full, fsync_error or pause")
        ->required()
        ->check(CLI::IsMember({"error", "latency", "drop", "disk_full", "fsync_error", "pause"}));
    a->add_option("--error", o->error, "the Kafka error answered (name, e.g. NOT_LEADER_OR_FOLLOWER, or code)");
    a->add_option("--api", o->api, "match this API only (name, e.g. Produce, or key)");
    a->add_option("--topic", o->topic, "match requests naming this topic (disk faults: its partition files)");
    a->add_option("--partition", o->partition, "with --topic: match this partition only");
    a->add_option("--client-id", o->client_id, "match this client id only");
    a->add_option("--count", o->count, "inject this many times (default: until cleared)");
    a->add_option("--duration-ms", o->duration_ms, "latency or pause length");
    a->footer(
        "Examples:\n  ketch fault add error --error NOT_LEADER_OR_FOLLOWER --api Produce --count 3\n"
        "  ketch fault add latency --duration-ms 500 --api Fetch\n"
        "  ketch fault add disk_full --topic orders --partition 0");
    a->callback([o] { add_fault(*o); });
    auto* l = g->add_subcommand("list", "the active faults");
    fault_options(l, *o);
    l->callback([o] { list_faults(*o); });
    auto* c = g->add_subcommand("clear", "remove the given faults (default: all)");
    fault_options(c, *o);
    c->add_option("id", o->ids, "fault ids (none: clear all)");
    c->callback([o] { clear(*o); });
}

}  // namespace ketch::cli
