// The partition checkpoint file, <dir>/checkpoint (text, replaced atomically):
//
//   ketch-checkpoint 1\n
//   log_start_offset <decimal>\n
//   recovery_point <decimal>\n
//
// log_start_offset: records below it are deleted (DeleteRecords, retention).
// recovery_point: every segment whose base offset is below it is closed, its
// data and index files durable; recovery after a crash starts at it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "io/file_system.h"
#include "log/log_error.h"

namespace ketch::log {

struct checkpoint {
    int64_t log_start_offset = 0;
    int64_t recovery_point = 0;
    friend bool operator==(const checkpoint&, const checkpoint&) = default;
};

std::string format_checkpoint(const checkpoint& c);
std::optional<checkpoint> parse_checkpoint(std::string_view text);

// nullopt when the file is missing or malformed (the caller falls back to
// full recovery); an error only when it cannot be read.
log_result<std::optional<checkpoint>> read_checkpoint(io::file_system& fs, const std::string& dir);
log_status write_checkpoint(io::file_system& fs, const std::string& dir, const checkpoint& c);

}  // namespace ketch::log
