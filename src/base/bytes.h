// Byte buffers shared by every layer.
//
// `bytes` owns; `byte_view` borrows; `shared_bytes` is an immutable slice that
// keeps its storage alive (a request frame, a segment read) so that decoded
// records can point into the frame without copying.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace ketch {

using bytes = std::vector<uint8_t>;
using byte_view = std::span<const uint8_t>;

class shared_bytes {
public:
    shared_bytes() = default;
    explicit shared_bytes(bytes b) {
        auto owner = std::make_shared<const bytes>(std::move(b));
        data_ = owner->data();
        size_ = owner->size();
        owner_ = std::move(owner);
    }
    // `owner` is whatever keeps [data, data + size) alive (a bytes, an array, ...).
    shared_bytes(std::shared_ptr<const void> owner, const uint8_t* data, size_t size)
        : owner_(std::move(owner)), data_(data), size_(size) {}

    const uint8_t* data() const { return data_; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    byte_view view() const { return {data_, size_}; }
    const std::shared_ptr<const void>& owner() const { return owner_; }

    // A sub-slice sharing the same storage. Caller keeps off + n <= size().
    shared_bytes slice(size_t off, size_t n) const { return {owner_, data_ + off, n}; }

    friend bool operator==(const shared_bytes& a, const shared_bytes& b) {
        return a.size_ == b.size_ && (a.size_ == 0 || std::memcmp(a.data_, b.data_, a.size_) == 0);
    }

private:
    std::shared_ptr<const void> owner_;
    const uint8_t* data_ = nullptr;
    size_t size_ = 0;
};

inline byte_view as_bytes(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

}  // namespace ketch
