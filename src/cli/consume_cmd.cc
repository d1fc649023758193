// ketch consume TOPIC...: reads records from a position (-o), prints them
// through a template (-f) or as JSON lines (--json), stops after -n records,
// at the end (-e), or after --timeout ms without a record; otherwise follows
// with long-polling Fetch. With -g GROUP it joins the group as a classic
// consumer (range assignor), starts from the committed offsets (-o where there
// are none) and commits what it printed (docs/cli.md).
#include <csignal>
#include <iostream>
#include <set>
#include <thread>

#include "cli/command.h"
#include "cli/format.h"
#include "cli/group_member.h"
#include "cli/group_offsets.h"
#include "cli/offsets.h"
#include "protocol/messages/fetch.h"
#include "record/record_reader.h"

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

int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void consume(context& ctx, consume_opts& o) {
    auto parsed = parse_format(o.format);
    if (!parsed.fmt) throw usage_error("-f/--format: " + parsed.error);
    format fmt = std::move(*parsed.fmt);
    std::string spec_text = o.offset.empty() ? "end" : o.offset;
    std::string err;
    auto spec = parse_offset_spec(spec_text, err);
    if (!spec) throw usage_error(err);
    if (spec->k == offset_spec::kind::stored && o.group.empty()) throw usage_error("-o stored needs -g/--group");

    auto& c = ctx.connect();
    std::optional<group_member> member;
    if (!o.group.empty()) {
        if (!o.partitions.empty()) throw usage_error("-p/--partition cannot be combined with -g (the group assigns partitions)");
        for (auto& topic : o.topics) c.leaders(topic);  // an unknown topic fails before joining
        member.emplace(c, o.group, o.topics);
    }
    // Positions of `tps`: the group's committed offsets where there are any
    // (with -g), else where -o points.
    auto setup = [&](const std::vector<topic_partition>& tps) {
        std::vector<part_state> out;
        std::map<std::string, std::vector<int32_t>> by_topic;
        for (auto& [t, p] : tps) by_topic[t].push_back(p);
        std::map<topic_partition, int64_t> stored;
        if (member && !tps.empty()) stored = fetch_committed(c, o.group, tps);
        for (auto& [topic, ps] : by_topic) {
            auto leaders = c.leaders(topic);
            std::map<int32_t, int32_t> chosen;
            for (auto p : ps)
                if (leaders.count(p)) chosen[p] = leaders[p];
            if (chosen.empty()) continue;
            auto start = list_offsets(c, topic, chosen, k_earliest, o.read_committed);
            auto end = list_offsets(c, topic, chosen, k_latest, o.read_committed);
            std::map<int32_t, int64_t> at;
            if (spec->k == offset_spec::kind::timestamp) at = list_offsets(c, topic, chosen, spec->value, o.read_committed);
            for (auto& [p, l] : chosen) {
                std::optional<int64_t> t;
                if (auto it = at.find(p); it != at.end()) t = it->second;
                int64_t next = resolve_offset(*spec, start[p], end[p], t);
                if (spec->k == offset_spec::kind::stored) next = end[p];  // nothing committed: new records
                if (auto it = stored.find({topic, p}); it != stored.end()) next = it->second;
                out.push_back({topic, p, l, next, end[p]});
            }
        }
        return out;
    };
    std::vector<topic_partition> initial;
    if (member) {
        initial = member->join();
    } else {
        for (auto& topic : o.topics) {
            size_t before = initial.size();
            for (auto& [p, l] : c.leaders(topic))
                if (o.partitions.empty() || std::find(o.partitions.begin(), o.partitions.end(), p) != o.partitions.end())
                    initial.emplace_back(topic, p);
            if (initial.size() == before) throw usage_error("topic '" + topic + "' has none of the partitions asked for");
        }
    }
    std::vector<part_state> parts = setup(initial);
    auto positions = [&] {
        std::map<topic_partition, int64_t> offsets;
        for (auto& p : parts) offsets[{p.topic, p.partition}] = p.next;
        return offsets;
    };

    std::signal(SIGINT, [](int) { g_stop = 1; });
    std::signal(SIGTERM, [](int) { g_stop = 1; });
    std::signal(SIGPIPE, SIG_IGN);
    int64_t printed = 0;
    int64_t last_record = now_ms();
    std::set<size_t> done;  // partitions past their end (with -e)
    auto finished = [&] {
        if (o.count >= 0 && printed >= o.count) return true;
        if (o.exit_at_end && done.size() == parts.size()) return true;
        if (o.timeout_ms >= 0 && now_ms() - last_record >= o.timeout_ms) return true;
        return g_stop != 0;
    };
    auto mark_done = [&] {
        done.clear();
        for (size_t i = 0; i < parts.size(); ++i)
            if (o.exit_at_end && parts[i].next >= parts[i].end_at_start) done.insert(i);
    };
    mark_done();

    while (!finished()) {
        if (member && !member->heartbeat_if_due()) {
            try {
                member->commit(positions());  // may be refused once the generation moved on
            } catch (const kafka_error&) {
            }
            parts = setup(member->join());
            mark_done();
            continue;
        }
        std::map<int32_t, std::vector<size_t>> by_leader;
        for (size_t i = 0; i < parts.size(); ++i)
            if (!done.count(i)) by_leader[parts[i].leader].push_back(i);
        if (by_leader.empty()) {  // nothing assigned to this member (yet)
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            continue;
        }
        for (auto& [leader, idx] : by_leader) {
            if (finished()) break;
            kafka::fetch_request req;
            req.replica_id = -1;
            req.max_wait_ms = o.max_wait_ms;
            if (o.timeout_ms >= 0) req.max_wait_ms = int32_t(std::min<int64_t>(o.max_wait_ms, std::max<int64_t>(o.timeout_ms, 1)));
            req.min_bytes = 1;
            req.max_bytes = 50 << 20;
            req.isolation_level = o.read_committed ? 1 : 0;
            req.session_id = 0;
            req.session_epoch = -1;
            std::map<std::pair<std::string, int32_t>, size_t> index;
            for (auto i : idx) {
                auto& p = parts[i];
                kafka::fetch_request::fetch_topic* ft = nullptr;
                for (auto& t : req.topics)
                    if (t.topic == p.topic) ft = &t;
                if (!ft) {
                    ft = &req.topics.emplace_back();
                    ft->topic = p.topic;
                }
                auto& fp = ft->partitions.emplace_back();
                fp.partition = p.partition;
                fp.fetch_offset = p.next;
                fp.partition_max_bytes = o.fetch_max_bytes;
                index[{p.topic, p.partition}] = i;
            }
            auto resp = c.call<kafka::fetch_response>(req, leader, 12);
            check(resp.error_code, "fetch");
            for (auto& t : resp.responses)
                for (auto& pd : t.partitions) {
                    auto it = index.find({t.topic, pd.partition_index});
                    if (it == index.end()) continue;
                    auto& p = parts[it->second];
                    if (pd.error_code == 1) {  // OFFSET_OUT_OF_RANGE: the log was trimmed under us
                        p.next = list_offsets(c, p.topic, {{p.partition, p.leader}}, k_earliest, o.read_committed)[p.partition];
                        continue;
                    }
                    check(pd.error_code, "fetch " + p.topic + "/" + std::to_string(p.partition));
                    // Aborted transactions (read_committed): producer id -> first offset.
                    std::map<int64_t, int64_t> aborted_from;
                    std::vector<std::pair<int64_t, int64_t>> aborted;  // (first offset, pid), by offset
                    if (pd.aborted_transactions)
                        for (auto& a : *pd.aborted_transactions) aborted.emplace_back(a.first_offset, a.producer_id);
                    std::sort(aborted.begin(), aborted.end());
                    size_t next_aborted = 0;
                    std::set<int64_t> aborting;
                    bytes data = pd.records ? pd.records->flatten() : bytes{};
                    size_t pos = 0;
                    while (pos + record::k_log_overhead <= data.size()) {
                        auto h = record::parse_batch_header(byte_view(data).subspan(pos));
                        if (!h || pos + h->total_size() > data.size()) break;  // a partial batch ends the data
                        byte_view batch = byte_view(data).subspan(pos, h->total_size());
                        pos += h->total_size();
                        if (h->magic != 2) throw std::runtime_error("message format v" + std::to_string(h->magic) + " is not supported");
                        if (o.read_committed) {
                            while (next_aborted < aborted.size() && aborted[next_aborted].first <= h->last_offset())
                                aborting.insert(aborted[next_aborted++].second);
                        }
                        if (h->is_control()) {
                            if (h->is_transactional()) aborting.erase(h->producer_id);
                            p.next = std::max(p.next, h->last_offset() + 1);
                            continue;
                        }
                        if (o.read_committed && h->is_transactional() && aborting.count(h->producer_id)) {
                            p.next = std::max(p.next, h->last_offset() + 1);
                            continue;
                        }
                        auto rd = record::record_reader::open(batch);
                        if (!rd) throw std::runtime_error("cannot read a batch of " + p.topic + ": " + rd.error().message);
                        record::record_view rv;
                        while (true) {
                            auto more = rd->next(rv);
                            if (!more) throw std::runtime_error("corrupt record in " + p.topic + ": " + more.error().message);
                            if (!more.value()) break;
                            int64_t off = h->base_offset + rv.offset_delta;
                            if (off < p.next) continue;
                            message m;
                            m.topic = p.topic;
                            m.partition = p.partition;
                            m.offset = off;
                            m.timestamp = h->ts_type() == record::timestamp_type::log_append_time
                                              ? h->max_timestamp
                                              : h->base_timestamp + rv.timestamp_delta;
                            if (rv.key) m.key = bytes(rv.key->begin(), rv.key->end());
                            if (rv.value) m.value = bytes(rv.value->begin(), rv.value->end());
                            for (auto& hv : rv.headers)
                                m.headers.emplace_back(std::string(hv.key.begin(), hv.key.end()),
                                                       hv.value ? std::optional<bytes>(bytes(hv.value->begin(), hv.value->end()))
                                                                : std::nullopt);
                            std::string text = ctx.json ? to_json_line(m) + "\n" : render(fmt, m);
                            std::cout.write(text.data(), std::streamsize(text.size()));
                            p.next = off + 1;
                            ++printed;
                            last_record = now_ms();
                            if (o.count >= 0 && printed >= o.count) break;
                        }
                        if (o.count >= 0 && printed >= o.count) break;
                        p.next = std::max(p.next, h->last_offset() + 1);
                    }
                    std::cout.flush();
                    if (!std::cout) g_stop = 1;  // the reader went away (| head)
                    int64_t end = o.read_committed && pd.last_stable_offset >= 0 ? pd.last_stable_offset : pd.high_watermark;
                    if (o.exit_at_end && p.next >= std::min(end, p.end_at_start)) done.insert(it->second);
                    if (o.count >= 0 && printed >= o.count) break;
                }
        }
    }
    if (member) {
        member->commit(positions());
        member->leave();
    }
}

}  // namespace

