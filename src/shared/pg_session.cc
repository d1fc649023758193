#include "shared/pg_session.h"

namespace ketch::shared {

meta::store_error pg_failed(const char* what, const cluster::pg_error& e) {
    return {std::string(what) + ": PostgreSQL: " + e.message};
}

result<cluster::pg_connection*, meta::store_error> pg_session::conn() {
    if (c_ && c_->healthy()) return c_.get();
    c_.reset();
    auto c = cluster::pg_connection::open(url_);
    if (!c.ok()) return failure{pg_failed(store_, c.error())};
    c_ = std::move(*c);
    return c_.get();
}

}  // namespace ketch::shared
