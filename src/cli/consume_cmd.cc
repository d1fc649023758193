// ketch consume TOPIC...: reads records from a position (-o), prints them
// through a template (-f) or as JSON lines (--json), stops after -n records,
// at the end (-e), or after --timeout ms without a record; otherwise follows
// with long-polling Fetch. With -g GROUP it joins the group as a classic
// consumer (range assignor), starts from the committed offsets (-o where there
// are none) and commits what it printed (docs/cli.md).
#include <csignal>
#include <iostream>
#include <memory>
#include <set>
#include <thread>

#include "base/clock.h"
#include "cli/command.h"
#include "cli/consumer_member.h"
#include "cli/fetched_records.h"
#include "cli/format.h"
#include "cli/group_member.h"
#include "cli/group_offsets.h"
#include "cli/offsets.h"
#include "protocol/messages/fetch.h"

namespace ketch::cli {

namespace {

volatile std::sig_atomic_t g_stop = 0;

struct consume_opts {
    std::vector<std::string> topics;
    std::vector<int32_t> partitions;
    std::string offset;
    int64_t count = -1;
    int64_t timeout_ms = -1;
    bool exit_at_end = false;
    std::string group;
    std::string group_protocol = "classic";
    bool read_committed = false;
    std::string format = "%v\\n";
    int32_t max_wait_ms = 500;
    int32_t fetch_max_bytes = 1 << 20;
};

struct part_state {
    std::string topic;
    int32_t partition;
    int32_t leader;
    int64_t next;
    int64_t end_at_start;
};

// One run of `ketch consume`: the partitions being read, where each stands,
// and when to stop.
class consumer {
public:
    consumer(context& ctx, const consume_opts& o) : ctx_(ctx), o_(o), c_(ctx.connect()) {
        auto parsed = parse_format(o.format);
        if (!parsed.fmt) throw usage_error("-f/--format: " + parsed.error);
        fmt_ = std::move(*parsed.fmt);
        std::string err;
        auto spec = parse_offset_spec(o.offset.empty() ? "end" : o.offset, err);
        if (!spec) throw usage_error(err);
        spec_ = *spec;
        if (spec_.k == offset_spec::kind::stored && o.group.empty()) throw usage_error("-o stored needs -g/--group");
        if (!o.group.empty()) {
            if (!o.partitions.empty())
                throw usage_error("-p/--partition cannot be combined with -g (the group assigns partitions)");
            for (auto& topic : o.topics) c_.leaders(topic);  // an unknown topic fails before joining
            if (o.group_protocol == "consumer")
                member_ = std::make_unique<consumer_member>(c_, o.group, o.topics);
            else
                member_ = std::make_unique<group_member>(c_, o.group, o.topics);
        }
    }

    void run() {
        start(member_ ? member_->join() : chosen_partitions());
        last_record_ = steady_ms();
        while (!finished()) {
            if (member_ && !member_->heartbeat_if_due()) {
                try {
                    member_->commit(positions());  // may be refused once the generation moved on
                } catch (const kafka_error&) {
                }
                start(member_->join());
                continue;
            }
            std::map<int32_t, std::vector<size_t>> by_leader;
            for (size_t i = 0; i < parts_.size(); ++i)
                if (!done_.count(i)) by_leader[parts_[i].leader].push_back(i);
            if (by_leader.empty()) {  // nothing assigned to this member (yet)
                std::this_thread::sleep_for(std::chrono::milliseconds(200));
                continue;
            }
            for (auto& [leader, idx] : by_leader) {
                if (finished()) break;
                fetch_from(leader, idx);
            }
        }
        if (member_) {
            member_->commit(positions());
            member_->leave();
        }
    }

private:
    bool count_reached() const { return o_.count >= 0 && printed_ >= o_.count; }

    bool finished() const {
        if (count_reached()) return true;
        if (o_.exit_at_end && done_.size() == parts_.size()) return true;
        if (o_.timeout_ms >= 0 && steady_ms() - last_record_ >= o_.timeout_ms) return true;
        return g_stop != 0;
    }

