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
// Cluster mode (docs/cluster.md): offsets come from the shared log's commit,
// and every acks waits for it (partition::service::wait_commits).
// ACLs (KafkaApis.handleProduceRequest): transactional batches need WRITE on
// the transactional id (else every partition TRANSACTIONAL_ID_AUTHORIZATION_
// FAILED), each topic WRITE (else TOPIC_AUTHORIZATION_FAILED, before the
// existence check).
// Transactions (KIP-890, broker/txn_verification.h): the first transactional
// batch of a transaction on a partition is verified with the coordinator
// (v3-11) or adds the partition to the transaction (v12+, version 2).
#include <utility>

#include "base/endian.h"
#include "broker/async.h"
#include "broker/handlers/handlers.h"
#include "broker/partition_requests.h"
#include "broker/produce_appends.h"
#include "broker/quota_accounting.h"
#include "broker/txn_verification.h"
#include "meta/topic_name.h"
#include "record/batch_header.h"

namespace ketch::broker {

using namespace kafka;

namespace {

using partition_response = produce_response::partition_produce_response;

// Validation, recompression, the append and the error codes are the
// partition service's (partition/append.cc, run by broker/produce_appends);
// this fills in the answer.
void take_outcome(partition::append_outcome& r, partition_response& out, std::vector<partition::durable_wait>& syncs,
                  std::vector<partition::commit_wait>& commits, int16_t acks) {
    out.error_code = code(r.error);
    out.error_message = std::move(r.error_message);
    for (auto& re : r.record_errors) out.record_errors.push_back({re.batch_index, std::move(re.message), {}});
    out.base_offset = r.base_offset;
    out.log_append_time_ms = r.log_append_time;
    out.log_start_offset = r.log_start_offset;
    if (r.pending) {  // cluster mode: offsets come with the commit, for every acks
        commits.push_back({std::move(r.store), r.pending, &out});
        return;
    }
    if (acks == -1 && r.store) syncs.push_back({std::move(r.store), r.end_offset, &out});
}

// Cluster mode (docs/cluster.md): a staged batch is answered after the
// PostgreSQL commit that assigned its offsets (acks=1 waits as acks=all does).
awaitable<void> wait_commits(request_context& ctx, const std::vector<partition::commit_wait>& commits) {
    auto& svc = ctx.broker.partitions;
    auto outcomes = co_await on_callback<std::vector<partition::append_outcome>>(
        [&](std::function<void(std::vector<partition::append_outcome>)> done) {
            svc.wait_commits(commits, std::move(done));
        });
    for (size_t i = 0; i < commits.size(); ++i) {
        auto* out = static_cast<partition_response*>(commits[i].tag);
        auto& o = outcomes[i];
        out->error_code = code(o.error);
        out->base_offset = o.base_offset;
        out->log_append_time_ms = o.log_append_time;
        out->log_start_offset = o.log_start_offset;
    }
}

// Waits until every append is durable; a failed fsync turns that
// partition's answer into KAFKA_STORAGE_ERROR.
awaitable<void> wait_durable(request_context& ctx, const std::vector<partition::durable_wait>& syncs) {
    if (syncs.empty()) co_return;
    auto& svc = ctx.broker.partitions;
    auto failed = co_await on_callback<std::vector<bool>>(
        [&](std::function<void(std::vector<bool>)> done) { svc.wait_durable(syncs, std::move(done)); });
    for (size_t i = 0; i < syncs.size(); ++i) {
        if (!failed[i]) continue;
        auto* out = static_cast<partition_response*>(syncs[i].tag);
        out->error_code = code(error_code::kafka_storage_error);
        out->base_offset = -1;
        out->log_append_time_ms = -1;
        out->log_start_offset = -1;
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

// A partition that passed the checks, waiting for verification and its append.
struct pending_append {
    const meta::resolved_topic* topic;
    produce_request::partition_produce_data* data;
    partition_response* out;
};

// The producer of a transactional batch (the partition's first batch), if any.
std::optional<record::batch_header> transactional_header(const produce_request::partition_produce_data& p) {
    if (!p.records) return std::nullopt;
    auto h = record::parse_batch_header(p.records->data.view());
    if (!h || !h->is_transactional()) return std::nullopt;
    return h;
}

// ReplicaManager.handleProduceAppend: the partitions whose producer has no
// open transaction there yet are verified (or added) in one coordinator call;
// the failed ones are answered and dropped from `todo`.
awaitable<void> verify_transactional(request_context& ctx, const produce_request& req,
                                     std::vector<pending_append>& todo) {
    if (!req.transactional_id || req.transactional_id->empty()) co_return;
    txn_verify_request vr;
    vr.transactional_id = *req.transactional_id;
    vr.op = produce_txn_operation(ctx.api_version);
    std::vector<std::pair<txn::topic_partition, pending_append*>> checked;
    for (auto& a : todo) {
        auto h = transactional_header(*a.data);
        if (!h) continue;
        if (vr.producer_id == -1) {
            vr.producer_id = h->producer_id;
            vr.producer_epoch = h->producer_epoch;
        }
        const txn::topic_partition tp{a.topic->t.name, a.data->index};
        auto store = ctx.broker.partitions.find(tp.topic, tp.partition);
        if (store && store->has_ongoing_txn(h->producer_id, h->producer_epoch)) continue;
        vr.partitions.push_back(tp);
        checked.emplace_back(tp, &a);
    }
    if (vr.partitions.empty()) co_return;
    auto failed = co_await verify_or_add_partitions_retrying(ctx, vr);
    if (failed.empty()) co_return;
    for (auto& [tp, a] : checked) {
        auto it = failed.find(tp);
        if (it == failed.end()) continue;
        auto e = produce_verification_error(it->second, vr.op);
        a->out->error_code = code(e.error);
        a->out->error_message = std::move(e.message);
        a->data = nullptr;  // answered
    }
    std::erase_if(todo, [](const pending_append& a) { return a.data == nullptr; });
}

}  // namespace

awaitable<produce_response> handle_produce(request_context& ctx, produce_request& req) {
    auto& b = ctx.broker;
    produce_response resp;
    const bool by_id = ctx.api_version >= 13;
    std::vector<partition::durable_wait> syncs;
    std::vector<partition::commit_wait> commits;
    std::vector<pending_append> todo;
    // Responses are built in place; reserve so pointers in `syncs` and `todo` stay valid.
    resp.responses.reserve(req.topic_data.size());
    const bool txn_denied =
        b.authorizer && has_transactional_records(req) &&
        !(req.transactional_id && ctx.authorize(security::acl_operation::write,
                                                security::resource_type::transactional_id, *req.transactional_id));
    std::vector<topic_access> accesses;
    accesses.reserve(req.topic_data.size());
    for (auto& td : req.topic_data) {
        auto& tr = resp.responses.emplace_back();
        tr.name = td.name;
        tr.topic_id = td.topic_id;
        tr.partition_responses.reserve(td.partition_data.size());
        auto& acc = accesses.emplace_back(by_id ? access_topic(ctx, security::acl_operation::write, td.topic_id)
                                                : access_topic(ctx, security::acl_operation::write, td.name));
        for (auto& p : td.partition_data) {
            auto& out = tr.partition_responses.emplace_back();
            out.index = p.index;
            out.base_offset = -1;
            if (txn_denied) {
                out.error_code = code(error_code::transactional_id_authorization_failed);
            } else if (acc.denied()) {
                out.error_code = code(error_code::topic_authorization_failed);
            } else if (req.acks != 0 && req.acks != 1 && req.acks != -1) {
                out.error_code = code(error_code::invalid_required_acks);
            } else if (acc.error != error_code::none) {
                out.error_code = code(acc.error);
            } else if (meta::is_internal_topic(acc.topic->t.name)) {
                // ReplicaManager.appendToLocalLog: "Cannot append to internal
                // topic", without the message in the answer.
                out.error_code = code(error_code::invalid_topic_exception);
            } else {
                todo.push_back({acc.topic.get(), &p, &out});
            }
        }
    }
    co_await verify_transactional(ctx, req, todo);
    std::vector<append_job> jobs;
    jobs.reserve(todo.size());
    for (auto& a : todo)
        jobs.push_back({a.topic, a.data->index, a.data->records ? a.data->records->data.view() : byte_view{},
                        ctx.api_version >= 7});
    // A request_percentage quota counts the handler's time: its appends stay on the reactor.
    const bool request_quota = b.quotas && b.quotas->enforced(security::quota_type::request);
    co_await run_appends(b, jobs, !request_quota);
    for (size_t i = 0; i < todo.size(); ++i) take_outcome(jobs[i].out, *todo[i].out, syncs, commits, req.acks);
    bool any_error = false;
    for (auto& tr : resp.responses)
        for (auto& out : tr.partition_responses) any_error = any_error || out.error_code != 0;
    // producer_byte_rate: the request's bytes (KafkaApis.handleProduceRequest).
    record_quota(ctx, security::quota_type::produce, double(ctx.request_bytes));
    if (req.acks == 0) {
        if (!commits.empty()) b.partitions.wait_commits(commits, [](std::vector<partition::append_outcome>) {});
        ctx.no_response = true;
        if (any_error) ctx.close_connection = true;
        co_return resp;
    }
    // Appended; only the fsync is pending: the connection may read and append
    // the producer's next request meanwhile, so one sync covers both (the
    // answers still go out in order). Not while throttled, nor while a
    // request_percentage quota exists (its throttle is known only after the
    // handler): the connection is muted after a throttled answer.
    if ((!syncs.empty() || !commits.empty()) && ctx.throttle_ms == 0 && !request_quota && ctx.conn.release_pipeline)
        std::exchange(ctx.conn.release_pipeline, nullptr)();
    co_await wait_durable(ctx, syncs);
    if (!commits.empty()) co_await wait_commits(ctx, commits);  // cluster mode only: no coroutine frame otherwise
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
