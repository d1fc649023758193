// What a segment's two indexes share (offset_index.h, time_index.h): the
// segment's base offset and the entries, in order, under a mutex held only
// for the duration of a push_back, a copy or a binary search (one writer, the
// segment's appender, and any number of readers).
//
// Where the entries live. The first entries may be in the index file, in
// whole blocks of k_index_stride: memory then keeps the first entry of each
// such block and a CRC-32C of its bytes, and holds the entries after them. A
// search finds its block among the kept entries and reads that block from the
// file with one pread (docs/design/log.md, "Many partitions"). A block that
// cannot be read, or whose CRC-32C is not the one memory kept for it, is not
// used: the kept entry before it is a coarser hint, still a correct one (an
// index only says where a scan may start).
//   - A closed segment (keep_on_disk, once its file is written): every entry
//     is in the file (the last block may be partial), memory keeps 1/64.
//   - The active segment: spill() writes whole blocks the flush journal has
//     recorded to the file as the segment grows (the file has no trailer until
//     the segment is closed and the file written whole; recovery after a crash
//     never reads it), so its memory too stays about 1/64 of the entries.
//   - Opened lazily (open_lazily, a clean start): only the file's count and
//     last entry are known; its entries are read, checked (the trailer's
//     CRC-32C as found at open, then `parse`) and kept as above by the first
//     search or copy that needs them, so a start reads no index file whole. A
//     file that fails that check leaves only the entries after it known (a
//     search below them starts at the segment's start: slower, still correct)
//     and nothing more is spilled; a damaged file (its trailer as at open) is
//     removed, so the next start rebuilds it from the segment (or the next
//     close writes it whole); another file under the name is left alone.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/crc32c.h"
#include "base/endian.h"
#include "log/index_file.h"
#include "log/log_format.h"

namespace ketch::log {

// Closed segments keep one entry in this many in memory (1/64 of the memory).
inline constexpr size_t k_index_stride = 64;

// Entry provides: static constexpr size_t size; static Entry decode(const uint8_t*);
// void encode(uint8_t*) const (the file's encoding of one entry).
template <class Entry>
class index_entries {
public:
    using entry = Entry;
    // A whole index file's image -> its entries; nullopt when malformed.
    using parse_fn = std::function<std::optional<std::vector<Entry>>(byte_view)>;

    explicit index_entries(int64_t base_offset) : base_(base_offset) {}

    int64_t base_offset() const { return base_; }
    size_t size() const {
        std::lock_guard lk(mu_);
        return on_file_locked() + tail_locked();
    }
    // Every entry (those in the file are read from it; if that fails, the kept
    // ones: fewer, still a valid sparse index).
    std::vector<Entry> entries() const {
        auto [all, whole] = read_entries();
        return std::move(all);
    }
    // Entries from the first-th on (the flush journal's delta); empty when
    // some of them are in the file and it cannot be read.
    std::vector<Entry> entries_from(size_t first) const {
        std::unique_lock lk(mu_);
        const size_t on_file = on_file_locked();
        if (first >= on_file) {
            const size_t at = kept_locked() + (first - on_file);
            if (at >= entries_.size()) return {};
            return {entries_.begin() + long(at), entries_.end()};
        }
        lk.unlock();
        auto [all, whole] = read_entries();
        if (!whole || first >= all.size()) return {};
        return {all.begin() + long(first), all.end()};
    }
    // Entries held in memory now: the kept ones and those not in the file.
    size_t resident() const {
        std::lock_guard lk(mu_);
        return entries_.size();
    }

    // The segment is closed and `path` holds exactly these entries, written
    // whole: memory keeps every k_index_stride-th, the last, and a CRC-32C of
    // each block. Nothing is appended after this.
    // Blocks already spilled are the same bytes at the same places in the
    // file written whole, so only the entries after them are added (no read).
    void keep_on_disk(std::shared_ptr<io::file_system> fs, std::string path) {
        std::lock_guard lk(mu_);
        if (closed_) return;
        closed_ = true;
        // A file opened lazily that could not be read (unread_, failed_): the
        // file was written from what was known (read_entries).
        if (unread_ || failed_) {
            entries_ = known_locked();
            disk_.reset();
            unread_.reset();
            failed_ = false;
        }
        move_to_file_locked(std::move(fs), std::move(path), on_file_locked() + tail_locked());
    }

