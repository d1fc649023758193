// A libFuzzer-free driver for the fuzz targets, built with the normal compiler
// so that `make test` exercises them on every run (scripts/fuzz.sh does the
// real, coverage-guided fuzzing with clang):
//
//   <target>_replay [--mutations N] [--seed S] PATH...
//
// Every file under each PATH (a file or a directory, recursively) is fed to
// LLVMFuzzerTestOneInput as is, then N times mutated by a deterministic
// pseudo-random generator (byte flips, truncation, insertion, duplication of
// a slice, overwrite with boundary values). The target aborts on a broken
// contract, so a finding fails the test; a signal handler writes the input
// that caused it to ./replay-finding (reproduce: <target>_replay replay-finding).
#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

namespace fs = std::filesystem;
using input = std::vector<uint8_t>;

struct rng {
    uint64_t s;
    uint64_t next() {  // xorshift64*
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        return s * 0x2545F4914F6CDD1DULL;
    }
    size_t below(size_t n) { return n == 0 ? 0 : size_t(next() % n); }
};

// The input being run, for the crash handler.
const uint8_t* g_current = nullptr;
size_t g_current_size = 0;

extern "C" void on_crash(int sig) {
    int fd = ::open("replay-finding", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        size_t off = 0;
        while (off < g_current_size) {
            ssize_t n = ::write(fd, g_current + off, g_current_size - off);
            if (n <= 0) break;
            off += size_t(n);
        }
        ::close(fd);
    }
    static const char msg[] = "replay: finding written to ./replay-finding\n";
    (void)!::write(2, msg, sizeof msg - 1);
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

void run(const input& b) {
    g_current = b.data();
    g_current_size = b.size();
    LLVMFuzzerTestOneInput(b.data(), b.size());
}

input read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return input(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void mutate(input& b, rng& r) {
    static constexpr uint8_t boundary[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0xfe};
    const int steps = 1 + int(r.below(4));
    for (int i = 0; i < steps; ++i) {
        switch (r.below(6)) {
            case 0:  // flip a bit
                if (!b.empty()) b[r.below(b.size())] ^= uint8_t(1u << r.below(8));
                break;
            case 1:  // truncate
                b.resize(r.below(b.size() + 1));
                break;
            case 2: {  // insert random bytes
                size_t at = r.below(b.size() + 1), n = 1 + r.below(8);
                input extra(n);
                for (auto& c : extra) c = uint8_t(r.next());
                b.insert(b.begin() + std::ptrdiff_t(at), extra.begin(), extra.end());
                break;
            }
            case 3: {  // duplicate a slice
                if (b.empty()) break;
                size_t from = r.below(b.size()), n = 1 + r.below(std::min<size_t>(64, b.size() - from));
                input slice(b.begin() + std::ptrdiff_t(from), b.begin() + std::ptrdiff_t(from + n));
                b.insert(b.begin() + std::ptrdiff_t(r.below(b.size() + 1)), slice.begin(), slice.end());
                break;
            }
            case 4:  // a boundary value (lengths, varints, counts)
                if (!b.empty()) b[r.below(b.size())] = boundary[r.below(sizeof boundary)];
                break;
            default:  // a 4-byte big-endian length-like value
                if (b.size() >= 4) {
                    size_t at = r.below(b.size() - 3);
                    uint32_t v = r.below(2) ? uint32_t(r.next()) : uint32_t(r.below(1024));
                    for (int k = 0; k < 4; ++k) b[at + size_t(k)] = uint8_t(v >> (24 - 8 * k));
                }
                break;
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    long mutations = 0;
    uint64_t seed = 1;
    std::vector<fs::path> files;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--mutations" && i + 1 < argc) {
            mutations = std::strtol(argv[++i], nullptr, 10);
        } else if (a == "--seed" && i + 1 < argc) {
            seed = std::strtoull(argv[++i], nullptr, 10);
        } else if (fs::is_directory(a)) {
            for (auto& e : fs::recursive_directory_iterator(a))
                if (e.is_regular_file()) files.push_back(e.path());
        } else if (fs::is_regular_file(a)) {
            files.push_back(a);
        } else {
            std::fprintf(stderr, "replay: no such input: %s\n", a.c_str());
            return 2;
        }
    }
    if (files.empty()) {
        std::fprintf(stderr, "replay: no inputs\n");
        return 2;
    }
    std::sort(files.begin(), files.end());  // deterministic order
    for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, on_crash);
    long runs = 0;
    for (const auto& f : files) {
        const input original = read_file(f);
        run(original);
        ++runs;
        rng r{seed ^ (std::hash<std::string>{}(f.filename().string()) | 1)};
        for (long m = 0; m < mutations; ++m) {
            input b = original;
            mutate(b, r);
            run(b);
            ++runs;
        }
    }
    std::printf("replay: %zu inputs, %ld runs, no finding\n", files.size(), runs);
    return 0;
}