void add_consume_command(CLI::App& app, context& ctx) {
    auto o = std::make_shared<consume_opts>();
    auto* c = app.add_subcommand("consume", "read records from topics and print them");
    add_connection_options(c, ctx);
    c->add_option("topics", o->topics, "topics")->required();
    c->add_option("-p,--partition", o->partitions, "only these partitions (repeatable)");
    c->add_option("-o,--offset", o->offset,
                  "where to start: beginning, end, N, -N (N before the end), +N, @TIMESTAMP_MS, stored "
                  "(default: end; with -g, where the group has no committed offset)");
    c->add_option("-n,--num", o->count, "stop after N records");
    c->add_flag("-e,--exit", o->exit_at_end, "stop at the end of every partition (as it was at the start)");
    c->add_option("--timeout", o->timeout_ms, "stop after this many ms without a record");
    c->add_option("-g,--group", o->group, "join this consumer group (classic protocol): its partitions, from its committed offsets (-o where none), committing what was printed");
    c->add_flag("--read-committed", o->read_committed, "skip aborted transactions and read up to the LSO");
    c->add_option("-f,--format", o->format, "print template: %t %p %o %k %v %h %d %K %S (default '%v\\n')");
    c->add_option("--fetch-max-bytes", o->fetch_max_bytes, "partition fetch size")->capture_default_str();
    c->footer("Examples:\n  ketch consume orders -o beginning -e\n  ketch consume orders -o -10 -n 10 -f '%k: %v (%p/%o)\\n'\n"
              "  ketch consume orders -o @1700000000000 --json | jq .value\n  ketch consume orders -g billing -e");
    c->callback([&ctx, o] { consume(ctx, *o); });
}

}  // namespace ketch::cli