    // The index is the written file `path` (a clean start): `count` entries,
    // the last `last`, the trailer's CRC-32C `crc`. Nothing more is read until
    // the entries are needed. `closed`: the segment is closed (no appends).
    void open_lazily(std::shared_ptr<io::file_system> fs, std::string path, size_t count, Entry last, uint32_t crc,
                     parse_fn parse, bool closed) {
        std::lock_guard lk(mu_);
        reset_locked({});
        closed_ = closed;
        if (count == 0) return;
        auto d = std::make_shared<on_disk>();
        d->blocks = {std::move(fs), std::move(path), count, Entry::size};
        d->last = last;
        disk_ = std::move(d);
        unread_ = unread_file{std::move(parse), crc};
    }
    // Opened lazily and not read yet.
    bool unread() const {
        std::lock_guard lk(mu_);
        return unread_.has_value();
    }

    // The active segment: writes the entries before `upto`, in whole blocks,
    // that are not in the file `path` yet, when there are at least `min_new`
    // of them; memory then keeps the first of each of those blocks. The file
    // gets the index file header (index_file.h) and entries at their places,
    // no trailer. False when the write failed (memory keeps the entries).
    bool spill(const std::shared_ptr<io::file_system>& fs, const std::string& path, size_t upto, size_t min_new) {
        std::unique_lock lk(mu_);
        load_locked(lk);
        if (closed_ || failed_) return true;
        if (unread_) return false;  // the file is not readable now: the next spill tries again
        const size_t done = on_file_locked();
        upto = std::min(upto, done + tail_locked()) / k_index_stride * k_index_stride;
        if (upto <= done || upto - done < min_new) return true;
        const size_t first = kept_locked();
        bytes raw((done == 0 ? k_index_header_size : 0) + (upto - done) * Entry::size);
        uint8_t* at = raw.data();
        if (done == 0) at = put_index_file_header(at, Entry::magic, Entry::size, base_);
        for (size_t i = 0; i < upto - done; ++i, at += Entry::size) entries_[first + i].encode(at);
        const uint64_t generation = generation_;
        lk.unlock();

        {
            auto f = fs->open(path, done == 0 ? io::open_mode::truncate : io::open_mode::create);
            if (!f || !(*f)->pwrite(done == 0 ? 0 : k_index_header_size + done * Entry::size, raw)) return false;
        }

        lk.lock();
        // Reset meanwhile (recovery), closed, or spilled by another: not ours to change.
        if (generation != generation_ || closed_ || on_file_locked() != done) return true;
        move_to_file_locked(fs, path, upto);
        return true;
    }

protected:
    // Where a search stops: `pred` holds for a prefix of the entries; the last
    // entry it holds for and the first it does not.
    struct split_point {
        std::optional<Entry> last_true, first_false;
    };

    // With mu_ held by the caller through `lk`, which this releases when it reads the file.
    template <class Pred>
    split_point split(std::unique_lock<std::mutex>& lk, Pred pred) const {
        load_locked(lk);
        auto sp = size_t(std::partition_point(entries_.begin(), entries_.end(), pred) - entries_.begin());
        std::optional<Entry> next;
        if (sp < entries_.size()) next = entries_[sp];
        if (sp == 0) return {std::nullopt, next};
        Entry first = entries_[sp - 1];
        if (sp - 1 >= kept_locked()) return {first, next};  // held in memory
        // The block from the kept entry `first` to the next kept one.
        auto disk = disk_;
        lk.unlock();
        auto block = disk->read_block(sp - 1);
        if (block.empty()) return {first, next};
        auto q = size_t(std::partition_point(block.begin(), block.end(), pred) - block.begin());
        if (q == 0) return {first, next};  // block[0] is `first`, for which pred holds
        return {block[q - 1], q < block.size() ? std::optional<Entry>(block[q]) : next};
    }
    // The last entry, wherever it is.
    std::optional<Entry> last_locked() const {
        if (tail_locked() > 0) return entries_.back();
        if (disk_) return disk_->last;
        return std::nullopt;
    }
    // Closed: the entries are final (nothing is appended).
    bool closed_locked() const { return closed_; }
    // Back to every entry in memory (recovery, loading).
    void reset_locked(std::vector<Entry> entries) {
        entries_ = std::move(entries);
        disk_.reset();
        unread_.reset();
        failed_ = false;
        closed_ = false;
        ++generation_;
    }