    std::map<topic_partition, int64_t> positions() const {
        std::map<topic_partition, int64_t> offsets;
        for (auto& p : parts_) offsets[{p.topic, p.partition}] = p.next;
        return offsets;
    }

    // Without a group: the topics' partitions, or those of -p.
    std::vector<topic_partition> chosen_partitions() {
        std::vector<topic_partition> out;
        for (auto& topic : o_.topics) {
            size_t before = out.size();
            for (auto& [p, l] : c_.leaders(topic))
                if (o_.partitions.empty() ||
                    std::find(o_.partitions.begin(), o_.partitions.end(), p) != o_.partitions.end())
                    out.emplace_back(topic, p);
            if (out.size() == before) throw usage_error("topic '" + topic + "' has none of the partitions asked for");
        }
        return out;
    }

    // Positions of `tps`: the group's committed offsets where there are any
    // (with -g), else where -o points.
    void start(const std::vector<topic_partition>& tps) {
        parts_.clear();
        std::map<std::string, std::vector<int32_t>> by_topic;
        for (auto& [t, p] : tps) by_topic[t].push_back(p);
        std::map<topic_partition, int64_t> stored;
        if (member_ && !tps.empty()) stored = fetch_committed(c_, o_.group, tps);
        for (auto& [topic, ps] : by_topic) {
            auto leaders = c_.leaders(topic);
            std::map<int32_t, int32_t> chosen;
            for (auto p : ps)
                if (leaders.count(p)) chosen[p] = leaders[p];
            if (chosen.empty()) continue;
            auto first = list_offsets(c_, topic, chosen, k_earliest, o_.read_committed);
            auto end = list_offsets(c_, topic, chosen, k_latest, o_.read_committed);
            std::map<int32_t, int64_t> at;
            if (spec_.k == offset_spec::kind::timestamp)
                at = list_offsets(c_, topic, chosen, spec_.value, o_.read_committed);
            for (auto& [p, l] : chosen) {
                std::optional<int64_t> t;
                if (auto it = at.find(p); it != at.end()) t = it->second;
                int64_t next = resolve_offset(spec_, first[p], end[p], t);
                if (spec_.k == offset_spec::kind::stored) next = end[p];  // nothing committed: new records
                if (auto it = stored.find({topic, p}); it != stored.end()) next = it->second;
                parts_.push_back({topic, p, l, next, end[p]});
            }
        }
        done_.clear();
        for (size_t i = 0; i < parts_.size(); ++i)
            if (o_.exit_at_end && parts_[i].next >= parts_[i].end_at_start) done_.insert(i);
    }

    kafka::fetch_request fetch_request_for(const std::vector<size_t>& idx) const {
        kafka::fetch_request req;
        req.replica_id = -1;
        req.max_wait_ms = o_.max_wait_ms;
        if (o_.timeout_ms >= 0)
            req.max_wait_ms = int32_t(std::min<int64_t>(o_.max_wait_ms, std::max<int64_t>(o_.timeout_ms, 1)));
        req.min_bytes = 1;
        req.max_bytes = 50 << 20;
        req.isolation_level = o_.read_committed ? 1 : 0;
        req.session_id = 0;
        req.session_epoch = -1;
        for (auto i : idx) {
            auto& p = parts_[i];
            if (req.topics.empty() || req.topics.back().topic != p.topic) req.topics.emplace_back().topic = p.topic;
            auto& fp = req.topics.back().partitions.emplace_back();
            fp.partition = p.partition;
            fp.fetch_offset = p.next;
            fp.partition_max_bytes = o_.fetch_max_bytes;
        }
        return req;
    }

    void fetch_from(int32_t leader, const std::vector<size_t>& idx) {
        std::map<topic_partition, size_t> index;
        for (auto i : idx) index[{parts_[i].topic, parts_[i].partition}] = i;
        auto resp = c_.call<kafka::fetch_response>(fetch_request_for(idx), leader, 12);
        check(resp.error_code, "fetch");
        for (auto& t : resp.responses)
            for (auto& pd : t.partitions) {
                auto it = index.find({t.topic, pd.partition_index});
                if (it == index.end()) continue;
                print_partition(it->second, pd);
                if (count_reached()) return;
            }
    }

