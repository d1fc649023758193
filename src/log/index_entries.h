// What a segment's two indexes share (offset_index.h, time_index.h): the
// segment's base offset and the entries, in order, under a mutex held only
// for the duration of a push_back, a copy or a binary search (one writer, the
// segment's appender, and any number of readers).
//
// Where the entries live. While the segment is written, all of them are in
// memory. Once it is closed and its index file holds them (keep_on_disk),
// memory keeps only every k_index_stride-th entry and the last: a search
// finds its block of at most k_index_stride entries among those and reads
// that block from the file with one pread (docs/design/log.md, "Many
// partitions"). A block that cannot be read, or whose CRC-32C is not the one
// memory kept for it, is not used: the kept entry before it is a coarser hint,
// still a correct one (an index only says where a scan may start).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/crc32c.h"
#include "log/index_file.h"

namespace ketch::log {

// Closed segments keep one entry in this many in memory (1/64 of the memory).
inline constexpr size_t k_index_stride = 64;

// Entry provides: static constexpr size_t size; static Entry decode(const uint8_t*);
// void encode(uint8_t*) const (the file's encoding of one entry).
template <class Entry>
class index_entries {
public:
    using entry = Entry;

    explicit index_entries(int64_t base_offset) : base_(base_offset) {}

    int64_t base_offset() const { return base_; }
    size_t size() const {
        std::lock_guard lk(mu_);
        return disk_ ? disk_->blocks.count : entries_.size();
    }
    // Every entry (a closed segment's are read from its file; if that fails,
    // the kept ones and the last: fewer, still a valid sparse index).
    std::vector<Entry> entries() const {
        std::unique_lock lk(mu_);
        if (!disk_) return entries_;
        auto disk = disk_;
        auto kept = entries_;
        lk.unlock();
        if (auto all = disk->read_all()) return std::move(*all);
        if (!(kept.back() == disk->last)) kept.push_back(disk->last);
        return kept;
    }
    // Entries from the first-th on (the flush journal's delta).
    std::vector<Entry> entries_from(size_t first) const {
        std::unique_lock lk(mu_);
        if (!disk_) {
            if (first >= entries_.size()) return {};
            return {entries_.begin() + long(first), entries_.end()};
        }
        lk.unlock();
        auto all = entries();
        if (first >= all.size()) return {};
        return {all.begin() + long(first), all.end()};
    }
    // Entries held in memory now: all of them, or a closed segment's kept ones.
    size_t resident() const {
        std::lock_guard lk(mu_);
        return entries_.size();
    }

    // The segment is closed and `path` holds exactly these entries: memory
    // keeps every k_index_stride-th, the last, and a CRC-32C of each block.
    void keep_on_disk(std::shared_ptr<io::file_system> fs, std::string path) {
        std::lock_guard lk(mu_);
        if (disk_ || entries_.empty()) return;
        auto d = std::make_shared<on_disk>();
        d->blocks = {std::move(fs), std::move(path), entries_.size(), Entry::size};
        d->last = entries_.back();
        std::vector<Entry> kept;
        kept.reserve((entries_.size() + k_index_stride - 1) / k_index_stride);
        d->crcs.reserve(kept.capacity());
        bytes raw;
        for (size_t i = 0; i < entries_.size(); i += k_index_stride) {
            kept.push_back(entries_[i]);
            size_t n = std::min(k_index_stride, entries_.size() - i);
            raw.resize(n * Entry::size);
            for (size_t j = 0; j < n; ++j) entries_[i + j].encode(raw.data() + j * Entry::size);
            d->crcs.push_back(crc32c(raw));
        }
        entries_ = std::move(kept);
        disk_ = std::move(d);
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
        auto sp = size_t(std::partition_point(entries_.begin(), entries_.end(), pred) - entries_.begin());
        std::optional<Entry> next;
        if (sp < entries_.size()) next = entries_[sp];
        if (sp == 0) return {std::nullopt, next};
        Entry first = entries_[sp - 1];
        if (!disk_) return {first, next};
        // The block from the kept entry `first` to the next kept one.
        auto disk = disk_;
        lk.unlock();
        auto block = disk->read_block(sp - 1);
        if (block.empty()) return {first, next};
        auto q = size_t(std::partition_point(block.begin(), block.end(), pred) - block.begin());
        if (q == 0) return {first, next};  // block[0] is `first`, for which pred holds
        return {block[q - 1], q < block.size() ? std::optional<Entry>(block[q]) : next};
    }
    // The last entry, wherever the others are.
    std::optional<Entry> last_locked() const {
        if (disk_) return disk_->last;
        if (entries_.empty()) return std::nullopt;
        return entries_.back();
    }
    bool on_disk_locked() const { return disk_ != nullptr; }
    // Back to every entry in memory (recovery, loading).
    void reset_locked(std::vector<Entry> entries) {
        entries_ = std::move(entries);
        disk_.reset();
    }

    const int64_t base_;
    mutable std::mutex mu_;
    std::vector<Entry> entries_;  // all, or every k_index_stride-th when disk_ is set

private:
    struct on_disk {
        index_file_blocks blocks;
        Entry last{};
        std::vector<uint32_t> crcs;  // of each block's bytes, as they were when the segment closed

        // Block b's entries; empty when they cannot be read or are not what
        // they were (a file replaced since, by compaction under the same name).
        std::vector<Entry> read_block(size_t b) const {
            size_t from = b * k_index_stride;
            return decode(blocks.read(from, std::min(k_index_stride, blocks.count - from)), b);
        }
        std::optional<std::vector<Entry>> read_all() const {
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
    std::shared_ptr<const on_disk> disk_;
};

}  // namespace ketch::log
