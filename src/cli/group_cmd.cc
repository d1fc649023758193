// ketch group list|describe|delete|seek
#include <iostream>
#include <set>

#include "cli/command.h"
#include "cli/group_describe.h"
#include "cli/group_offsets.h"
#include "cli/offsets.h"
#include "protocol/messages/delete_groups.h"
#include "protocol/messages/list_groups.h"

namespace ketch::cli {

namespace {

struct group_opts {
    std::vector<std::string> groups;
    std::string group;
    std::vector<std::string> topics;
    bool to_earliest = false, to_latest = false, dry_run = false;
    std::optional<int64_t> to_timestamp, to_offset, shift_by;
};

void list_groups(context& ctx) {
    auto& c = ctx.connect();
    auto m = c.metadata(std::vector<std::string>{});
    std::map<std::string, kafka::list_groups_response::listed_group> all;
    for (auto& b : m.brokers) {
        kafka::list_groups_request req;
        auto resp = c.call<kafka::list_groups_response>(req, b.node_id);
        check(resp.error_code, "list groups on broker " + std::to_string(b.node_id));
        for (auto& g : resp.groups) all[g.group_id] = g;
    }
    answer a;
    for (auto& [id, g] : all) {
        a.out.push_back(
            {{"group", id}, {"protocol_type", g.protocol_type}, {"state", g.group_state}, {"type", g.group_type}});
        a.rows.push_back({id, g.group_state, g.group_type.empty() ? g.protocol_type : g.group_type});
    }
    a.print(ctx.json, {"GROUP", "STATE", "TYPE"});
}

// Lag rows: topic, partition, committed, end, lag.
json lag_of(client& c, const std::string& group, std::vector<std::vector<std::string>>& rows) {
    auto committed = fetch_committed(c, group, std::nullopt);
    std::map<std::string, std::map<int32_t, int64_t>> by_topic;
    for (auto& [tp, off] : committed) by_topic[tp.first][tp.second] = off;
    json out = json::array();
    for (auto& [topic, parts] : by_topic) {
        std::map<int32_t, int64_t> ends;
        try {
            auto leaders = c.leaders(topic);
            std::map<int32_t, int32_t> chosen;
            for (auto& [p, _] : parts)
                if (leaders.count(p)) chosen[p] = leaders[p];
            ends = list_offsets(c, topic, chosen, k_latest);
        } catch (const kafka_error&) {
        }
        for (auto& [p, off] : parts) {
            auto e = ends.find(p);
            int64_t end = e == ends.end() ? -1 : e->second;
            int64_t lag = end < 0 ? -1 : std::max<int64_t>(0, end - off);
            out.push_back(
                {{"topic", topic}, {"partition", p}, {"committed_offset", off}, {"end_offset", end}, {"lag", lag}});
            rows.push_back({topic, std::to_string(p), std::to_string(off), end < 0 ? "-" : std::to_string(end),
                            lag < 0 ? "-" : std::to_string(lag)});
        }
    }
    return out;
}

void show_group(context& ctx, group_opts& o) {
    auto& c = ctx.connect();
    json all = json::array();
    for (auto& id : o.groups) {
        auto g = describe_group(c, id);
        std::vector<std::vector<std::string>> rows;
        json lag = lag_of(c, id, rows);
        if (g.state == "Dead" && lag.empty()) throw kafka_error(69, "group '" + id + "'");
        json members = json::array();
        std::vector<std::vector<std::string>> mrows;
        for (auto& m : g.members) {
            json assigned = json::array();
            std::string shown;
            for (auto& [t, p] : m.assignment) {
                assigned.push_back({{"topic", t}, {"partition", p}});
                shown += (shown.empty() ? "" : ",") + t + "-" + std::to_string(p);
            }
            json j = {{"member_id", m.member_id},
                      {"client_id", m.client_id},
                      {"client_host", m.client_host},
                      {"group_instance_id", m.instance_id ? json(*m.instance_id) : json(nullptr)}};
            if (m.member_epoch) {
                j["member_epoch"] = *m.member_epoch;
                j["assignment"] = assigned;
            }
            members.push_back(std::move(j));
            mrows.push_back({m.member_id, m.client_id, m.client_host, shown});
        }
        int64_t total = 0;
        for (auto& l : lag)
            if (l["lag"].get<int64_t>() > 0) total += l["lag"].get<int64_t>();
        json one = {{"group", id},
                    {"state", g.state},
                    {"type", g.type},
                    {"protocol_type", g.protocol_type},
                    {"protocol", g.protocol},
                    {"members", members},
                    {"offsets", lag},
                    {"total_lag", total}};
        if (g.epoch) one["group_epoch"] = *g.epoch;
        all.push_back(std::move(one));
        if (!ctx.json) {
            std::cout << "GROUP        " << id << "\nSTATE        " << g.state << "\nTYPE         " << g.type
                      << "\nPROTOCOL     " << g.protocol_type << (g.protocol.empty() ? "" : "/" + g.protocol)
                      << "\nMEMBERS      " << g.members.size() << "\nTOTAL-LAG    " << total << "\n\n";
            if (!mrows.empty()) {
                print_table(std::cout, {"MEMBER-ID", "CLIENT-ID", "HOST", "ASSIGNMENT"}, mrows);
                std::cout << "\n";
            }
            print_table(std::cout, {"TOPIC", "PARTITION", "COMMITTED", "END", "LAG"}, rows);
        }
    }
    if (ctx.json) std::cout << (all.size() == 1 ? all.front() : all).dump() << "\n";
}

void remove_group(context& ctx, group_opts& o) {
    auto& c = ctx.connect();
    std::optional<kafka_error> first;
    json out = json::array();
    for (auto& id : o.groups) {
        int node = c.coordinator(id, coordinator_type::group);
        kafka::delete_groups_request req;
        req.groups_names = {id};
        auto resp = c.call<kafka::delete_groups_response>(req, node);
        for (auto& r : resp.results) {
            out.push_back({{"group", r.group_id}, {"error", r.error_code ? error_name_of(r.error_code) : ""}});
            if (!ctx.json)
                std::cout << r.group_id << "  " << (r.error_code ? error_name_of(r.error_code) : "deleted") << "\n";
            if (r.error_code && !first) first.emplace(r.error_code, "delete group '" + r.group_id + "'");
        }
    }
    if (ctx.json) std::cout << out.dump() << "\n";
    if (first) throw *first;
}

void seek(context& ctx, group_opts& o) {
    int modes = int(o.to_earliest) + int(o.to_latest) + int(o.to_timestamp.has_value()) + int(o.to_offset.has_value()) +
                int(o.shift_by.has_value());
    if (modes != 1)
        throw usage_error(
            "give exactly one of --to-earliest, --to-latest, --to-timestamp MS, --to-offset N, --shift-by N");
    auto& c = ctx.connect();
    auto current = fetch_committed(c, o.group, std::nullopt);
    std::set<std::string> topics(o.topics.begin(), o.topics.end());
    if (topics.empty())
        for (auto& [tp, _] : current) topics.insert(tp.first);
    if (topics.empty())
        throw usage_error("group '" + o.group + "' has no committed offsets; name the topics with -t/--topic");
    std::map<topic_partition, int64_t> target;
    for (auto& topic : topics) {
        auto leaders = c.leaders(topic);
        auto start = list_offsets(c, topic, leaders, k_earliest);
        auto end = list_offsets(c, topic, leaders, k_latest);
        std::map<int32_t, int64_t> at;
        if (o.to_timestamp) at = list_offsets(c, topic, leaders, *o.to_timestamp);
        for (auto& [p, _] : leaders) {
            int64_t s = start[p], e = end[p];
            int64_t now = current.count({topic, p}) ? current[{topic, p}] : s;
            int64_t v;
            if (o.to_earliest)
                v = s;
            else if (o.to_latest)
                v = e;
            else if (o.to_offset)
                v = std::clamp(*o.to_offset, s, e);
            else if (o.shift_by)
                v = std::clamp(now + *o.shift_by, s, e);
            else
                v = at[p] >= 0 ? at[p] : e;
            target[{topic, p}] = v;
        }
    }
    json out = json::array();
    std::vector<std::vector<std::string>> rows;
    for (auto& [tp, v] : target) {
        auto it = current.find(tp);
        out.push_back({{"topic", tp.first},
                       {"partition", tp.second},
                       {"current_offset", it == current.end() ? json(nullptr) : json(it->second)},
                       {"new_offset", v}});
        rows.push_back({tp.first, std::to_string(tp.second), it == current.end() ? "-" : std::to_string(it->second),
                        std::to_string(v)});
    }
    if (!o.dry_run) commit_offsets(c, o.group, target);
    if (ctx.json)
        std::cout << json{{"group", o.group}, {"dry_run", o.dry_run}, {"offsets", out}}.dump() << "\n";
    else {
        print_table(std::cout, {"TOPIC", "PARTITION", "CURRENT", "NEW"}, rows);
        if (o.dry_run) std::cout << "(dry run: nothing committed)\n";
    }
}

}  // namespace

void add_group_commands(CLI::App& app, context& ctx) {
    auto o = std::make_shared<group_opts>();
    auto* g = app.add_subcommand("group", "list, describe (with lag), delete and reset consumer groups");
    g->require_subcommand(1);
    add_broker_command(g, ctx, "list", "the groups of every broker", "Example:\n  ketch group list",
                       [&ctx] { list_groups(ctx); });

    auto* d = add_broker_command(g, ctx, "describe", "state, members, committed offsets and lag",
                                 "Example:\n  ketch group describe billing --json | jq .total_lag",
                                 [&ctx, o] { show_group(ctx, *o); });
    d->add_option("groups", o->groups, "group ids")->required();

    auto* del = add_broker_command(g, ctx, "delete", "delete groups (they must be empty)",
                                   "Example:\n  ketch group delete billing", [&ctx, o] { remove_group(ctx, *o); });
    del->add_option("groups", o->groups, "group ids")->required();

    auto* s =
        add_broker_command(g, ctx, "seek", "reset a group's committed offsets (the group must have no active members)",
                           "Examples:\n  ketch group seek billing --to-earliest -t orders --dry-run\n  ketch group "
                           "seek billing --shift-by -100",
                           [&ctx, o] { seek(ctx, *o); });
    s->add_option("group", o->group, "group id")->required();
    s->add_option("-t,--topic", o->topics, "topics (default: those the group has offsets for; repeatable)");
    s->add_flag("--to-earliest", o->to_earliest, "to the log start");
    s->add_flag("--to-latest", o->to_latest, "to the end");
    s->add_option("--to-timestamp", o->to_timestamp, "to the first record at or after this time (ms)");
    s->add_option("--to-offset", o->to_offset, "to this offset (clamped to the log)");
    s->add_option("--shift-by", o->shift_by, "move by N (negative: back)");
    s->add_flag("--dry-run", o->dry_run, "show the new offsets without committing");
}

}  // namespace ketch::cli
