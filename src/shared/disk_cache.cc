#include "shared/disk_cache.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <vector>

#include <spdlog/spdlog.h>

#include "base/crc32c.h"
#include "objstore/sigv4.h"

namespace ketch::shared {

namespace fs = std::filesystem;

namespace {

constexpr char k_magic[4] = {'K', 'C', 'P', '1'};

uint32_t crc_of(const std::string& s) {
    return crc32c(byte_view(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
}

void put_le(char* out, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out[i] = char((v >> (8 * i)) & 0xff);
}

uint64_t get_le(const char* in, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t(uint8_t(in[i])) << (8 * i);
    return v;
}

bool parse_u64(std::string_view s, uint64_t& v) {
    auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    return !s.empty() && r.ec == std::errc{} && r.ptr == s.data() + s.size();
}

// "HASH-OFFSET-LENGTH": the piece, or false for any other name.
bool parse_name(const std::string& name, std::string& hash, uint64_t& offset, uint64_t& length) {
    auto a = name.find('-'), b = name.rfind('-');
    if (a == std::string::npos || a == b) return false;
    hash = name.substr(0, a);
    return hash.size() == 32 && parse_u64(std::string_view(name).substr(a + 1, b - a - 1), offset) &&
           parse_u64(std::string_view(name).substr(b + 1), length);
}

// The file's bytes when its header's length and CRC match, else nullopt.
std::optional<std::string> read_checked(const fs::path& p, uint64_t length) {
    std::ifstream in(p, std::ios::binary);
    char h[disk_cache::k_header];
    if (!in.read(h, sizeof h) || std::memcmp(h, k_magic, 4) != 0 || get_le(h + 8, 8) != length) return std::nullopt;
    std::string body(length, '\0');
    if (!in.read(body.data(), std::streamsize(length)) || in.peek() != std::char_traits<char>::eof())
        return std::nullopt;
    if (crc_of(body) != uint32_t(get_le(h + 4, 4))) return std::nullopt;
    return body;
}

}  // namespace

result<std::unique_ptr<disk_cache>, std::string> disk_cache::open(fs::path dir, uint64_t max_bytes, std::string space) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return failure{"cannot create " + dir.string() + ": " + ec.message()};
    std::unique_ptr<disk_cache> c(new disk_cache(dir, max_bytes, std::move(space)));
    struct found {
        fs::file_time_type used;
        piece_id id;
        uint64_t length;
    };
    std::vector<found> files;
    for (auto& e : fs::directory_iterator(dir, ec)) {
        std::string name = e.path().filename().string(), hash;
        uint64_t offset = 0, length = 0;
        if (name.ends_with(".tmp")) {
            fs::remove(e.path(), ec);  // a write the process did not finish
        } else if (e.is_regular_file() && parse_name(name, hash, offset, length)) {
            files.push_back({e.last_write_time(ec), {hash, offset}, length});
        }
    }
    if (ec) return failure{"cannot read " + dir.string() + ": " + ec.message()};
    std::sort(files.begin(), files.end(), [](const found& a, const found& b) { return a.used < b.used; });
    std::lock_guard l(c->mu_);
    for (auto& f : files) c->add(f.id, f.length);  // oldest first: the newest ends at the front
    return c;
}

std::string disk_cache::hash(const std::string& key) const {
    return objstore::sha256_hex(space_ + '\n' + key).substr(0, 32);
}

fs::path disk_cache::file_of(const piece_id& id, uint64_t length) const {
    return dir_ / (id.first + "-" + std::to_string(id.second) + "-" + std::to_string(length));
}

void disk_cache::add(piece_id id, uint64_t length) {
    lru_.push_front(id);
    bytes_ += k_header + length;
    items_[std::move(id)] = entry{length, lru_.begin()};
    while (bytes_ > max_bytes_ && !lru_.empty()) drop(lru_.back());
}

void disk_cache::drop(const piece_id& id) {
    auto it = items_.find(id);
    if (it == items_.end()) return;
    std::error_code ec;
    fs::remove(file_of(id, it->second.length), ec);
    bytes_ -= k_header + it->second.length;
    lru_.erase(it->second.lru);
    items_.erase(it);
}

std::optional<object_cache::slice> disk_cache::get(const std::string& key, uint64_t offset, uint64_t length,
                                                   uint64_t* piece_offset) {
    const std::string h = hash(key);
    piece_id id;
    uint64_t piece_length = 0;
    {
        std::lock_guard l(mu_);
        auto it = items_.upper_bound(piece_id{h, offset});
        bool hit = false;
        while (!hit && it != items_.begin()) {
            --it;
            if (it->first.first != h) break;
            hit = it->first.second + it->second.length >= offset + length;
        }
        if (!hit) return std::nullopt;
        id = it->first;
        piece_length = it->second.length;
        lru_.splice(lru_.begin(), lru_, it->second.lru);
    }
    const fs::path p = file_of(id, piece_length);
    auto body = read_checked(p, piece_length);
    if (!body) {
        spdlog::warn("cluster: cache file {} is corrupt or truncated: removed, read again", p.string());
        std::lock_guard l(mu_);
        drop(id);
        return std::nullopt;
    }
    std::error_code ec;
    fs::last_write_time(p, fs::file_time_type::clock::now(), ec);  // the LRU order, across restarts
    if (piece_offset) *piece_offset = id.second;
    return object_cache::slice{std::make_shared<const std::string>(std::move(*body)), size_t(offset - id.second)};
}

void disk_cache::put(const std::string& key, uint64_t offset, const std::string& bytes) {
    if (bytes.empty() || k_header + bytes.size() > max_bytes_) return;
    piece_id id{hash(key), offset};
    fs::path tmp;
    {
        std::lock_guard l(mu_);
        if (items_.contains(id) && items_[id].length >= bytes.size()) return;
        tmp = dir_ / (std::to_string(next_tmp_++) + ".tmp");
    }
    char h[k_header];
    std::memcpy(h, k_magic, 4);
    put_le(h + 4, crc_of(bytes), 4);
    put_le(h + 8, bytes.size(), 8);
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out.write(h, sizeof h).write(bytes.data(), std::streamsize(bytes.size()));
        if (!out.flush()) {
            std::error_code ec;
            fs::remove(tmp, ec);
            return spdlog::warn("cluster: cannot write cache file {}", tmp.string());
        }
    }
    std::lock_guard l(mu_);
    drop(id);  // a shorter piece at the same offset
    std::error_code ec;
    fs::rename(tmp, file_of(id, bytes.size()), ec);
    if (ec) return;
    add(std::move(id), bytes.size());
}

uint64_t disk_cache::bytes() const {
    std::lock_guard l(mu_);
    return bytes_;
}

}  // namespace ketch::shared