    void print_partition(size_t i, const kafka::fetch_response::partition_data& pd) {
        auto& p = parts_[i];
        if (pd.error_code == 1) {  // OFFSET_OUT_OF_RANGE: the log was trimmed under us
            p.next = list_offsets(c_, p.topic, {{p.partition, p.leader}}, k_earliest, o_.read_committed)[p.partition];
            return;
        }
        check(pd.error_code, "fetch " + p.topic + "/" + std::to_string(p.partition));
        p.next = read_fetched(pd, p.topic, p.next, o_.read_committed, [&](const message& m) {
            std::string text = ctx_.json ? to_json_line(m) + "\n" : render(fmt_, m);
            std::cout.write(text.data(), std::streamsize(text.size()));
            ++printed_;
            last_record_ = steady_ms();
            return !count_reached();
        });
        std::cout.flush();
        if (!std::cout) g_stop = 1;  // the reader went away (| head)
        int64_t end = o_.read_committed && pd.last_stable_offset >= 0 ? pd.last_stable_offset : pd.high_watermark;
        if (o_.exit_at_end && p.next >= std::min(end, p.end_at_start)) done_.insert(i);
    }

    context& ctx_;
    const consume_opts& o_;
    client& c_;
    format fmt_;
    offset_spec spec_;
    std::unique_ptr<group_membership> member_;
    std::vector<part_state> parts_;
    std::set<size_t> done_;  // partitions past their end (with -e)
    int64_t printed_ = 0;
    int64_t last_record_ = 0;
};

void consume(context& ctx, const consume_opts& o) {
    consumer run(ctx, o);
    std::signal(SIGINT, [](int) { g_stop = 1; });
    std::signal(SIGTERM, [](int) { g_stop = 1; });
    std::signal(SIGPIPE, SIG_IGN);
    run.run();
}

}  // namespace

void add_consume_command(CLI::App& app, context& ctx) {
    auto o = std::make_shared<consume_opts>();
    auto* c = add_broker_command(
        &app, ctx, "consume", "read records from topics and print them",
        "Examples:\n  ketch consume orders -o beginning -e\n  ketch consume orders -o -10 -n 10 -f '%k: %v "
        "(%p/%o)\\n'\n"
        "  ketch consume orders -o @1700000000000 --json | jq .value\n  ketch consume orders -g billing -e\n"
        "  ketch consume orders -g billing --group-protocol consumer",
        [&ctx, o] { consume(ctx, *o); });
    c->add_option("topics", o->topics, "topics")->required();
    c->add_option("-p,--partition", o->partitions, "only these partitions (repeatable)");
    c->add_option("-o,--offset", o->offset,
                  "where to start: beginning, end, N, -N (N before the end), +N, @TIMESTAMP_MS, stored "
                  "(default: end; with -g, where the group has no committed offset)");
    c->add_option("-n,--num", o->count, "stop after N records");
    c->add_flag("-e,--exit", o->exit_at_end, "stop at the end of every partition (as it was at the start)");
    c->add_option("--timeout", o->timeout_ms, "stop after this many ms without a record");
    c->add_option("-g,--group", o->group,
                  "join this consumer group: its partitions, from its committed offsets (-o where none), committing "
                  "what was printed");
    c->add_option("--group-protocol", o->group_protocol,
                  "classic (JoinGroup/SyncGroup, the range assignor) or consumer (KIP-848: ConsumerGroupHeartbeat, the "
                  "broker assigns)")
        ->check(CLI::IsMember({"classic", "consumer"}))
        ->capture_default_str();
    c->add_flag("--read-committed", o->read_committed, "skip aborted transactions and read up to the LSO");
    c->add_option("-f,--format", o->format, "print template: %t %p %o %k %v %h %d %K %S (default '%v\\n')");
    c->add_option("--fetch-max-bytes", o->fetch_max_bytes, "partition fetch size")->capture_default_str();
}

}  // namespace ketch::cli
