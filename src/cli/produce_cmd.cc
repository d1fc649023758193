// ketch produce TOPIC: records from stdin (or -F FILE), one per line by
// default, keyed with -k or split with -K SEP, read through a -f template, or
// as JSON lines (--json). Idempotent (InitProducerId + sequences) unless
// --no-idempotence or acks != all; compressed with -z. Up to five Produce
// requests are in flight per leader (the answers are taken in order).
#include <deque>
#include <fstream>
#include <iostream>
#include <sstream>

#include "base/clock.h"
#include "cli/command.h"
#include "cli/format.h"
#include "protocol/messages/init_producer_id.h"
#include "protocol/messages/produce.h"
#include "record/batch_builder.h"
#include "record/key_partitioner.h"

namespace ketch::cli {

namespace {

struct produce_opts {
    std::string topic;
    std::string file;
    std::string key;
    bool has_key = false;
    std::string key_sep;
    std::vector<std::string> headers;
    int32_t partition = -1;
    std::string compression = "none";
    std::string acks = "all";
    bool no_idempotence = false;
    std::string format;
    std::string delimiter = "\n";
    // Below Kafka's default message.max.bytes (1 MiB + 12) with room for the
    // batch header: a request holds at most this much per flush.
    size_t batch_bytes = 900 << 10;
    bool verbose = false;
};

record::compression parse_compression(const std::string& s) {
    if (s == "none") return record::compression::none;
    if (s == "gzip") return record::compression::gzip;
    if (s == "snappy") return record::compression::snappy;
    if (s == "lz4") return record::compression::lz4;
    if (s == "zstd") return record::compression::zstd;
    throw usage_error("-z/--compression must be none, gzip, snappy, lz4 or zstd");
}

class producer {
public:
    producer(client& c, produce_opts& o, bool json_out) : c_(c), o_(o), json_(json_out) {
        leaders_ = c.leaders(o.topic);
        codec_ = parse_compression(o.compression);
        if (o.acks == "all" || o.acks == "-1")
            acks_ = -1;
        else if (o.acks == "1")
            acks_ = 1;
        else if (o.acks == "0")
            acks_ = 0;
        else
            throw usage_error("--acks must be all, -1, 1 or 0");
        if (o.partition >= 0 && !leaders_.count(o.partition))
            throw usage_error("topic '" + o.topic + "' has no partition " + std::to_string(o.partition) + " (it has " +
                              std::to_string(leaders_.size()) + ")");
        if (!o.no_idempotence && acks_ == -1) {
            kafka::init_producer_id_request req;
            req.transactional_id.reset();
            req.transaction_timeout_ms = 60000;
            auto resp = c.while_coordinator_loads([&] {
                auto r = c.call<kafka::init_producer_id_response>(req);
                check(r.error_code, "InitProducerId (idempotent producer; --no-idempotence turns it off)");
                return r;
            });
            pid_ = resp.producer_id;
            epoch_ = resp.producer_epoch;
        }
    }

    void add(message m) {
        int32_t p = m.partition >= 0 ? m.partition : o_.partition;
        if (p >= 0 && !leaders_.count(p))
            throw usage_error("topic '" + o_.topic + "' has no partition " + std::to_string(p));
        if (p < 0) {
            int32_t n = int32_t(leaders_.size());
            p = m.key ? record::partition_for_key(*m.key, n) : int32_t(round_robin_++ % uint32_t(n));
        }
        record::record_data r;
        r.key = std::move(m.key);
        r.value = std::move(m.value);
        r.timestamp = m.timestamp >= 0 ? m.timestamp : wall_ms();
        size_t size = (r.key ? r.key->size() : 0) + (r.value ? r.value->size() : 0) + 32;
        for (auto& [k, v] : m.headers) {
            size += k.size() + (v ? v->size() : 0) + 10;
            r.headers.push_back({k, v});
        }
        if (pending_bytes_ > 0 && pending_bytes_ + size > o_.batch_bytes) flush();
        pending_bytes_ += size;
        pending_[p].push_back(std::move(r));
        ++count_;
    }

