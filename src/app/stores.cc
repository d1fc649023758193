#include "app/stores.h"

#include <future>
#include <stdexcept>
#include <string>

namespace ketch::app {

namespace {

template <class T>
std::unique_ptr<T> take(result<std::unique_ptr<T>, meta::store_error> r, const char* what) {
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
    s.meta = take(meta::open_sqlite_store(data_dir), "metadata store");
    s.offsets = take(offsets.get(), "offsets");
    s.credentials = take(credentials.get(), "credentials");
    s.acls = take(acls.get(), "acls");
    s.quotas = take(quotas.get(), "quotas");
    s.txns = take(txns.get(), "transactions");
    s.shares = take(shares.get(), "share groups");
    s.tokens = take(tokens.get(), "delegation tokens");
    return s;
}

}  // namespace ketch::app
