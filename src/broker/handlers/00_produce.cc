// Produce v3-13. v3: transactional_id. v5: log_start_offset. v7: zstd.
// v8: record_errors, error_message. v9: flexible. v10: current leader and
// node endpoints on NOT_LEADER. v13: topics by id (KIP-516).
// Behaviour: KafkaApis.handleProduceRequest, ReplicaManager.appendRecords,
// LogValidator (via record::validate_produce_batch).
//
// Idempotence (log/producer_state.h): a retried batch is answered with its
// original base offset and no error; sequence gaps, stale epochs and plain
// batches inside a transaction are refused with Kafka's codes.
// Each partition's records must be exactly one valid v2 batch; nothing of a
// refused partition is stored and the others are unaffected. acks=-1 is
// answered once the data is fsynced (group commit shared with every other
// producer); acks=1 after the write; acks=0 never — and, as Kafka does, a
// refused acks=0 request closes the connection so the producer notices.
// ACLs (KafkaApis.handleProduceRequest): transactional batches need WRITE on
// the transactional id (else every partition TRANSACTIONAL_ID_AUTHORIZATION_
// FAILED), each topic WRITE (else TOPIC_AUTHORIZATION_FAILED, before the
// existence check).
#include <chrono>
#include <utility>

#include "base/endian.h"
#include "broker/async.h"
#include "broker/handlers/handlers.h"
#include "broker/partition_waiters.h"
#include "broker/partitions.h"
#include "broker/quota_accounting.h"
#include "meta/topic_registry.h"
#include "record/batch_header.h"
#include "record/batch_validate.h"
#include "record/recompress.h"

