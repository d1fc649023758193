#include "io/file_system.h"

namespace ketch::io {

io_status file::append(byte_view data) {
    auto sz = size();
    if (!sz) return failure{sz.error()};
    return pwrite(*sz, data);
}

io_status file::read_exact(uint64_t pos, std::span<uint8_t> out) const {
    auto n = pread(pos, out);
    if (!n) return failure{n.error()};
    if (*n != out.size()) return failure{io_error{io_errc::end_of_file, 0, path(), "pread"}};
    return ok_v;
}

std::string join_path(std::string_view dir, std::string_view name) {
    std::string p(dir);
    if (!p.empty() && p.back() != '/') p += '/';
    p += name;
    return p;
}

std::string parent_path(std::string_view path) {
    while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
    auto slash = path.rfind('/');
    if (slash == std::string_view::npos) return ".";
    if (slash == 0) return "/";
    return std::string(path.substr(0, slash));
}

io_result<bytes> read_file(file_system& fs, const std::string& path) {
    auto f = fs.open(path, open_mode::read_only);
    if (!f) return failure{f.error()};
    auto sz = (*f)->size();
    if (!sz) return failure{sz.error()};
    bytes b(*sz);
    auto st = (*f)->read_exact(0, b);
    if (!st) return failure{st.error()};
    return b;
}

io_status write_file_atomically(file_system& fs, const std::string& path, byte_view data) {
    std::string tmp = path + ".tmp";
    {
        auto f = fs.open(tmp, open_mode::truncate);
        if (!f) return failure{f.error()};
        if (auto st = (*f)->pwrite(0, data); !st) return st;
        if (auto st = (*f)->fdatasync(); !st) return st;
    }
    if (auto st = fs.rename(tmp, path); !st) return st;
    return fs.sync_dir(parent_path(path));
}

io_status remove_all(file_system& fs, const std::string& path) {
    auto ex = fs.exists(path);
    if (!ex) return failure{ex.error()};
    if (!*ex) return ok_v;
    auto entries = fs.list_dir(path);
    if (entries) {
        for (const auto& e : *entries) {
            auto child = join_path(path, e.name);
            auto st = e.is_dir ? remove_all(fs, child) : fs.remove(child);
            if (!st && st.error().kind != io_errc::not_found) return st;
        }
    }
    auto st = fs.remove(path);
    if (!st && st.error().kind != io_errc::not_found) return st;
    return ok_v;
}

}  // namespace ketch::io
