// An in-memory meta::txn_store for tests: durable for the life of the object.
// fail_writes makes every write fail (a full disk), changing nothing.
#pragma once

#include <map>
#include <mutex>
#include <tuple>

#include "meta/txn_store.h"

namespace ketch::meta {

class memory_txn_store final : public txn_store {
public:
    bool fail_writes = false;

    result<std::vector<stored_txn>, store_error> load_txns() override {
        std::lock_guard l(mu_);
        std::vector<stored_txn> out;
        for (auto& [k, v] : txns_) out.push_back(v);
        return out;
    }
    status<store_error> put_txn(const stored_txn& t) override {
        std::lock_guard l(mu_);
        if (fail_writes) return failure{store_error{"injected"}};
        txns_[t.transactional_id] = t;
        return ok_v;
    }
    status<store_error> delete_txn(const std::string& id) override {
        std::lock_guard l(mu_);
        if (fail_writes) return failure{store_error{"injected"}};
        txns_.erase(id);
        return ok_v;
    }
    result<std::vector<pending_txn_offset>, store_error> load_pending_offsets() override {
        std::lock_guard l(mu_);
        std::vector<pending_txn_offset> out;
        for (auto& [k, v] : pending_) out.push_back(v);
        return out;
    }
    status<store_error> put_pending_offsets(std::span<const pending_txn_offset> offsets) override {
        std::lock_guard l(mu_);
        if (fail_writes) return failure{store_error{"injected"}};
        for (auto& o : offsets) pending_[{o.producer_id, o.offset.group, o.offset.topic, o.offset.partition}] = o;
        return ok_v;
    }
    status<store_error> delete_pending_offsets(int64_t producer_id) override {
        std::lock_guard l(mu_);
        if (fail_writes) return failure{store_error{"injected"}};
        std::erase_if(pending_, [&](auto& kv) { return std::get<0>(kv.first) == producer_id; });
        return ok_v;
    }

private:
    std::mutex mu_;
    std::map<std::string, stored_txn> txns_;
    std::map<std::tuple<int64_t, std::string, std::string, int32_t>, pending_txn_offset> pending_;
};

}  // namespace ketch::meta
