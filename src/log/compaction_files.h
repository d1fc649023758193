// The files of log compaction in a partition directory, and the recovery of
// an interrupted swap. The protocol is written down in
// docs/design/compaction.md; in short (Kafka's .cleaned -> .swap -> replace):
//
//   <B>.log.cleaned        the cleaner writes the replacement of the segments
//                          [B, E) here, then fdatasyncs it
//   <B>-<E>.log.swap       renamed from .cleaned (one atomic rename): from now
//                          on the swap is decided; recovery completes it
//   <X>.log.deleted        an old segment of [B, E), renamed away (its index
//                          files are removed) before the swap takes its name
//   <B>.log                the swap file renamed into place; index files are
//                          written after (recovery rebuilds them if missing)
//   cleaner-checkpoint     the first dirty offset (Kafka's
//                          cleaner-offset-checkpoint, one per partition)
//
// E (exclusive) is in the swap file's name so that recovery knows which old
// segments the swap replaces even when the cleaned data ends well before E
// (or is empty).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/file_system.h"
#include "log/log_error.h"

namespace ketch::log {

inline constexpr std::string_view k_cleaned_suffix = ".log.cleaned";
inline constexpr std::string_view k_swap_suffix = ".log.swap";
inline constexpr std::string_view k_deleted_suffix = ".log.deleted";
inline constexpr std::string_view k_cleaner_checkpoint_file = "cleaner-checkpoint";

std::string cleaned_file_name(int64_t base);
std::string swap_file_name(int64_t base, int64_t end);
std::string deleted_file_name(int64_t base);

struct swap_range {
    int64_t base = 0;
    int64_t end = 0;  // exclusive
};
// The range of "<B>-<E>.log.swap"; nullopt for any other name.
std::optional<swap_range> parse_swap_file_name(std::string_view name);

struct compaction_recovery_report {
    int swaps_completed = 0;
    int files_removed = 0;  // .cleaned, .deleted and replaced segments' files
};

// Run by local_log::load before it lists the segments: removes .cleaned and
// .deleted files, and completes every .swap (removes the segments it replaces,
// then renames it to <B>.log). Idempotent: a crash inside it is recovered by
// running it again. `entries` is the directory's listing; the report says
// whether a file was removed or renamed (then the listing is stale).
log_result<compaction_recovery_report> recover_compaction_files(io::file_system& fs, const std::string& dir,
                                                                const std::vector<io::dir_entry>& entries);

// cleaner-checkpoint: "ketch-cleaner 1\nfirst_dirty_offset <decimal>\n".
// nullopt when missing or malformed (the cleaner then starts at the log start).
std::optional<int64_t> read_cleaner_checkpoint(io::file_system& fs, const std::string& dir);
log_status write_cleaner_checkpoint(io::file_system& fs, const std::string& dir, int64_t first_dirty_offset);

}  // namespace ketch::log
