#include "protocol/records.h"

#include <unistd.h>

#include <stdexcept>

namespace ketch::kafka {

bytes records::flatten() const {
    bytes out(data.view().begin(), data.view().end());
    for (auto& c : chunks) {
        size_t at = out.size();
        out.resize(at + c.length);
        size_t done = 0;
        while (done < c.length) {
            ssize_t n = ::pread(c.fd, out.data() + at + done, c.length - done, c.position + int64_t(done));
            if (n <= 0) throw std::runtime_error("records: short read from log file");
            done += size_t(n);
        }
    }
    return out;
}

}  // namespace ketch::kafka
