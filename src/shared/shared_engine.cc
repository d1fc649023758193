#include "shared/shared_engine.h"

#include <set>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "base/uuid.h"
#include "cluster/retention.h"
#include "cluster/schema.h"
#include "objstore/retry.h"
#include "shared/object_io.h"
#include "shared/pg_topic_store.h"

namespace ketch::shared {

shared_engine::shared_engine(engine_config cfg, std::unique_ptr<disk_cache> disk)
    : cfg_(std::move(cfg)),
      incarnation_(uuid::random().to_base64()),
      pool_(*cfg_.pool),
      s3_(cfg_.where, cfg_.who),
      cache_(cfg_.cache_bytes),
      disk_(std::move(disk)),
      reader_(cache_, disk_.get(), cfg_.reads) {}

result<std::unique_ptr<shared_engine>, std::string> shared_engine::open(engine_config cfg) {
    std::unique_ptr<disk_cache> disk;
    if (!cfg.cache_dir.empty()) {
        // The store's address names the cached pieces: another store's never match.
        auto d = disk_cache::open(cfg.cache_dir, cfg.cache_dir_bytes,
                                  cfg.where.host_header() + "/" + cfg.where.bucket + "/" + cfg.where.prefix);
        if (!d.ok()) return failure{"--cluster-cache-dir: " + d.error()};
        spdlog::info("cluster: disk cache {} holds {} bytes (bound {})", cfg.cache_dir, (*d)->bytes(),
                     cfg.cache_dir_bytes);
        disk = std::move(*d);
    }
    std::unique_ptr<shared_engine> e(new shared_engine(std::move(cfg), std::move(disk)));
    auto c = cluster::pg_connection::open(e->commit_url());
    if (!c.ok()) return failure{"cannot connect to PostgreSQL: " + c.error().message};
    if (auto m = cluster::migrate(**c); !m.ok()) return failure{"schema: " + m.error().message};
    e->commit_conn_ = std::move(*c);
    e->flusher_ = std::thread([p = e.get()] { p->run_flusher(); });
    e->committer_ = std::thread([p = e.get()] { p->run_committer(); });
    e->listener_ = std::make_unique<cluster::commit_listener>(
        cluster::with_application_name(e->cfg_.pg_url, "ketch-" + std::to_string(e->cfg_.node_id) + "-listen"),
        [p = e.get()](const std::string& key) { p->on_foreign_commit(key); });
    return e;
}

std::string shared_engine::commit_url() const {
    return cluster::with_application_name(cfg_.pg_url, "ketch-" + std::to_string(cfg_.node_id) + "-commit");
}

shared_engine::~shared_engine() {
    listener_.reset();
    {
        std::lock_guard l(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    if (flusher_.joinable()) flusher_.join();  // the last flush started; the committer drains the rest
    if (committer_.joinable()) committer_.join();
}

void shared_engine::set_on_commit(std::function<void(const std::string&, int32_t)> fn) {
    std::lock_guard l(parts_mu_);
    on_commit_ = std::move(fn);
}

void shared_engine::set_on_topics(std::function<void()> fn) {
    std::lock_guard l(parts_mu_);
    on_topics_ = std::move(fn);
}

void shared_engine::set_on_notice(const std::string& payload, std::function<void()> fn) {
    std::lock_guard l(notice_mu_);
    on_notice_[payload] = std::move(fn);
}

void shared_engine::set_on_notice_prefix(const std::string& prefix, std::function<void(const std::string&)> fn) {
    std::lock_guard l(notice_mu_);
    on_notice_prefix_[prefix] = std::move(fn);
}

void shared_engine::set_on_txn_end(std::function<void(int64_t, bool)> fn) {
    std::lock_guard l(parts_mu_);
    on_txn_end_ = std::move(fn);
}

int64_t shared_engine::reserve_producer_ids(int64_t size) {
    auto c = pool_.take();
    if (!c.ok()) throw std::runtime_error("producer ids: PostgreSQL: " + c.error().message);
    auto r = (*c)->exec("SELECT nextval('ketch_producer_id_blocks')");
    c->reset();
    if (!r.ok()) throw std::runtime_error("producer ids: PostgreSQL: " + r.error().message);
    return (std::stoll(r->at(0, 0)) - 1) * size;
}

void shared_engine::woke(const std::string& topic, int32_t partition) {
    std::function<void(const std::string&, int32_t)> fn;
    {
        std::lock_guard l(parts_mu_);
        fn = on_commit_;
    }
    if (fn) fn(topic, partition);
}

std::shared_ptr<partition::storage> shared_engine::get(const partition::topic_partition& tp) {
    if (local(tp)) return cfg_.local->get(tp);
    std::lock_guard l(parts_mu_);
    auto it = parts_.find(tp);
    return it == parts_.end() ? nullptr : it->second;
}

log::log_result<std::shared_ptr<partition::storage>> shared_engine::get_or_create(const partition::topic_partition& tp,
                                                                                  const log::log_config& config) {
    if (local(tp)) return cfg_.local->get_or_create(tp, config);
    if (auto s = get(tp)) return s;
    auto id = cfg_.topic_id_of ? cfg_.topic_id_of(tp.topic) : std::nullopt;
    if (!id) return failure{log::log_error{log::log_errc::closed, "no such topic: " + tp.topic}};
    auto c = pool_.take();
    if (!c.ok()) return failure{log::log_error{log::log_errc::io, "PostgreSQL: " + c.error().message}};
    auto offs = cluster::read_offsets(**c, {*id, tp.partition});
    c->reset();
    if (!offs.ok()) return failure{log::log_error{log::log_errc::io, "PostgreSQL: " + offs.error().message}};
    auto s = std::make_shared<shared_storage>(*this, tp.topic, tp.partition, *id, *offs, config);
    std::lock_guard l(parts_mu_);
    auto [it, fresh] = parts_.try_emplace(tp, s);
    return std::shared_ptr<partition::storage>(it->second);
}

log::log_result<std::shared_ptr<partition::storage>> shared_engine::get_for_read(const partition::topic_partition& tp,
                                                                                 const log::log_config& config) {
    if (local(tp)) return cfg_.local->get_for_read(tp, config);
    return get_or_create(tp, config);
}

log::log_status shared_engine::remove(const partition::topic_partition& tp) {
    if (local(tp)) return cfg_.local->remove(tp);
    // The partition's rows stay under the topic's id (a new topic of the same
    // name has another id); only this broker's handle goes.
    std::lock_guard l(parts_mu_);
    parts_.erase(tp);
    return ok_v;
}

std::vector<partition::topic_partition> shared_engine::partitions() const {
    std::vector<partition::topic_partition> out;
    if (cfg_.local) out = cfg_.local->partitions();
    std::lock_guard l(parts_mu_);
    for (auto& [tp, s] : parts_) out.push_back(tp);
    return out;
}

uint64_t shared_engine::stage(const std::shared_ptr<shared_storage>& s, byte_view batch, int8_t marker) {
    std::lock_guard l(mu_);
    if (buffered_bytes_ + in_flight_bytes_ + batch.size() > cfg_.max_buffered_bytes) return 0;
    const uint64_t ticket = next_ticket_++;
    buffer_.push_back({s, bytes(batch.begin(), batch.end()), ticket, marker});
    buffered_bytes_ += batch.size();
    if (buffer_.size() == 1) first_staged_ = std::chrono::steady_clock::now();
    if (buffer_.size() == 1 || buffered_bytes_ >= cfg_.flush_bytes) cv_.notify_all();
    return ticket;
}

void shared_engine::wait_commit(uint64_t ticket, std::function<void(log::log_result<log::append_result>)> done) {
    std::unique_lock l(tickets_mu_);
    auto& t = tickets_[ticket];
    if (t.result) {
        auto r = std::move(*t.result);
        tickets_.erase(ticket);
        l.unlock();
        done(std::move(r));
        return;
    }
    t.done = std::move(done);
}

void shared_engine::complete(uint64_t ticket, log::log_result<log::append_result> r) {
    std::unique_lock l(tickets_mu_);
    auto& t = tickets_[ticket];
    if (t.done) {
        auto done = std::move(t.done);
        tickets_.erase(ticket);
        l.unlock();
        done(std::move(r));
        return;
    }
    t.result = std::move(r);
}

bool shared_engine::on_notice(const std::string& payload) {
    const bool again = payload == cluster::k_listening_again;
    bool handled = again || payload == k_topics_changed;
    if (handled) {
        std::function<void()> fn;
        {
            std::lock_guard l(parts_mu_);
            fn = on_topics_;
        }
        if (fn) fn();
    }
    std::lock_guard l(notice_mu_);  // held while they run: set_on_notice waits for them
    for (auto& [p, fn] : on_notice_)
        if (fn && (again || p == payload)) {
            fn();
            handled = true;
        }
    for (auto& [p, fn] : on_notice_prefix_)
        if (fn && payload.starts_with(p)) {
            fn(payload.substr(p.size()));
            handled = true;
        }
    return handled;
}

// Another broker's commit (this broker's own come here too and are skipped):
// the partitions it appended to that this broker has open move their high
// watermark and wake their fetches.
void shared_engine::on_foreign_commit(const std::string& object_key) {
    if (object_key.starts_with("txn-end:")) {  // txn-end:<producer id>:<0|1>
        std::function<void(int64_t, bool)> fn;
        {
            std::lock_guard l(parts_mu_);
            fn = on_txn_end_;
        }
        const auto colon = object_key.rfind(':');
        if (fn && colon > 8) fn(std::stoll(object_key.substr(8, colon - 8)), object_key.substr(colon + 1) == "1");
        return;
    }
    if (object_key.starts_with(cluster::k_log_start_prefix)) return on_log_start(object_key);
    // Listening again after a lost connection: the commits notified meanwhile
    // were not heard; every open partition reads its offsets again.
    if (object_key == cluster::k_listening_again) refresh_open();
    if (on_notice(object_key)) return;
    if (object_key.starts_with("data/" + std::to_string(cfg_.node_id) + "-" + incarnation_ + "-")) return;
    std::map<cluster::partition_key, std::shared_ptr<shared_storage>> open;
    {
        std::lock_guard l(parts_mu_);
        for (auto& [tp, s] : parts_) open.emplace(s->key(), s);
    }
    if (open.empty()) return;
    auto c = pool_.take();
    if (!c.ok()) return;
    auto rows = (*c)->exec(
        "SELECT b.topic_id, b.partition, max(b.last_offset) + 1, p.log_start_offset, coalesce((SELECT "
        "min(o.first_offset) FROM ketch_txn_open o WHERE o.topic_id = b.topic_id AND o.partition = b.partition), "
        "-1) FROM ketch_batches b "
        "JOIN ketch_partitions p ON p.topic_id = b.topic_id AND p.partition = b.partition "
        "WHERE b.object_key = $1 GROUP BY b.topic_id, b.partition, p.log_start_offset",
        {object_key});
    c->reset();
    if (!rows.ok()) return;
    for (size_t i = 0; i < rows->rows.size(); ++i) {
        auto it = open.find({rows->at(i, 0), std::stoi(rows->at(i, 1))});
        if (it == open.end()) continue;
        it->second->observe(std::stoll(rows->at(i, 3)), std::stoll(rows->at(i, 2)), std::stoll(rows->at(i, 4)));
        woke(it->second->topic(), it->second->partition());
    }
}

void shared_engine::refresh_open() {
    std::vector<std::shared_ptr<shared_storage>> open;
    {
        std::lock_guard l(parts_mu_);
        for (auto& [tp, s] : parts_) open.push_back(s);
    }
    for (auto& s : open)
        if (s->refresh_offsets().ok()) woke(s->topic(), s->partition());
}

}  // namespace ketch::shared

namespace ketch::shared {

// "log-start:<topic id>:<partition>:<offset>" (cluster/retention.h): retention
// or DeleteRecords moved a partition's log start; ListOffsets answers it.
void shared_engine::on_log_start(const std::string& payload) {
    const auto last = payload.rfind(':');
    const auto mid = last == std::string::npos ? last : payload.rfind(':', last - 1);
    const size_t from = std::char_traits<char>::length(cluster::k_log_start_prefix);
    if (mid == std::string::npos || mid < from) return;
    try {
        const cluster::partition_key key{payload.substr(from, mid - from), std::stoi(payload.substr(mid + 1))};
        const int64_t start = std::stoll(payload.substr(last + 1));
        std::lock_guard l(parts_mu_);
        for (auto& [tp, s] : parts_)
            if (s->key() == key) s->observe(start, start);  // the high watermark is at least there
    } catch (const std::exception&) {
        spdlog::warn("cluster: a log start notice not understood: {}", payload);
    }
}

}  // namespace ketch::shared