    const int64_t base_;
    mutable std::mutex mu_;
    // The kept entry of each block in the file (kept_locked() of them), then
    // every entry after the file's (tail_locked() of them). Mutable, as the
    // members below: a file opened lazily is read by the first search.
    mutable std::vector<Entry> entries_;

private:
    struct on_disk {
        index_file_blocks blocks;    // entries [0, blocks.count) are in the file
        Entry last{};                // entry blocks.count - 1
        std::vector<uint32_t> crcs;  // of each block's bytes, as they were written

        // Block b's entries; empty when they cannot be read or are not what
        // they were (a file replaced since, by compaction under the same name).
        std::vector<Entry> read_block(size_t b) const {
            size_t from = b * k_index_stride;
            return decode(blocks.read(from, std::min(k_index_stride, blocks.count - from)), b);
        }
        std::optional<std::vector<Entry>> read_all() const {
            if (crcs.size() * k_index_stride < blocks.count) return std::nullopt;  // not read yet, or failed
            auto raw = blocks.read(0, blocks.count);
            if (raw.size() != blocks.count * Entry::size) return std::nullopt;
            std::vector<Entry> out;
            out.reserve(blocks.count);
            const size_t block_bytes = k_index_stride * Entry::size;
            for (size_t b = 0; b < crcs.size(); ++b) {
                auto part =
                    byte_view(raw).subspan(b * block_bytes, std::min(block_bytes, raw.size() - b * block_bytes));
                auto entries = decode(part, b);
                if (entries.empty()) return std::nullopt;
                out.insert(out.end(), entries.begin(), entries.end());
            }
            return out;
        }
        std::vector<Entry> decode(byte_view raw, size_t b) const {
            if (raw.empty() || raw.size() % Entry::size != 0 || crc32c(raw) != crcs[b]) return {};
            std::vector<Entry> out(raw.size() / Entry::size);
            for (size_t i = 0; i < out.size(); ++i) out[i] = Entry::decode(raw.data() + i * Entry::size);
            return out;
        }
    };

    size_t on_file_locked() const { return disk_ ? disk_->blocks.count : 0; }
    size_t kept_locked() const { return disk_ ? disk_->crcs.size() : 0; }
    size_t tail_locked() const { return entries_.size() - kept_locked(); }

    // What is known of the entries without the file's: its last entry, then
    // the tail (a valid sparse index). With disk_ set.
    std::vector<Entry> known_locked() const {
        std::vector<Entry> out(entries_.begin(), entries_.begin() + long(kept_locked()));
        if (out.empty() || !(out.back() == disk_->last)) out.push_back(disk_->last);
        out.insert(out.end(), entries_.begin() + long(kept_locked()), entries_.end());
        return out;
    }

