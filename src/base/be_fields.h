// Big-endian fixed-width fields appended to and read from byte strings: the
// grammar of ketch's own files (segment journals, producer snapshots).
// Reads are bounds-checked: past the end, a read yields T{} and clears `ok`.
#pragma once

#include <cstddef>

#include "base/bytes.h"
#include "base/endian.h"

namespace ketch {

struct be_writer {
    bytes& out;
    template <class T>
    void put(T v) {
        size_t at = out.size();
        out.resize(at + sizeof(T));
        store_be<T>(out.data() + at, v);
    }
};

struct be_reader {
    byte_view in;
    bool ok = true;
    template <class T>
    T get() {
        if (in.size() < sizeof(T)) {
            ok = false;
            in = {};
            return T{};
        }
        T v = load_be<T>(in.data());
        in = in.subspan(sizeof(T));
        return v;
    }
    // The next `n` bytes (empty and !ok when fewer are left).
    byte_view take(size_t n) {
        if (in.size() < n) {
            ok = false;
            in = {};
            return {};
        }
        byte_view v = in.first(n);
        in = in.subspan(n);
        return v;
    }
};

}  // namespace ketch
