// A read-only io::file over bytes in memory: what the shared engine's reads
// answer (log::file_slice over it; Fetch copies what is not an OS file).
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "base/bytes.h"
#include "io/file.h"

namespace ketch::shared {

class memory_file final : public io::file {
public:
    memory_file(std::string name, bytes data) : io::file(std::move(name)), data_(std::move(data)) {}
    io::io_result<size_t> pread(uint64_t pos, std::span<uint8_t> out) const override {
        if (pos >= data_.size()) return size_t(0);
        size_t n = std::min<size_t>(out.size(), data_.size() - pos);
        std::memcpy(out.data(), data_.data() + pos, n);
        return n;
    }
    io::io_status pwritev(uint64_t, std::span<const byte_view>) override { return refused(); }
    io::io_status fdatasync() override { return ok_v; }
    io::io_status truncate(uint64_t) override { return refused(); }
    io::io_result<uint64_t> size() const override { return uint64_t(data_.size()); }

private:
    io::io_status refused() const { return failure{io::io_error{io::io_errc::io, EROFS, path(), "write"}}; }
    bytes data_;
};

}  // namespace ketch::shared
