#include "log/compaction_files.h"

#include <spdlog/spdlog.h>

#include <charconv>
#include <map>
#include <vector>

#include "log/log_format.h"

namespace ketch::log {
namespace {

std::optional<int64_t> parse_digits(std::string_view s) {
    if (s.size() != k_segment_name_digits) return std::nullopt;
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || v < 0) return std::nullopt;
    return v;
}

std::string digits(int64_t v) {
    auto name = segment_file_name(v, "");
    return name;
}

constexpr std::string_view k_checkpoint_header = "ketch-cleaner 1\nfirst_dirty_offset ";

log_status remove_if_present(io::file_system& fs, const std::string& path) {
    auto st = fs.remove(path);
    if (!st && st.error().kind != io::io_errc::not_found) return failure{from_io(st.error())};
    return ok_v;
}

}  // namespace

std::string cleaned_file_name(int64_t base) { return digits(base) + std::string(k_cleaned_suffix); }
std::string swap_file_name(int64_t base, int64_t end) {
    return digits(base) + "-" + digits(end) + std::string(k_swap_suffix);
}
std::string deleted_file_name(int64_t base) { return digits(base) + std::string(k_deleted_suffix); }

std::optional<swap_range> parse_swap_file_name(std::string_view name) {
    constexpr size_t n = k_segment_name_digits;
    if (name.size() != 2 * n + 1 + k_swap_suffix.size() || !name.ends_with(k_swap_suffix) || name[n] != '-')
        return std::nullopt;
    auto b = parse_digits(name.substr(0, n));
    auto e = parse_digits(name.substr(n + 1, n));
    if (!b || !e || *e <= *b) return std::nullopt;
    return swap_range{*b, *e};
}

log_result<compaction_recovery_report> recover_compaction_files(io::file_system& fs, const std::string& dir,
                                                                const std::vector<io::dir_entry>& entries) {
    compaction_recovery_report out;
    std::vector<int64_t> logs;
    std::vector<std::pair<swap_range, std::string>> swaps;
    bool changed = false;
    for (const auto& e : entries) {
        if (e.is_dir) continue;
        if (e.name.ends_with(k_cleaned_suffix) || e.name.ends_with(k_deleted_suffix)) {
            if (auto st = remove_if_present(fs, io::join_path(dir, e.name)); !st) return failure{st.error()};
            ++out.files_removed;
            changed = true;
        } else if (auto r = parse_swap_file_name(e.name)) {
            swaps.emplace_back(*r, e.name);
        } else if (auto b = parse_segment_file_name(e.name, k_log_suffix)) {
            logs.push_back(*b);
        }
    }
    for (const auto& [range, name] : swaps) {
        // The swap replaces every segment whose base offset lies in [B, E).
        for (int64_t b : logs) {
            if (b < range.base || b >= range.end) continue;
            for (auto suffix :
                 {k_index_suffix, k_time_index_suffix, k_txn_index_suffix, k_flushed_suffix, k_log_suffix}) {
                if (auto st = remove_if_present(fs, io::join_path(dir, segment_file_name(b, suffix))); !st)
                    return failure{st.error()};
            }
            ++out.files_removed;
        }
        if (auto st = fs.sync_dir(dir); !st) return failure{from_io(st.error())};
        if (auto st =
                fs.rename(io::join_path(dir, name), io::join_path(dir, segment_file_name(range.base, k_log_suffix)));
            !st)
            return failure{from_io(st.error())};
        ++out.swaps_completed;
        changed = true;
        spdlog::info("log {}: completed an interrupted compaction swap of [{}, {})", dir, range.base, range.end);
    }
    if (changed) {
        if (auto st = fs.sync_dir(dir); !st) return failure{from_io(st.error())};
    }
    return out;
}

std::optional<int64_t> read_cleaner_checkpoint(io::file_system& fs, const std::string& dir) {
    auto data = io::read_file(fs, io::join_path(dir, k_cleaner_checkpoint_file));
    if (!data) return std::nullopt;
    std::string_view s(reinterpret_cast<const char*>(data->data()), data->size());
    if (!s.starts_with(k_checkpoint_header) || !s.ends_with("\n")) return std::nullopt;
    s.remove_prefix(k_checkpoint_header.size());
    s.remove_suffix(1);
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || v < 0) return std::nullopt;
    return v;
}

log_status write_cleaner_checkpoint(io::file_system& fs, const std::string& dir, int64_t first_dirty_offset) {
    std::string text = std::string(k_checkpoint_header) + std::to_string(first_dirty_offset) + "\n";
    if (auto st = io::write_file_atomically(fs, io::join_path(dir, k_cleaner_checkpoint_file), as_bytes(text)); !st)
        return failure{from_io(st.error())};
    return ok_v;
}

}  // namespace ketch::log
