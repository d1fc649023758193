#include "app/stores.h"

#include <future>
#include <stdexcept>
#include <string>

namespace ketch::app {

namespace {

template <class T>
std::unique_ptr<T> opened_or_exit(result<std::unique_ptr<T>, meta::store_error> r, const char* what) {
    if (!r.ok()) throw std::runtime_error(std::string(what) + ": " + r.error().message);
    return std::move(*r);
}

}  // namespace

stores stores::open(const std::filesystem::path& data_dir) {
    // The stores are independent files and creating one costs about eight
    // fdatasyncs: they open concurrently (the file system commits the syncs
    // together), so start-up pays about one store's syncs instead of six
    // (docs/performance.md).
    auto async = [&data_dir](auto open) { return std::async(std::launch::async, open, data_dir); };
    auto offsets = async(&meta::open_sqlite_offset_store);
    auto credentials = async(&meta::open_sqlite_credential_store);
    auto acls = async(&meta::open_sqlite_acl_store);
    auto quotas = async([](const std::filesystem::path& dir) { return meta::open_sqlite_quota_store(dir); });
    auto txns = async(&meta::open_sqlite_txn_store);
    auto shares = async(&meta::open_sqlite_share_store);
    auto tokens = async(&meta::open_sqlite_token_store);
    stores s;
    s.meta = opened_or_exit(meta::open_sqlite_store(data_dir), "metadata store");
    s.offsets = opened_or_exit(offsets.get(), "offsets");
    s.credentials = opened_or_exit(credentials.get(), "credentials");
    s.acls = opened_or_exit(acls.get(), "acls");
    s.quotas = opened_or_exit(quotas.get(), "quotas");
    s.txns = opened_or_exit(txns.get(), "transactions");
    s.shares = opened_or_exit(shares.get(), "share groups");
    s.tokens = opened_or_exit(tokens.get(), "delegation tokens");
    return s;
}

}  // namespace ketch::app