    // A file opened lazily: its entries are read and checked now (mu_ is
    // released for the read) and kept as keep_on_disk keeps them; when they
    // are not what open_lazily found, only the tail is known (failed_). With
    // `every`, a caller that wants every entry gets them from this read (true:
    // *every holds the file's entries and the tail) rather than reading again.
    bool load_locked(std::unique_lock<std::mutex>& lk, std::vector<Entry>* every = nullptr) const {
        if (!unread_) return false;
        auto disk = disk_;
        auto check = *unread_;
        const uint64_t generation = generation_;
        lk.unlock();
        std::optional<std::vector<Entry>> all;
        auto image = io::read_file(*disk->blocks.fs, disk->blocks.path);
        // Another trailer CRC: another file under the name (compaction replaced
        // the segment since); the same one: this file, which must now parse.
        const bool same_file = image && image->size() >= k_index_trailer_size &&
                               load_be<uint32_t>(image->data() + image->size() - 4) == check.crc;
        if (same_file) all = check.parse(*image);
        if (all && (all->size() != disk->blocks.count || !(all->back() == disk->last))) all.reset();
        lk.lock();
        if (generation != generation_ || !unread_) return false;  // read by another, or reset meanwhile
        if (!image) return false;  // not readable now: this search is coarser, the next one reads again
        unread_.reset();
        if (!all) {
            failed_ = true;
            if (same_file) drop_bad_index_file(*disk->blocks.fs, disk->blocks.path);
            return false;
        }
        all->insert(all->end(), entries_.begin(), entries_.end());
        if (every) *every = *all;
        entries_ = std::move(*all);
        disk_.reset();
        const size_t count = disk->blocks.count;
        move_to_file_locked(disk->blocks.fs, disk->blocks.path,
                            closed_ ? count : count / k_index_stride * k_index_stride);
        return every != nullptr;
    }

    // Every entry, and whether the file's were all read (else the kept ones
    // stand for them).
    std::pair<std::vector<Entry>, bool> read_entries() const {
        std::unique_lock lk(mu_);
        std::vector<Entry> every;
        if (load_locked(lk, &every)) return {std::move(every), true};  // just read: not read again
        if (!disk_) return {entries_, true};
        auto disk = disk_;
        std::vector<Entry> tail(entries_.begin() + long(kept_locked()), entries_.end());
        std::vector<Entry> known = known_locked();
        lk.unlock();
        auto all = disk->read_all();
        if (!all) return {std::move(known), false};
        all->insert(all->end(), tail.begin(), tail.end());
        return {std::move(*all), true};
    }

    // The file `path` holds entries [0, upto) (upto >= on_file_locked(); a
    // multiple of k_index_stride unless the segment is closed): memory keeps
    // the first of each block before upto and every entry after it.
    void move_to_file_locked(std::shared_ptr<io::file_system> fs, std::string path, size_t upto) const {
        const size_t done = on_file_locked();
        const size_t first = kept_locked();  // where entry `done` is in entries_
        if (upto <= done) return;
        auto d = std::make_shared<on_disk>();
        d->blocks = {std::move(fs), std::move(path), upto, Entry::size};
        d->last = entries_[first + (upto - done) - 1];
        d->crcs = disk_ ? disk_->crcs : std::vector<uint32_t>{};
        std::vector<Entry> kept(entries_.begin(), entries_.begin() + long(first));
        bytes raw;
        for (size_t i = done; i < upto; i += k_index_stride) {
            const size_t n = std::min(k_index_stride, upto - i);
            kept.push_back(entries_[first + (i - done)]);
            raw.resize(n * Entry::size);
            for (size_t j = 0; j < n; ++j) entries_[first + (i - done) + j].encode(raw.data() + j * Entry::size);
            d->crcs.push_back(crc32c(raw));
        }
        kept.insert(kept.end(), entries_.begin() + long(first + (upto - done)), entries_.end());
        entries_ = std::move(kept);
        disk_ = std::move(d);
    }

    // Opened lazily: how the file's entries are checked when first read.
    struct unread_file {
        parse_fn parse;
        uint32_t crc = 0;  // the trailer's, as open_lazily found it
    };

    mutable std::shared_ptr<const on_disk> disk_;
    mutable std::optional<unread_file> unread_;
    mutable bool failed_ = false;  // the file's entries were not what open_lazily found
    bool closed_ = false;
    uint64_t generation_ = 0;  // moved on by every reset
};

}  // namespace ketch::log
