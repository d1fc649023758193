// An offset store in memory: for tests and for a broker run without a data
// directory. "Durable" means: kept by this object. set_failing(true) makes
// every write fail (changing nothing) so tests can see how the coordinator
// answers when its store cannot write.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <tuple>

#include "meta/offset_store.h"

namespace ketch::meta {

class memory_offset_store final : public offset_store {
public:
    result<std::vector<stored_offset>, store_error> load_offsets() override;
    result<std::vector<stored_group>, store_error> load_groups() override;
    status<store_error> commit_offsets(std::span<const stored_offset> offsets) override;
    status<store_error> delete_offsets(const std::string& group, std::span<const offset_key> keys) override;
    status<store_error> delete_groups(std::span<const std::string> groups) override;
    status<store_error> put_group(const stored_group& g) override;

    void set_failing(bool failing) { failing_ = failing; }
    // Number of successful write calls so far.
    int writes() const { return writes_; }

private:
    using key = std::tuple<std::string, std::string, int32_t>;

    std::mutex mu_;
    std::map<key, stored_offset> offsets_;
    std::map<std::string, stored_group> groups_;
    std::atomic<bool> failing_{false};
    std::atomic<int> writes_{0};
};

}  // namespace ketch::meta