namespace ketch::broker {

using namespace kafka;

namespace {

using partition_response = produce_response::partition_produce_response;

int64_t wall_clock_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// compression.type: nullopt for "producer" (batches kept as sent).
std::optional<record::compression> topic_codec(const meta::log_settings& s) {
    switch (s.compression) {
        case meta::compression_type::producer: return std::nullopt;
        case meta::compression_type::uncompressed: return record::compression::none;
        case meta::compression_type::gzip: return record::compression::gzip;
        case meta::compression_type::snappy: return record::compression::snappy;
        case meta::compression_type::lz4: return record::compression::lz4;
        case meta::compression_type::zstd: return record::compression::zstd;
    }
    return std::nullopt;
}

// compression.gzip.level (-1: zlib's default), compression.lz4.level, compression.zstd.level.
int codec_level(const meta::log_settings& s, record::compression c) {
    switch (c) {
        case record::compression::gzip: return s.compression_gzip_level;
        case record::compression::lz4: return s.compression_lz4_level;
        case record::compression::zstd: return s.compression_zstd_level;
        default: return record::k_default_level;
    }
}

// The Kafka code of a producer-state refusal; none for other log errors.
error_code producer_state_error(log::log_errc c) {
    switch (c) {
        case log::log_errc::out_of_order_sequence: return error_code::out_of_order_sequence_number;
        case log::log_errc::invalid_producer_epoch: return error_code::invalid_producer_epoch;
        case log::log_errc::invalid_txn_state: return error_code::invalid_txn_state;
        case log::log_errc::coordinator_fenced: return error_code::transaction_coordinator_fenced;
        default: return error_code::none;
    }
}

struct pending_sync {
    std::shared_ptr<log::partition_log> log;
    int64_t end_offset;
    partition_response* out;
};

void append_one(request_context& ctx, const meta::resolved_topic& topic, produce_request::partition_produce_data& p,
                partition_response& out, std::vector<pending_sync>& syncs, int16_t acks) {
    auto& b = ctx.broker;
    out.index = p.index;
    const meta::topic& t = topic.t;
    auto part = open_partition(b, topic, p.index);
    if (!part.ok()) {
        out.error_code = code(part.error());
        return;
    }
    const meta::log_settings& s = part->settings;
    record::validation_limits limits;
    limits.now_ms = wall_clock_ms();
    limits.max_message_bytes = s.max_message_bytes;
    limits.segment_bytes = s.segment_bytes;
    limits.topic_timestamp_type = s.message_timestamp_type == meta::timestamp_type::log_append_time
                                      ? record::timestamp_type::log_append_time
                                      : record::timestamp_type::create_time;
    limits.timestamp_before_max_ms = s.message_timestamp_before_max_ms;
    limits.timestamp_after_max_ms = s.message_timestamp_after_max_ms;
    limits.compacted = s.cleanup_compact;
    limits.allow_zstd = ctx.api_version >= 7;
    std::string tp = t.name + "-" + std::to_string(p.index);
    limits.topic_partition = tp;

    byte_view data = p.records ? p.records->data.view() : byte_view{};
    auto info = record::validate_produce_batch(data, limits);
    if (!info.ok()) {
        auto& e = info.error();
        out.error_code = code(e.code);
        if (e.message_in_response) out.error_message = e.message;
        for (auto& re : e.record_errors) out.record_errors.push_back({re.batch_index, re.message, {}});
        if (e.log_stage) out.log_start_offset = part->log->log_start_offset();
        return;
    }
    byte_view batch = data.first(info->size_in_bytes);
    bytes rebuilt;
    if (auto target = topic_codec(s); target && *target != info->codec) {
        // compression.type names another codec: LogValidator rebuilds the batch.
        auto r = record::recompress_batch(batch, *target, codec_level(s, *target));
        if (!r.ok()) {
            out.error_code = code(error_code::unknown_server_error);
            return;
        }
        rebuilt = std::move(*r);
        batch = rebuilt;
        if (int64_t(batch.size()) > s.max_message_bytes) {  // UnifiedLog.append: the size may have changed
            out.error_code = code(error_code::message_too_large);
            out.log_start_offset = part->log->log_start_offset();
            return;
        }
    }
    log::append_options opts;
    opts.timestamp_type = limits.topic_timestamp_type;
    opts.now_ms = limits.now_ms;
    opts.leader_epoch = 0;
    auto r = part->log->append(batch, opts);
    if (!r.ok()) {
        // Producer-state refusals carry the log start offset (ReplicaManager
        // appendToLocalLog: the generic branch); storage errors do not.
        error_code e = producer_state_error(r.error().code);
        out.error_code = code(e == error_code::none ? error_code::kafka_storage_error : e);
        if (e != error_code::none) out.log_start_offset = part->log->log_start_offset();
        return;
    }
    if (r->duplicate) {
        // A retried batch: its original offsets, no error, nothing appended
        // (UnifiedLog.append returns the duplicate's LogAppendInfo, whose
        // log append time is the original batch's max timestamp: recorded).
        out.base_offset = r->base_offset;
        out.log_append_time_ms = r->log_append_time;
        out.log_start_offset = r->log_start_offset;
        if (acks == -1) syncs.push_back({part->log, r->last_offset + 1, &out});
        return;
    }
    out.base_offset = r->base_offset;
    out.log_append_time_ms = r->log_append_time;
    out.log_start_offset = r->log_start_offset;
    b.waiters.notify(t.name, p.index);
    if (acks == -1) syncs.push_back({part->log, r->last_offset + 1, &out});
}

// Waits until every pending sync finished; a failed fsync turns that
// partition's answer into KAFKA_STORAGE_ERROR.
awaitable<void> wait_durable(std::vector<pending_sync>& syncs) {
    if (syncs.empty()) co_return;
    auto failed = co_await on_callback<std::vector<bool>>([&syncs](std::function<void(std::vector<bool>)> done) {
        struct state {
            std::mutex mu;
            size_t left;
            std::vector<bool> failed;
            std::function<void(std::vector<bool>)> done;
        };
        auto st = std::make_shared<state>();
        st->left = syncs.size();
        st->failed.assign(syncs.size(), false);
        st->done = std::move(done);
        for (size_t i = 0; i < syncs.size(); ++i) {
            syncs[i].log->sync_async(syncs[i].end_offset, [st, i](log::log_status s) {
                std::unique_lock lock(st->mu);
                if (!s.ok()) st->failed[i] = true;
                if (--st->left == 0) {
                    auto f = std::move(st->failed);
                    lock.unlock();
                    st->done(std::move(f));
                }
            });
        }
    });
    for (size_t i = 0; i < syncs.size(); ++i) {
        if (failed[i]) {
            auto* out = syncs[i].out;
            out->error_code = code(error_code::kafka_storage_error);
            out->base_offset = -1;
            out->log_append_time_ms = -1;
            out->log_start_offset = -1;
        }
    }
}

// RequestUtils.hasTransactionalRecords: the first batch of some partition is transactional.
bool has_transactional_records(const produce_request& req) {
    for (auto& td : req.topic_data)
        for (auto& p : td.partition_data) {
            if (!p.records) continue;
            byte_view d = p.records->data.view();
            if (d.size() > record::k_attributes_offset + 1 &&
                (load_be<int16_t>(d.data() + record::k_attributes_offset) & record::k_attr_transactional))
                return true;
        }
    return false;
}

}  // namespace

awaitable<produce_response> handle_produce(request_context& ctx, produce_request& req) {
    auto& b = ctx.broker;
    produce_response resp;
    const bool by_id = ctx.api_version >= 13;
    bool any_error = false;
    std::vector<pending_sync> syncs;
    // Responses are built in place; reserve so pointers in `syncs` stay valid.
    resp.responses.reserve(req.topic_data.size());
    const bool txn_denied =
        b.authorizer && has_transactional_records(req) &&
        !(req.transactional_id &&
          ctx.authorize(security::acl_operation::write, security::resource_type::transactional_id, *req.transactional_id));
    for (auto& td : req.topic_data) {
        auto& tr = resp.responses.emplace_back();
        tr.name = td.name;
        tr.topic_id = td.topic_id;
        tr.partition_responses.reserve(td.partition_data.size());
        auto t = by_id ? b.topics.find(td.topic_id) : b.topics.find(td.name);
        const bool denied =
            (!by_id || t) && !ctx.authorize(security::acl_operation::write, security::resource_type::topic,
                                            by_id ? t->t.name : td.name);
        for (auto& p : td.partition_data) {
            auto& out = tr.partition_responses.emplace_back();
            out.index = p.index;
            out.base_offset = -1;
            if (txn_denied) {
                out.error_code = code(error_code::transactional_id_authorization_failed);
            } else if (denied) {
                out.error_code = code(error_code::topic_authorization_failed);
            } else if (req.acks != 0 && req.acks != 1 && req.acks != -1) {
                out.error_code = code(error_code::invalid_required_acks);
            } else if (!t) {
                out.error_code = code(by_id ? error_code::unknown_topic_id : error_code::unknown_topic_or_partition);
            } else {
                append_one(ctx, *t, p, out, syncs, req.acks);
            }
            if (out.error_code != 0) any_error = true;
        }
    }
    // producer_byte_rate: the request's bytes (KafkaApis.handleProduceRequest).
    record_quota(ctx, security::quota_type::produce, double(ctx.request_bytes));
    if (req.acks == 0) {
        ctx.no_response = true;
        if (any_error) ctx.close_connection = true;
        co_return resp;
    }
    // Appended; only the fsync is pending: the connection may read and append
    // the producer's next request meanwhile, so one sync covers both (the
    // answers still go out in order). Not while throttled, nor while a
    // request_percentage quota exists (its throttle is known only after the
    // handler): the connection is muted after a throttled answer.
    const bool request_quota = b.quotas && b.quotas->enforced(security::quota_type::request);
    if (!syncs.empty() && ctx.throttle_ms == 0 && !request_quota && ctx.conn.release_pipeline)
        std::exchange(ctx.conn.release_pipeline, nullptr)();
    co_await wait_durable(syncs);
    co_return resp;
}

// ProduceRequest.getErrorResponse: every partition with the error and the
// exception's message; nothing for acks=0 (Kafka closes the connection).
std::optional<produce_response> produce_error(const produce_request& req, int16_t, const error_answer& e) {
    if (req.acks == 0) return std::nullopt;
    produce_response resp;
    for (auto& t : req.topic_data) {
        auto& rt = resp.responses.emplace_back();
        rt.name = t.name;
        rt.topic_id = t.topic_id;
        for (auto& p : t.partition_data) {
            auto& rp = error_row(rt.partition_responses, e);
            rp.index = p.index;
            rp.base_offset = -1;
            set_message(rp.error_message, e.message);
        }
    }
    return resp;
}

}  // namespace ketch::broker