    void flush() {
        std::map<int32_t, kafka::produce_request> by_leader;
        std::map<int32_t, std::map<int32_t, size_t>> counts;
        for (auto& [p, recs] : pending_) {
            if (recs.empty()) continue;
            record::batch_options bo;
            bo.codec = codec_;
            bo.producer_id = pid_;
            bo.producer_epoch = epoch_;
            bo.base_sequence = pid_ >= 0 ? seq_[p] : -1;
            record::batch_builder b(bo);
            for (auto& r : recs) b.add(std::move(r));
            auto built = b.build();
            if (!built) throw std::runtime_error("compressing a batch failed: " + built.error().message);
            seq_[p] += int32_t(recs.size());
            int32_t leader = leaders_.at(p);
            auto& req = by_leader[leader];
            req.acks = acks_;
            req.timeout_ms = int32_t(c_.config().timeout.count());
            req.transactional_id.reset();
            if (req.topic_data.empty()) req.topic_data.emplace_back().name = o_.topic;
            auto& pd = req.topic_data.front().partition_data.emplace_back();
            pd.index = p;
            pd.records = kafka::records(shared_bytes(std::move(built.value())));
            counts[leader][p] = recs.size();
        }
        pending_.clear();
        pending_bytes_ = 0;
        for (auto& [leader, req] : by_leader) {
            if (acks_ == 0) {
                c_.send_only(req, leader, 12);
                continue;
            }
            auto& queue = in_flight_[leader];
            if (queue.size() >= max_in_flight) complete_oldest(queue);
            queue.push_back({c_.send(req, leader, 12), std::move(counts[leader])});
        }
    }

    void finish() {
        flush();
        for (auto& [leader, queue] : in_flight_)
            while (!queue.empty()) complete_oldest(queue);
        if (acks_ == 0) c_.metadata(std::vector<std::string>{o_.topic});  // requests are served in order
        if (json_) {
            json parts = json::array();
            for (auto& [p, s] : summary_)
                parts.push_back({{"partition", p}, {"first_offset", s.first}, {"last_offset", s.second}});
            std::cout << json{{"topic", o_.topic}, {"records", count_}, {"partitions", parts}}.dump() << "\n";
        }
    }

private:
    // A Produce request sent and not yet answered, with its record counts.
    struct sent {
        client::in_flight request;
        std::map<int32_t, size_t> counts;  // partition -> records
    };
    // Kafka's limit of in-flight requests per connection for an idempotent
    // producer (max.in.flight.requests.per.connection <= 5): sequences stay
    // in order because a connection answers in order.
    static constexpr size_t max_in_flight = 5;

    void complete_oldest(std::deque<sent>& queue) {
        sent s = std::move(queue.front());
        queue.pop_front();
        auto resp = c_.receive<kafka::produce_response>(s.request);
        for (auto& t : resp.responses)
            for (auto& pr : t.partition_responses) {
                check(pr.error_code, "produce to " + o_.topic + "/" + std::to_string(pr.index), pr.error_message);
                size_t n = s.counts[pr.index];
                auto& range = summary_.try_emplace(pr.index, pr.base_offset, pr.base_offset).first->second;
                range.second = pr.base_offset + int64_t(n) - 1;
                if (o_.verbose && !json_)
                    std::cerr << "produced " << n << " records to " << o_.topic << "/" << pr.index << " at offset "
                              << pr.base_offset << "\n";
            }
    }

