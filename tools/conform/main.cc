// ketch-conform: records Apache Kafka's answers to request scenarios and
// replays them against ketch (design: /work/shared/design/CONFORMANCE.md,
// user guide: conformance/differences.md).
//
//   ketch-conform record --bootstrap H:P --scenario S.json --out R.json [--runs 2]
//   ketch-conform replay --bootstrap H:P --differences D.md R.json...
//   ketch-conform rules
#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "compare.h"
#include "differences.h"
#include "normalize.h"
#include "recording.h"
#include "runner.h"

using namespace ketch::conform;

namespace {

constexpr size_t k_max_diffs_per_step = 12;

std::string utc_now() {
    std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

void print_diffs(const std::string& scenario_name, const std::string& left, const std::string& right,
                 const step_verdict& v, bool show_allowed) {
    size_t shown = 0, hidden = 0;
    for (auto& d : v.diffs) {
        if (d.allowed_by && !show_allowed) continue;
        if (shown == k_max_diffs_per_step) {
            ++hidden;
            continue;
        }
        ++shown;
        std::cout << "  " << (d.allowed_by ? "allowed " : "DIFF    ") << scenario_name << " step " << v.step_id << " "
                  << d.path << ": " << left << "=" << show_value(d.kafka) << " " << right << "=" << show_value(d.ketch);
        if (d.allowed_by)
            std::cout << "  [" << d.allowed_by->id << (d.allowed_by->temporary ? ", temporary" : "") << "]";
        std::cout << "\n";
    }
    if (hidden) std::cout << "  ... " << hidden << " more in " << scenario_name << " step " << v.step_id << "\n";
}

int cmd_record(const std::string& bootstrap, const std::string& scenario_path, const std::string& out_path,
               const std::string& kafka_version, int runs, std::chrono::milliseconds timeout) {
    scenario sc = load_scenario(scenario_path);
    runner r(bootstrap, timeout);
    std::vector<std::vector<step_outcome>> results;
    for (int i = 0; i < runs; ++i) {
        bindings b(bindings::new_run_id());
        results.push_back(r.run(sc, b));
    }
    // Two runs of the reference must agree after normalisation, or a rule is missing.
    auto first = normalize_run(sc, results[0], bootstrap);
    bool stable = true;
    difference_usage none;
    const std::vector<allowed_difference> no_differences;
    for (int i = 1; i < runs; ++i) {
        auto other = normalize_run(sc, results[size_t(i)], bootstrap);
        scenario_comparison cmp(sc.name, no_differences, none);
        for (size_t s = 0; s < first.size(); ++s) {
            auto v = cmp.compare(first[s], other[s]);
            if (!v.ok()) {
                stable = false;
                print_diffs(sc.name, "run1", "run" + std::to_string(i + 1), v, false);
            }
        }
    }
    if (!stable) {
        std::cerr << "record " << sc.name << ": answers differ between runs (missing normalisation rule?); "
                  << "not written\n";
        return 1;
    }
    recording rec{sc, kafka_version, utc_now(), bootstrap, results[0]};
    write_json_file(out_path, rec.to_json());
    std::cout << "recorded " << sc.name << ": " << sc.steps.size() << " steps -> " << out_path << "\n";
    return 0;
}

bool rules_documented(const std::string& md_path) {
    std::ifstream in(md_path);
    std::stringstream ss;
    ss << in.rdbuf();
    bool ok = true;
    for (auto& r : all_rules())
        if (ss.str().find("`" + r.name + "`") == std::string::npos) {
            std::cerr << md_path << ": normalisation rule `" << r.name << "` is not listed\n";
            ok = false;
        }
    return ok;
}

int cmd_replay(const std::string& bootstrap, const std::string& differences_path,
               const std::vector<std::string>& recordings, bool verbose, std::chrono::milliseconds timeout) {
    auto allowed = load_differences(differences_path);
    bool docs_ok = rules_documented(differences_path);
    auto served = served_apis(bootstrap, timeout);
    runner r(bootstrap, timeout);
    int passed = 0, failed = 0, skipped = 0;
    difference_usage usage;
    for (auto& path : recordings) {
        recording rec = recording::from_json(read_json_file(path));
        const scenario& sc = rec.definition;
        std::vector<std::string> missing;
        for (auto& api : sc.requires_apis)
            if (!served.count(api)) missing.push_back(api);
        if (!missing.empty()) {
            std::cout << "SKIP " << sc.name << ": ketch does not serve";
            for (auto& m : missing) std::cout << " " << m;
            std::cout << "\n";
            ++skipped;
            continue;
        }
        bindings b(bindings::new_run_id());
        auto ours = normalize_run(sc, r.run(sc, b), bootstrap);
        auto theirs = normalize_run(sc, rec.steps, rec.broker_address);
        bool ok = true;
        std::vector<step_verdict> verdicts;
        scenario_comparison cmp(sc.name, allowed, usage);
        for (size_t i = 0; i < ours.size(); ++i) {
            verdicts.push_back(cmp.compare(theirs[i], ours[i]));
            ok = ok && verdicts.back().ok();
        }
        std::cout << (ok ? "PASS " : "FAIL ") << sc.name << " (" << sc.steps.size() << " steps)\n";
        for (auto& v : verdicts) print_diffs(sc.name, "kafka", "ketch", v, verbose);
        (ok ? passed : failed)++;
    }
    for (auto& d : allowed)
        if (usage.considered.count(d.id) && !usage.used.count(d.id))
            std::cout << "note: allowed difference " << d.id << " applied to replayed steps but allowed nothing "
                      << "(stale? remove it from " << differences_path << ")\n";
    std::cout << "conformance: " << passed << " passed, " << failed << " failed, " << skipped << " skipped\n";
    return failed == 0 && docs_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"ketch-conform: record Apache Kafka's answers, replay them against ketch"};
    app.require_subcommand(1);
    std::string bootstrap, scenario_path, out_path, kafka_version = "4.3.1", differences_path;
    std::vector<std::string> recordings;
    int runs = 2, timeout_ms = 30000;
    bool verbose = false;

    auto* rec = app.add_subcommand("record", "run a scenario against the reference Kafka and write a recording");
    rec->add_option("--bootstrap", bootstrap, "host:port of the reference broker")->required();
    rec->add_option("--scenario", scenario_path, "scenario JSON")->required();
    rec->add_option("--out", out_path, "recording JSON to write")->required();
    rec->add_option("--kafka-version", kafka_version, "version of the reference broker");
    rec->add_option("--runs", runs, "runs that must agree after normalisation")->check(CLI::Range(1, 10));
    rec->add_option("--timeout-ms", timeout_ms, "per-answer timeout");

    auto* rep = app.add_subcommand("replay", "replay recordings against a broker and compare");
    rep->add_option("--bootstrap", bootstrap, "host:port of ketch")->required();
    rep->add_option("--differences", differences_path, "conformance/differences.md")->required();
    rep->add_option("--recording,recordings", recordings, "recording JSON files")->required();
    rep->add_flag("--verbose,-v", verbose, "also print allowed differences");
    rep->add_option("--timeout-ms", timeout_ms, "per-answer timeout");

    auto* rules = app.add_subcommand("rules", "list the normalisation rules");
    CLI11_PARSE(app, argc, argv);

    try {
        auto timeout = std::chrono::milliseconds(timeout_ms);
        if (*rec) return cmd_record(bootstrap, scenario_path, out_path, kafka_version, runs, timeout);
        if (*rep) return cmd_replay(bootstrap, differences_path, recordings, verbose, timeout);
        if (*rules) {
            for (auto& r : all_rules())
                std::cout << "- `" << r.name << "` (" << r.paths << ")" << (r.opt_in ? " opt-in" : "") << ": " << r.what
                          << "\n";
            return 0;
        }
    } catch (const std::exception& e) {
        std::cerr << "ketch-conform: " << e.what() << "\n";
        return 2;
    }
    return 0;
}
