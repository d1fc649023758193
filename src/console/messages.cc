// /api/v1/topics/{topic}/messages: browse (GET) through Fetch, the read path
// clients use, and produce one record (POST) through Produce.
//
// GET parameters: partition (default: all), and where to start — offset=N,
// timestamp=ms (ListOffsets), or from=earliest|newest (newest: the last
// `limit` records, newest first); limit (<= 500), max_bytes (<= 4 MiB),
// isolation=read_committed|read_uncommitted, key=/contains= substring
// filters, wait_ms (<= 5000: a long poll for records past the end, the live
// tail). The answer is bounded by limit, bytes and ~2 s of reading; it
// carries each partition's next offset to continue from.
#include <algorithm>
#include <atomic>
#include <set>

#include "base/clock.h"
#include "base/error_code.h"
#include "console/kafka_facts.h"
#include "console/record_format.h"
#include "console/reply.h"
#include "console/routes.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/produce.h"
#include "record/batch_builder.h"
#include "record/key_partitioner.h"
#include "record/record_reader.h"

namespace ketch::console {

namespace {

using steady = std::chrono::steady_clock;

struct browse_args {
    std::vector<int32_t> partitions;
    std::map<int32_t, int64_t> start;  // next offset to read per partition
    int limit = 50;
    int64_t max_bytes = 1024 * 1024;
    int8_t isolation = 0;
    bool newest_first = false;
    int32_t wait_ms = 0;
    std::string key_filter, contains;
    const std::function<json(byte_view)>* decode_framed = nullptr;  // context::decode_framed
};

// A key or value shown with its registry decoding, when it has one: the
// decoded record becomes the "json" view, with its schema id and type.
void add_registry_view(json& shown, const std::optional<byte_view>& b, const browse_args& a) {
    if (!b || !a.decode_framed || !*a.decode_framed) return;
    json d = (*a.decode_framed)(*b);
    if (d.is_null()) return;
    shown["schema_id"] = d["schema_id"];
    shown["schema_type"] = d["schema_type"];
    shown["json"] = d["json"];
}

struct shown_record {
    int32_t partition;
    int64_t offset;
    json j;
};

bool contains_bytes(const std::optional<byte_view>& b, const std::string& needle) {
    if (!b) return false;
    std::string_view s(reinterpret_cast<const char*>(b->data()), b->size());
    return s.find(needle) != std::string_view::npos;
}

std::string control_name(const std::optional<byte_view>& key) {
    if (!key || key->size() < 4) return "UNKNOWN";
    int16_t type = int16_t((*key)[2] << 8 | (*key)[3]);
    return type == 0 ? "ABORT" : type == 1 ? "COMMIT" : "UNKNOWN";
}

// Decodes the batches of one partition's fetched bytes into `out`, at most
// `want` records (those the filters keep); returns the offset to go on from:
// after the last record taken when `want` was reached, else after the last
// whole batch seen (or `from` when none). `used` grows by the bytes of the
// whole batches read: not the records before `from` in the first batch's
// neighbours, nor a partial batch at the end (a Fetch of 1 MiB batches ends
// with one), so the browse's byte bound does not stop it short of `limit`.
int64_t decode_partition(int32_t partition, const bytes& data, int64_t from, int8_t isolation,
                         const std::vector<kafka::fetch_response::aborted_transaction>& aborted_list,
                         const browse_args& a, size_t want, std::vector<shown_record>& out, size_t& scanned,
                         int64_t& used) {
    // read_committed: the records of aborted transactions are skipped as a
    // client skips them (the aborted list and the abort markers).
    std::vector<kafka::fetch_response::aborted_transaction> aborted = aborted_list;
    std::sort(aborted.begin(), aborted.end(), [](auto& x, auto& y) { return x.first_offset < y.first_offset; });
    size_t next_aborted = 0;
    std::set<int64_t> aborting;
    int64_t next = from;
    size_t pos = 0, taken = 0;
    record::record_view rv;
    while (pos + record::k_log_overhead <= data.size() && taken < want) {
        auto h = record::parse_batch_header(byte_view(data).subspan(pos));
        if (!h || pos + h->total_size() > data.size()) break;  // a partial batch at the end
        byte_view batch(data.data() + pos, h->total_size());
        pos += h->total_size();
        if (h->last_offset() < from) continue;
        used += int64_t(h->total_size());
        next = std::max(next, h->last_offset() + 1);
        if (isolation == 1) {
            while (next_aborted < aborted.size() && aborted[next_aborted].first_offset <= h->last_offset())
                aborting.insert(aborted[next_aborted++].producer_id);
            if (h->is_transactional() && !h->is_control() && aborting.count(h->producer_id)) continue;
        }
        auto rd = record::record_reader::open(batch);
        if (!rd) continue;
        while (true) {
            if (taken == want) {  // enough: go on after the last record taken
                next = out.back().offset + 1;
                break;
            }
            auto more = rd->next(rv);
            if (!more || !*more) break;
            int64_t off = h->base_offset + rv.offset_delta;
            if (off < from) continue;
            ++scanned;
            const bool control = h->is_control();
            if (control && isolation == 1 && control_name(rv.key) == "ABORT") aborting.erase(h->producer_id);
            if (!a.key_filter.empty() && (control || !contains_bytes(rv.key, a.key_filter))) continue;
            if (!a.contains.empty() &&
                (control || (!contains_bytes(rv.value, a.contains) && !contains_bytes(rv.key, a.contains))))
                continue;
            json j = {{"partition", partition},
                      {"offset", off},
                      {"timestamp", record::record_timestamp(*h, rv)},
                      {"timestamp_type",
                       h->ts_type() == record::timestamp_type::log_append_time ? "LogAppendTime" : "CreateTime"},
                      {"type", control ? "control" : "record"},
                      {"transactional", h->is_transactional()},
                      {"producer_id", h->producer_id},
                      {"size", rv.size_in_bytes}};
            if (control) {
                j["marker"] = control_name(rv.key);
            } else {
                j["key"] = format_bytes(rv.key);
                j["value"] = format_bytes(rv.value);
                add_registry_view(j["key"], rv.key, a);
                add_registry_view(j["value"], rv.value, a);
                json hs = json::array();
                for (auto& hd : rv.headers) {
                    std::string k(reinterpret_cast<const char*>(hd.key.data()), hd.key.size());
                    hs.push_back({{"key", k}, {"value", format_bytes(hd.value)}});
                }
                j["headers"] = hs;
            }
            out.push_back({partition, off, std::move(j)});
            ++taken;
        }
    }
    return next;
}

browse_args parse_browse(const context& ctx, const http::request& req, const topic_meta& t, const std::string& who) {
    browse_args a;
    a.limit = int(query_int(req, "limit", 50, 1, ctx.browse_max_records));
    a.max_bytes = query_int(req, "max_bytes", 1024 * 1024, 1024, int64_t(ctx.browse_max_bytes));
    a.wait_ms = int32_t(query_int(req, "wait_ms", 0, 0, 5000));
    a.decode_framed = &ctx.decode_framed;
    auto iso = req.query_value("isolation").value_or("read_uncommitted");
    if (iso == "read_committed")
        a.isolation = 1;
    else if (iso != "read_uncommitted")
        throw api_error(400, "isolation must be read_committed or read_uncommitted");
    a.key_filter = req.query_value("key").value_or("");
    a.contains = req.query_value("contains").value_or("");
    if (auto p = req.query_value("partition"); p && !p->empty()) {
        int64_t n = query_int(req, "partition", 0, 0, INT32_MAX);
        if (std::find(t.partitions.begin(), t.partitions.end(), int32_t(n)) == t.partitions.end())
            throw api_error(404, "topic " + t.name + " has no partition " + std::to_string(n));
        a.partitions.push_back(int32_t(n));
    } else {
        a.partitions = t.partitions;
    }
    const std::string from = req.query_value("from").value_or("");
    if (auto pos = req.query_value("positions"); pos && !pos->empty()) {
        // "0:12,1:40": where each partition goes on (the live tail continues from next_offsets).
        a.partitions.clear();
        size_t i = 0;
        while (i < pos->size()) {
            size_t comma = pos->find(',', i);
            std::string item = pos->substr(i, comma == std::string::npos ? std::string::npos : comma - i);
            i = comma == std::string::npos ? pos->size() : comma + 1;
            size_t colon = item.find(':');
            int64_t p = -1, o = -1;
            try {
                if (colon == std::string::npos) throw std::invalid_argument("no colon");
                size_t n1 = 0, n2 = 0;
                p = std::stoll(item.substr(0, colon), &n1);
                o = std::stoll(item.substr(colon + 1), &n2);
                if (n1 != colon || n2 != item.size() - colon - 1) throw std::invalid_argument("trailing");
            } catch (const std::exception&) {
                throw api_error(400, "positions must be partition:offset pairs separated by commas");
            }
            if (std::find(t.partitions.begin(), t.partitions.end(), int32_t(p)) == t.partitions.end() || o < 0)
                throw api_error(404, "topic " + t.name + " has no partition " + std::to_string(p));
            a.partitions.push_back(int32_t(p));
            a.start[int32_t(p)] = o;
        }
        if (a.partitions.empty()) throw api_error(400, "positions is empty");
        return a;
    }
    auto earliest = list_offsets(ctx, who, t.name, a.partitions, -2);
    auto latest = list_offsets(ctx, who, t.name, a.partitions, -1, a.isolation);
    if (req.query_value("offset") && !req.query_value("offset")->empty()) {
        int64_t o = query_int(req, "offset", 0, 0, INT64_MAX);
        for (int32_t p : a.partitions) a.start[p] = std::max(o, earliest[p]);
    } else if (req.query_value("timestamp") && !req.query_value("timestamp")->empty()) {
        int64_t ts = query_int(req, "timestamp", 0, 0, INT64_MAX);
        auto at = list_offsets(ctx, who, t.name, a.partitions, ts);
        for (int32_t p : a.partitions) a.start[p] = at[p] < 0 ? latest[p] : at[p];
    } else if (from == "newest" || from == "latest" || from == "end") {
        a.newest_first = from == "newest";
        for (int32_t p : a.partitions) a.start[p] = std::max(earliest[p], latest[p] - (from == "newest" ? a.limit : 0));
    } else if (from.empty() || from == "earliest" || from == "beginning") {
        for (int32_t p : a.partitions) a.start[p] = earliest[p];
    } else {
        throw api_error(400, "from must be earliest, newest or end");
    }
    return a;
}

// The Fetch of one browse step: every partition not yet at its end, from its
// position, at most `budget` bytes, waiting `wait_ms` (the first step only).
kafka::fetch_request next_fetch(const topic_meta& t, const browse_args& a, std::map<int32_t, int64_t>& pos,
                                const std::set<int32_t>& done, int64_t budget, int32_t wait_ms) {
    kafka::fetch_request q;
    q.replica_id = -1;
    q.max_wait_ms = wait_ms;
    q.min_bytes = 1;
    q.max_bytes = int32_t(std::min<int64_t>(budget, a.max_bytes));
    q.isolation_level = a.isolation;
    auto& topic = q.topics.emplace_back();
    topic.topic = t.name;
    topic.topic_id = t.id;
    for (int32_t p : a.partitions) {
        if (done.count(p)) continue;
        auto& fp = topic.partitions.emplace_back();
        fp.partition = p;
        fp.fetch_offset = pos[p];
        fp.partition_max_bytes = q.max_bytes;
    }
    return q;
}

json browse(const context& ctx, const http::request& req) {
    const std::string who = principal_of(req);
    auto t = describe_topics(ctx, who, req.param("topic")).front();
    browse_args a = parse_browse(ctx, req, t, who);
    const auto deadline = steady::now() + std::chrono::milliseconds(2000 + a.wait_ms);
    std::vector<shown_record> got;
    std::map<int32_t, int64_t> pos = a.start, hwm, lso, log_start;
    std::map<int32_t, size_t> taken;  // records kept per partition: at most `limit` each
    std::set<int32_t> done;           // partitions at their end
    int64_t bytes_read = 0;
    size_t scanned = 0;
    bool first = true;
    while (done.size() < a.partitions.size() && int(got.size()) < a.limit && bytes_read < a.max_bytes &&
           steady::now() < deadline) {
        auto q = next_fetch(t, a, pos, done, a.max_bytes - bytes_read, first ? a.wait_ms : 0);
        first = false;
        auto r = ctx.kafka->call<kafka::fetch_request, kafka::fetch_response>(
            q, who, std::chrono::milliseconds(a.wait_ms + 10000), 12);
        check_kafka_error(r.error_code, "Fetch");
        bool progress = false;
        for (auto& tr : r.responses)
            for (auto& pd : tr.partitions) {
                const int32_t p = pd.partition_index;
                if (pd.error_code == int16_t(error_code::offset_out_of_range)) {
                    done.insert(p);
                    continue;
                }
                check_kafka_error(pd.error_code, "Fetch " + t.name + "-" + std::to_string(p));
                hwm[p] = pd.high_watermark;
                lso[p] = pd.last_stable_offset;
                log_start[p] = pd.log_start_offset;
                bytes data = pd.records ? pd.records->flatten() : bytes{};
                static const std::vector<kafka::fetch_response::aborted_transaction> none;
                // Decoding (JSON, hex) is most of a browse's time: a partition
                // never gives more than `limit` records, however many a 1 MiB
                // Fetch brought (the rest are read again by the next page).
                const size_t before = got.size();
                int64_t next = decode_partition(p, data, pos[p], a.isolation,
                                                pd.aborted_transactions ? *pd.aborted_transactions : none, a,
                                                size_t(a.limit) - taken[p], got, scanned, bytes_read);
                taken[p] += got.size() - before;
                if (next > pos[p]) progress = true;
                pos[p] = next;
                const int64_t end = a.isolation == 1 ? pd.last_stable_offset : pd.high_watermark;
                if (pos[p] >= end || taken[p] >= size_t(a.limit)) done.insert(p);
            }
        if (!progress) break;
    }
    // Oldest first per partition, partitions interleaved by timestamp; newest first on request.
    std::stable_sort(got.begin(), got.end(), [](const shown_record& x, const shown_record& y) {
        int64_t tx = x.j["timestamp"], ty = y.j["timestamp"];
        return tx != ty ? tx < ty : (x.partition != y.partition ? x.partition < y.partition : x.offset < y.offset);
    });
    if (a.newest_first) std::reverse(got.begin(), got.end());
    bool truncated = int(got.size()) > a.limit;
    if (truncated) got.resize(size_t(a.limit));
    json msgs = json::array();
    for (auto& g : got) msgs.push_back(std::move(g.j));
    json next = json::object(), hw = json::object(), ls = json::object();
    for (auto& [p, o] : pos) next[std::to_string(p)] = o;
    for (auto& [p, o] : hwm) hw[std::to_string(p)] = o;
    for (auto& [p, o] : lso) ls[std::to_string(p)] = o;
    return {{"topic", t.name},           {"messages", msgs},
            {"next_offsets", next},      {"high_watermarks", hw},
            {"last_stable_offsets", ls}, {"scanned", scanned},
            {"bytes_read", bytes_read},  {"truncated", truncated || bytes_read >= a.max_bytes}};
}

std::optional<bytes> field_bytes(const json& b, const char* name) {
    if (!b.contains(name) || b[name].is_null()) return std::nullopt;
    const json& v = b[name];
    std::string s = v.is_string() ? v.get<std::string>() : v.dump();
    return bytes(s.begin(), s.end());
}

http::response produce(const context& ctx, http::request& req) {
    const std::string who = principal_of(req);
    json b = body_object(req);
    auto t = describe_topics(ctx, who, req.param("topic")).front();
    record::record_data rd;
    rd.key = field_bytes(b, "key");
    int32_t partition = 0;
    if (b.contains("partition") && !b["partition"].is_null()) {
        if (!b["partition"].is_number_integer()) throw api_error(400, "\"partition\" must be an integer");
        partition = b["partition"].get<int32_t>();
        if (std::find(t.partitions.begin(), t.partitions.end(), partition) == t.partitions.end())
            throw api_error(404, "topic " + t.name + " has no partition " + std::to_string(partition));
    } else if (!t.partitions.empty()) {
        // As the Java producer's default partitioner: a keyed record goes
        // where murmur2 of its key says, one without a key to any partition.
        static std::atomic<uint32_t> next{0};
        const auto n = int32_t(t.partitions.size());
        partition = rd.key ? record::partition_for_key(*rd.key, n) : int32_t(next.fetch_add(1) % uint32_t(n));
    }
    rd.value = field_bytes(b, "value");
    rd.timestamp = wall_ms();
    if (b.contains("headers")) {
        const json& hs = b["headers"];
        if (hs.is_object()) {
            for (auto& [k, v] : hs.items()) {
                std::string s = v.is_string() ? v.get<std::string>() : v.dump();
                rd.headers.push_back({k, v.is_null() ? std::nullopt : std::optional<bytes>(bytes(s.begin(), s.end()))});
            }
        } else if (hs.is_array()) {
            for (auto& h : hs) {
                if (!h.is_object() || !h.contains("key") || !h["key"].is_string())
                    throw api_error(400, "each header needs a string \"key\"");
                rd.headers.push_back({h["key"].get<std::string>(), field_bytes(h, "value")});
            }
        } else {
            throw api_error(400, "\"headers\" must be an object or an array of {key, value}");
        }
    }
    record::batch_builder bb({});
    bb.add(std::move(rd));
    auto batch = bb.build();
    if (!batch) throw api_error(500, "could not build the batch");
    kafka::produce_request q;
    q.acks = -1;
    q.timeout_ms = 30000;
    q.topic_data.push_back({});
    q.topic_data.back().name = t.name;
    q.topic_data.back().topic_id = t.id;
    q.topic_data.back().partition_data.push_back({});
    q.topic_data.back().partition_data.back().index = partition;
    q.topic_data.back().partition_data.back().records = kafka::records(shared_bytes(std::move(*batch)));
    auto r = ctx.kafka->call<kafka::produce_request, kafka::produce_response>(q, who, std::chrono::seconds(30), 12);
    for (auto& tr : r.responses)
        for (auto& pr : tr.partition_responses) {
            check_kafka_error(pr.error_code, "Produce", pr.error_message);
            return json_reply({{"topic", t.name}, {"partition", pr.index}, {"offset", pr.base_offset}}, 201);
        }
    throw api_error(502, "Produce: no answer for the partition");
}

}  // namespace

void add_messages(http::server& server, const context& ctx) {
    server.add("GET", "/api/v1/topics/{topic}/messages",
               route([&ctx](http::request& req) { return json_reply(browse(ctx, req)); }));
    server.add("POST", "/api/v1/topics/{topic}/messages",
               route([&ctx](http::request& req) { return produce(ctx, req); }));
}

}  // namespace ketch::console