    client& c_;
    produce_opts& o_;
    bool json_;
    std::map<int32_t, int32_t> leaders_;
    record::compression codec_ = record::compression::none;
    int16_t acks_ = -1;
    int64_t pid_ = -1;
    int16_t epoch_ = -1;
    std::map<int32_t, int32_t> seq_;
    std::map<int32_t, std::vector<record::record_data>> pending_;
    std::map<int32_t, std::pair<int64_t, int64_t>> summary_;
    std::map<int32_t, std::deque<sent>> in_flight_;  // leader -> oldest first
    size_t pending_bytes_ = 0;
    uint32_t round_robin_ = 0;
    int64_t count_ = 0;
};

void produce(context& ctx, produce_opts& o) {
    std::optional<format> fmt;
    if (!o.format.empty()) {
        auto parsed = parse_format(o.format);
        if (!parsed.fmt) throw usage_error("-f/--format: " + parsed.error);
        fmt = std::move(parsed.fmt);
    }
    if (fmt && ctx.json) throw usage_error("give -f/--format or --json, not both");
    if (!o.key_sep.empty() && o.has_key) throw usage_error("give -k/--key or -K/--key-separator, not both");
    std::vector<std::pair<std::string, std::optional<bytes>>> headers;
    for (auto& h : o.headers) {
        if (h.find('=') == std::string::npos) throw usage_error("-H/--header: expected key=value, got '" + h + "'");
        headers.push_back(parse_header(h));
    }
    std::ifstream file;
    std::istream* in = &std::cin;
    if (!o.file.empty() && o.file != "-") {
        file.open(o.file, std::ios::binary);
        if (!file) throw usage_error("cannot read " + o.file);
        in = &file;
    }
    producer p(ctx.connect(), o, ctx.json);
    auto with_defaults = [&](message m) {
        if (o.has_key && !m.key) m.key = to_bytes(o.key);
        for (auto& h : headers) m.headers.push_back(h);
        return m;
    };
    if (fmt) {
        std::stringstream ss;
        ss << in->rdbuf();
        auto r = read_with_format(*fmt, ss.str());
        if (!r.error.empty()) throw usage_error("input does not match -f/--format: " + r.error);
        for (auto& m : r.messages) p.add(with_defaults(std::move(m)));
        p.finish();
        return;
    }
    if (o.delimiter.empty()) throw usage_error("-D/--delimiter may not be empty");
    std::string line;
    int n = 0;
    char delim = o.delimiter == "\\n" ? '\n' : o.delimiter == "\\0" ? '\0' : o.delimiter[0];
    while (std::getline(*in, line, delim)) {
        ++n;
        message m;
        if (ctx.json) {
            if (line.empty()) continue;
            std::string err;
            auto parsed = from_json_line(line, err);
            if (!parsed) throw usage_error("input line " + std::to_string(n) + ": " + err);
            m = std::move(*parsed);
        } else if (!o.key_sep.empty()) {
            auto at = line.find(o.key_sep);
            if (at == std::string::npos) {
                m.value = to_bytes(line);
            } else {
                m.key = to_bytes(std::string_view(line).substr(0, at));
                m.value = to_bytes(std::string_view(line).substr(at + o.key_sep.size()));
            }
        } else {
            m.value = to_bytes(line);
        }
        p.add(with_defaults(std::move(m)));
    }
    p.finish();
}

}  // namespace

void add_produce_command(CLI::App& app, context& ctx) {
    auto o = std::make_shared<produce_opts>();
    auto* p = add_broker_command(
        &app, ctx, "produce", "write records from stdin (one per line) to a topic",
        "Input with --json: one object a line, {\"key\":..., \"value\":..., \"headers\": {\"k\": \"v\"}, "
        "\"partition\": N, \"timestamp\": MS}\n(key_base64/value_base64 for binary).\n"
        "Examples:\n  echo hello | ketch produce greetings\n"
        "  printf 'k1:v1\\nk2:v2\\n' | ketch produce orders -K: -H source=cli -z zstd\n"
        "  ketch produce orders -f '%k\\t%v\\n' < records.tsv\n"
        "  echo '{\"key\":\"a\",\"value\":\"b\"}' | ketch produce orders --json",
        [&ctx, o] { produce(ctx, *o); });
    p->add_option("topic", o->topic, "topic")->required();
    p->add_option("-F,--file", o->file, "read this file instead of stdin");
    p->add_option("-k,--key", o->key, "the key of every record")->each([o](const std::string&) { o->has_key = true; });
    p->add_option("-K,--key-separator", o->key_sep, "split each line into key and value at the first SEP");
    p->add_option("-H,--header", o->headers, "header key=value on every record (repeatable)");
    p->add_option("-P,--partition", o->partition, "partition (default: murmur2 of the key, or round robin)");
    p->add_option("-z,--compression", o->compression, "none, gzip, snappy, lz4 or zstd")
        ->check(CLI::IsMember({"none", "gzip", "snappy", "lz4", "zstd"}));
    p->add_option("--acks", o->acks, "all (-1), 1 or 0")->check(CLI::IsMember({"all", "-1", "1", "0"}));
    p->add_flag("--no-idempotence", o->no_idempotence, "plain producer (no producer id and sequences)");
    p->add_option("-f,--format", o->format, "read records through a template: %k %v %h %p %d, e.g. '%k:%v\\n'");
    p->add_option("-D,--delimiter", o->delimiter, "record delimiter of line input (one character; \\n, \\0)");
    p->add_flag("-v,--verbose", o->verbose, "report each batch's partition and offset on stderr");
}

}  // namespace ketch::cli
