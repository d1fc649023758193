#include "base/read_through_limit.h"

namespace ketch {

read_through_limit::read_through_limit(clock::duration per_name, int per_second, now_fn now)
    : per_name_(per_name), per_second_(per_second), now_(now ? std::move(now) : [] { return clock::now(); }) {}

bool read_through_limit::allow(std::string_view name) {
    const auto now = now_();
    std::lock_guard l(mu_);
    if (now - window_start_ >= std::chrono::seconds(1)) {
        window_start_ = now;
        in_window_ = 0;
    }
    if (in_window_ >= per_second_) return false;
    if (per_name_ > clock::duration::zero()) {
        // At most per_second names a second are kept, so this map holds about
        // per_second x per_name entries: the old ones go once it has grown.
        if (last_.size() > size_t(per_second_) * 4)
            std::erase_if(last_, [&](const auto& kv) { return now - kv.second >= per_name_; });
        auto [it, fresh] = last_.try_emplace(std::string(name), now);
        if (!fresh) {
            if (now - it->second < per_name_) return false;
            it->second = now;
        }
    }
    ++in_window_;
    return true;
}

}  // namespace ketch
