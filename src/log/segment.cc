#include "log/segment.h"

#include "base/endian.h"
#include "log/index_file.h"
#include "log/log_format.h"

namespace ketch::log {

segment::segment(std::shared_ptr<io::file> file, std::string dir, int64_t base_offset, int64_t now_ms)
    : file_(std::move(file)),
      dir_(std::move(dir)),
      base_(base_offset),
      created_ms_(now_ms),
      next_offset_(base_offset),
      index_(base_offset),
      times_(base_offset) {}

log_result<std::shared_ptr<segment>> segment::create(io::file_system& fs, const std::string& dir, int64_t base_offset,
                                                     int64_t now_ms) {
    auto f = fs.open(io::join_path(dir, segment_file_name(base_offset, k_log_suffix)), io::open_mode::truncate);
    if (!f) return failure{from_io(f.error())};
    return std::make_shared<segment>(std::move(*f), dir, base_offset, now_ms);
}

log_result<std::shared_ptr<segment>> segment::open(io::file_system& fs, const std::string& dir, int64_t base_offset,
                                                   int64_t now_ms) {
    auto f = fs.open(io::join_path(dir, segment_file_name(base_offset, k_log_suffix)), io::open_mode::read_write);
    if (!f) return failure{from_io(f.error())};
    return std::make_shared<segment>(std::move(*f), dir, base_offset, now_ms);
}

std::string segment::path(std::string_view suffix) const {
    return io::join_path(dir_, segment_file_name(base_, suffix));
}

void segment::index_batch(const record::batch_header& h, uint64_t position, uint32_t index_interval_bytes) {
    if (position == 0) first_batch_ts_ = h.max_timestamp;
    last_batch_position_ = position;
    last_batch_crc_ = h.crc;
    times_.observe(h.max_timestamp, h.base_offset);
    if (position - last_indexed_position_ >= index_interval_bytes && position > 0) {
        index_.append(h.base_offset, position);
        times_.append_max();
        last_indexed_position_ = position;
    }
}

log_status segment::append(std::span<const byte_view> parts, const record::batch_header& h,
                           uint32_t index_interval_bytes) {
    uint64_t pos = size_.load(std::memory_order_relaxed);
    if (auto st = file_->pwritev(pos, parts); !st) {
        (void)file_->truncate(pos);
        return failure{from_io(st.error())};
    }
    // Publish first, then index: index entries and the max timestamp then only
    // ever name published batches.
    next_offset_.store(h.last_offset() + 1, std::memory_order_release);
    size_.store(pos + h.total_size(), std::memory_order_release);
    index_batch(h, pos, index_interval_bytes);
    return ok_v;
}

log_status segment::write_index_files(io::file_system& fs) {
    times_.append_max();
    if (auto st = io::write_file_atomically(fs, path(k_index_suffix), index_.serialize()); !st)
        return failure{from_io(st.error())};
    if (auto st = io::write_file_atomically(fs, path(k_time_index_suffix), times_.serialize()); !st)
        return failure{from_io(st.error())};
    if (auto st = io::write_file_atomically(fs, path(k_txn_index_suffix), serialize_aborted(aborted())); !st)
        return failure{from_io(st.error())};
    return ok_v;
}

void segment::keep_indexes_on_disk(const std::shared_ptr<io::file_system>& fs) {
    index_.keep_on_disk(fs, path(k_index_suffix));
    times_.keep_on_disk(fs, path(k_time_index_suffix));
}

// Entries spilled at a time: at the default index interval (4 KiB) about 1 MiB
// of data, so a partition written slowly writes its index files rarely.
constexpr size_t k_index_spill_min = 4 * k_index_stride;

bool segment::spill_indexes(const std::shared_ptr<io::file_system>& fs, size_t index_upto, size_t times_upto) {
    bool a = index_.spill(fs, path(k_index_suffix), index_upto, k_index_spill_min);
    bool b = times_.spill(fs, path(k_time_index_suffix), times_upto, k_index_spill_min);
    return a && b;
}

log_status segment::read_first_batch_timestamp() {
    first_batch_ts_ = k_no_timestamp;
    batch_reader r(*file_, 0, size(), record::k_batch_header_size);
    auto first = r.next();
    if (!first) return failure{first.error()};
    if (*first) first_batch_ts_ = (*first)->header.max_timestamp;
    return ok_v;
}

namespace {

// The aborted-transactions index: empty in most segments, which its size tells
// with one stat.
io::io_result<bytes> read_txn_index(io::file_system& fs, const std::string& path) {
    auto size = fs.file_size(path);
    if (!size) return failure{size.error()};
    if (*size == 0) return bytes{};
    return io::read_file(fs, path);
}

}  // namespace

log_result<bool> segment::load_index_files(const std::shared_ptr<io::file_system>& fs, bool closed) {
    auto log_size = file_->size();
    if (!log_size) return failure{from_io(log_size.error())};
    // Of the two indexes only the envelope and the last entry are read here
    // (index_entries.h, open_lazily); the aborted-transactions index whole.
    auto idx =
        read_index_file_summary(*fs, path(k_index_suffix), k_offset_index_magic, offset_index_entry::size, base_);
    auto tix =
        read_index_file_summary(*fs, path(k_time_index_suffix), k_time_index_magic, time_index_entry::size, base_);
    auto txn_bytes = read_txn_index(*fs, path(k_txn_index_suffix));
    for (const io::io_error* e :
         {idx ? nullptr : &idx.error(), tix ? nullptr : &tix.error(), txn_bytes ? nullptr : &txn_bytes.error()}) {
        if (!e) continue;
        if (e->kind == io::io_errc::not_found) return false;
        return failure{from_io(*e)};
    }
    auto aborted = parse_aborted(*txn_bytes);
    if (!*idx || !*tix || !aborted) return false;
    std::optional<offset_index_entry> last_offset;
    if ((*idx)->count > 0) last_offset = offset_index_entry::decode((*idx)->last.data());
    std::optional<time_index_entry> last_time;
    if ((*tix)->count > 0) last_time = time_index_entry::decode((*tix)->last.data());
    if (last_offset &&
        (last_offset->relative_offset > uint64_t(k_max_relative_offset) || last_offset->position >= *log_size))
        return false;

    // The tail after the last index entry must parse, and it gives next_offset.
    uint64_t start = last_offset ? last_offset->position : 0;
    int64_t expect_at_start = last_offset ? base_ + last_offset->relative_offset : base_;
    batch_reader r(*file_, start, *log_size);
    int64_t next = base_;
    bool first = true;
    for (;;) {
        auto b = r.next();
        if (!b) {
            if (b.error().code == log_errc::corrupt) return false;
            return failure{b.error()};
        }
        if (!*b) break;
        const auto& h = (*b)->header;
        if (first && h.base_offset != expect_at_start && last_offset) return false;
        if (h.base_offset < next || h.last_offset() - base_ > k_max_relative_offset) return false;
        next = h.last_offset() + 1;
        first = false;
        last_batch_position_ = (*b)->position;
        last_batch_crc_ = h.crc;
    }
    // The final time entry names a batch below next_offset.
    if (last_time && base_ + int64_t(last_time->relative_offset) >= next) return false;

    time_index::max_entry max{k_no_timestamp, base_};
    if (last_time) max = {last_time->timestamp, base_ + last_time->relative_offset};
    last_indexed_position_ = last_offset ? last_offset->position : 0;
    const int64_t base = base_;
    const uint64_t size = *log_size;
    index_.open_lazily(
        fs, path(k_index_suffix), (*idx)->count, last_offset.value_or(offset_index_entry{}), (*idx)->crc,
        [base, size](byte_view f) { return offset_index::parse(f, base, size); }, closed);
    times_.reset({}, max);
    times_.open_lazily(
        fs, path(k_time_index_suffix), (*tix)->count, last_time.value_or(time_index_entry{}), (*tix)->crc,
        [base](byte_view f) { return time_index::parse(f, base); }, closed);
    reset_aborted(std::move(*aborted));
    size_.store(*log_size, std::memory_order_release);
    next_offset_.store(next, std::memory_order_release);
    synced_size.store(*log_size);
    if (auto st = read_first_batch_timestamp(); !st) {
        if (st.error().code == log_errc::corrupt) return false;
        return failure{st.error()};
    }
    return true;
}

void segment::add_aborted(const aborted_txn& t) {
    std::lock_guard lk(aborted_mu_);
    aborted_.push_back(t);
}

void segment::reset_aborted(std::vector<aborted_txn> entries) {
    std::lock_guard lk(aborted_mu_);
    aborted_ = std::move(entries);
}

std::vector<aborted_txn> segment::aborted() const {
    std::lock_guard lk(aborted_mu_);
    return aborted_;
}

bool segment::collect_aborted(int64_t from, int64_t upper, std::vector<aborted_txn>& out) const {
    std::lock_guard lk(aborted_mu_);
    for (const auto& t : aborted_) {
        if (t.last_offset >= from && t.first_offset < upper) out.push_back(t);
        if (t.last_stable_offset >= upper) return true;
    }
    return false;
}

bytes segment::serialize_aborted(const std::vector<aborted_txn>& entries) {
    bytes out(entries.size() * k_txn_index_entry_size);
    uint8_t* p = out.data();
    for (const auto& t : entries) {
        store_be<int16_t>(p, k_txn_index_version);
        store_be<int64_t>(p + 2, t.producer_id);
        store_be<int64_t>(p + 10, t.first_offset);
        store_be<int64_t>(p + 18, t.last_offset);
        store_be<int64_t>(p + 26, t.last_stable_offset);
        p += k_txn_index_entry_size;
    }
    return out;
}

std::optional<std::vector<aborted_txn>> segment::parse_aborted(byte_view file) {
    if (file.size() % k_txn_index_entry_size != 0) return std::nullopt;
    std::vector<aborted_txn> out;
    for (size_t at = 0; at < file.size(); at += k_txn_index_entry_size) {
        const uint8_t* p = file.data() + at;
        if (load_be<int16_t>(p) != k_txn_index_version) return std::nullopt;
        out.push_back(
            {load_be<int64_t>(p + 2), load_be<int64_t>(p + 10), load_be<int64_t>(p + 18), load_be<int64_t>(p + 26)});
    }
    return out;
}

log_result<std::optional<batch_location>> segment::find_batch(int64_t offset, uint64_t limit) const {
    auto hint = index_.lookup(offset);
    batch_reader r(*file_, hint.position, limit);
    for (;;) {
        auto b = r.next();
        if (!b) return failure{b.error()};
        if (!*b || (*b)->header.last_offset() >= offset) return *b;
    }
}

log_result<std::optional<timestamp_offset>> segment::find_by_timestamp(int64_t target, int64_t min_offset,
                                                                       const record_timestamp_reader& reader) const {
    uint64_t limit = size();
    int64_t from = std::max(times_.lookup(target), min_offset);
    batch_reader r(*file_, index_.lookup(from).position, limit);
    for (;;) {
        auto b = r.next();
        if (!b) return failure{b.error()};
        if (!*b) return std::optional<timestamp_offset>{};
        if ((*b)->header.last_offset() < min_offset || (*b)->header.max_timestamp < target) continue;
        auto found = first_record_at_or_after(*file_, **b, target, min_offset, reader);
        if (!found) return failure{found.error()};
        if (*found) return *found;
    }
}

log_result<std::optional<timestamp_offset>> segment::max_timestamp_record(const record_timestamp_reader& reader) const {
    auto max = times_.max();
    if (max.timestamp == k_no_timestamp) return std::optional<timestamp_offset>{};
    batch_reader r(*file_, index_.lookup(max.offset).position, size());
    for (;;) {
        auto b = r.next();
        if (!b) return failure{b.error()};
        if (!*b) return std::optional<timestamp_offset>{};
        if ((*b)->header.max_timestamp != max.timestamp) continue;
        auto found = offset_of_max_timestamp(*file_, **b, reader);
        if (!found) return failure{found.error()};
        return std::optional(*found);
    }
}

}  // namespace ketch::log
