#include "shared/pg_leases.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "shared/pg_session.h"

namespace ketch::shared {

const lease_table k_group_leases{"ketch_group_leases", {"group_id"}, "::bytea", "group", lease_take::always, true};
const lease_table k_txn_leases{"ketch_txn_leases", {"transactional_id"},    "::bytea",
                               "transactional id", lease_take::unless_live, true};
const lease_table k_share_leases{"ketch_share_leases", {"topic_id", "partition"}, "",
                                 "share-partition",    lease_take::always,        false};

namespace {

std::string param(size_t n) { return "$" + std::to_string(n); }

// The key's columns joined by `sep`, each as each(column, its parameter):
// the parameters are $1..$k, with the table's cast ("$1::bytea").
template <class Each>
std::string each_key(const lease_table& t, const char* sep, Each each) {
    std::string out;
    for (size_t i = 0; i < t.key_columns.size(); ++i)
        out += (i ? sep : "") + each(t.key_columns[i], param(i + 1) + t.key_cast);
    return out;
}

// "group_id = $1::bytea AND node_id = $2 AND incarnation = $3": the key's
// row, held by the holder in the parameters after the key's.
std::string holder_match(const lease_table& t) {
    const size_t k = t.key_columns.size();
    return each_key(t, " AND ", [](const std::string& c, const std::string& p) { return c + " = " + p; }) +
           " AND node_id = " + param(k + 1) + " AND incarnation = " + param(k + 2);
}

// INSERT .. ON CONFLICT DO UPDATE: the row moves to the holder ($k+1, $k+2)
// with the epoch + 1 (1 for a new row) and the epoch is returned; with
// unless_live, only from this node or from a holder whose session is gone
// (no row returned then).
std::string take_sql(const lease_table& t) {
    const std::string n = t.name;
    const size_t k = t.key_columns.size();
    const std::string cols = each_key(t, ", ", [](const std::string& c, const std::string&) { return c; });
    const std::string values = each_key(t, ", ", [](const std::string&, const std::string& p) { return p; });
    std::string sql = "INSERT INTO " + n + " (" + cols + ", node_id, incarnation, epoch) VALUES (" + values + ", " +
                      param(k + 1) + ", " + param(k + 2) + ", 1) ON CONFLICT (" + cols +
                      ") DO UPDATE SET node_id = EXCLUDED.node_id, incarnation = EXCLUDED.incarnation, epoch = " + n +
                      ".epoch + 1, taken_at = now()";
    if (t.take == lease_take::unless_live)
        sql += " WHERE " + n + ".node_id = EXCLUDED.node_id OR NOT EXISTS (SELECT 1 FROM pg_stat_activity a" +
               " WHERE a.application_name = 'ketch-' || " + n + ".node_id || '-' || " + n + ".incarnation)";
    return sql + " RETURNING epoch";
}

// The key's row held by the holder at the epoch ($k+3), locked FOR SHARE.
std::string check_sql(const lease_table& t) {
    return std::string("SELECT 1 FROM ") + t.name + " WHERE " + holder_match(t) +
           " AND epoch = " + param(t.key_columns.size() + 3) + " FOR SHARE";
}

std::string release_sql(const lease_table& t) {
    return std::string("DELETE FROM ") + t.name + " WHERE " + holder_match(t);
}

cluster::pg_params key_params(const std::string& k) { return {to_bytea_hex(k)}; }
cluster::pg_params key_params(const std::pair<uuid, int32_t>& k) {
    return {k.first.to_base64(), std::to_string(k.second)};
}

std::string key_text(const std::string& k) { return "'" + k + "'"; }
std::string key_text(const std::pair<uuid, int32_t>& k) { return k.first.to_base64() + ":" + std::to_string(k.second); }

}  // namespace

template <class Key>
pg_leases<Key>::pg_leases(const lease_table& table)
    : table_(table), take_sql_(take_sql(table)), check_sql_(check_sql(table)), release_sql_(release_sql(table)) {}

template <class Key>
void pg_leases<Key>::set_holder(int32_t node_id, std::string incarnation) {
    std::lock_guard l(mu_);
    node_id_ = node_id;
    incarnation_ = std::move(incarnation);
}

template <class Key>
lease_holder pg_leases<Key>::holder() const {
    std::lock_guard l(mu_);
    return {std::to_string(node_id_), incarnation_, node_id_ >= 0};
}

template <class Key>
result<int64_t, cluster::pg_error> pg_leases<Key>::take(cluster::pg_connection& pg, const Key& k) const {
    auto who = holder();
    auto params = key_params(k);
    params.insert(params.end(), {who.node, who.incarnation});
    auto r = pg.exec(take_sql_, params);
    if (!r.ok()) return failure{r.error()};
    if (r->rows.empty()) return failure{cluster::pg_error{"held by another live broker", "", false}};
    return std::stoll(r->at(0, 0));
}

template <class Key>
void pg_leases<Key>::taken(const Key& k, int64_t epoch, std::chrono::steady_clock::time_point began) {
    std::lock_guard l(mu_);
    held_[k] = {epoch, began};
    lost_.erase(k);
}

template <class Key>
status<cluster::pg_error> pg_leases<Key>::check(cluster::pg_connection& pg, const Key& k, bool* moved) {
    const std::string what = table_.what;
    int64_t epoch = 0;
    auto params = key_params(k);
    {
        std::lock_guard l(mu_);
        if (node_id_ < 0 && table_.unfenced_until_holder) return ok_v;
        auto it = held_.find(k);
        if (it == held_.end() || lost_.contains(k)) {
            if (moved) *moved = true;
            return failure{cluster::pg_error{"this broker does not hold the " + what + "'s lease", "", false}};
        }
        epoch = it->second.epoch;
        params.insert(params.end(), {std::to_string(node_id_), incarnation_, std::to_string(epoch)});
    }
    const auto checking = std::chrono::steady_clock::now();
    auto r = pg.exec(check_sql_, params);
    if (!r.ok()) return failure{r.error()};
    if (!r->rows.empty()) {
        std::lock_guard l(mu_);
        if (auto it = held_.find(k); it != held_.end() && it->second.epoch == epoch)
            it->second.confirmed = std::max(it->second.confirmed, checking);
        return ok_v;
    }
    {
        // Another broker took the lease. Lost only if the epoch checked is
        // still the one held (a new take meanwhile is not undone).
        std::lock_guard l(mu_);
        auto it = held_.find(k);
        if (it != held_.end() && it->second.epoch == epoch) lost_.insert(k);
    }
    if (moved) *moved = true;
    spdlog::info("cluster: {} {}: another broker took its lease (epoch {} here); write refused", what, key_text(k),
                 epoch);
    return failure{cluster::pg_error{"the " + what + "'s lease moved to another broker", "", false}};
}

template <class Key>
status<cluster::pg_error> pg_leases<Key>::fenced_exec(cluster::pg_connection& pg, const Key& k, const std::string& sql,
                                                      const cluster::pg_params& params) {
    if (auto f = check(pg, k); !f.ok()) return f;
    if (auto r = pg.exec(sql, params); !r.ok()) return failure{r.error()};
    return ok_v;
}

template <class Key>
status<cluster::pg_error> pg_leases<Key>::release(cluster::pg_connection& pg, const Key& k) const {
    auto who = holder();
    auto params = key_params(k);
    params.insert(params.end(), {who.node, who.incarnation});
    auto r = pg.exec(release_sql_, params);
    if (!r.ok()) return failure{r.error()};
    return ok_v;
}

template <class Key>
bool pg_leases<Key>::holds(const Key& k) const {
    std::lock_guard l(mu_);
    return held_.contains(k) && !lost_.contains(k);
}

template <class Key>
bool pg_leases<Key>::tracks(const Key& k) const {
    std::lock_guard l(mu_);
    return held_.contains(k);  // a lost key is still held until forgotten
}

template <class Key>
bool pg_leases<Key>::forget(const Key& k) {
    std::lock_guard l(mu_);
    const bool had = held_.erase(k) > 0;
    return lost_.erase(k) > 0 || had;
}

template <class Key>
int64_t pg_leases<Key>::epoch(const Key& k) const {
    std::lock_guard l(mu_);
    auto it = held_.find(k);
    return it == held_.end() ? 0 : it->second.epoch;
}

template <class Key>
std::optional<std::chrono::steady_clock::time_point> pg_leases<Key>::confirmed_at(const Key& k) const {
    std::lock_guard l(mu_);
    auto it = held_.find(k);
    if (it == held_.end() || lost_.contains(k)) return std::nullopt;
    return it->second.confirmed;
}

template <class Key>
std::map<Key, int64_t> pg_leases<Key>::held() const {
    std::lock_guard l(mu_);
    std::map<Key, int64_t> out;
    for (const auto& [k, h] : held_) out.emplace(k, h.epoch);
    return out;
}

template <class Key>
std::vector<Key> pg_leases<Key>::keys() const {
    std::lock_guard l(mu_);
    std::vector<Key> out;
    for (auto& [k, _] : held_) out.push_back(k);
    return out;
}

template class pg_leases<std::string>;
template class pg_leases<std::pair<uuid, int32_t>>;

}  // namespace ketch::shared
