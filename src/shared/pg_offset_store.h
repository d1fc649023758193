// Cluster mode's meta::offset_store (docs/cluster.md "consumer groups"):
// committed offsets and group rows in PostgreSQL (ketch_group_offsets,
// ketch_groups; migration 4), shared by every broker, so that a group whose
// coordinator moves to another broker (the owner died) keeps its offsets.
//
// The contract is offset_store's: a call that returns ok committed its
// change in one PostgreSQL transaction; a failed call changed nothing (an
// unknown COMMIT outcome is reported as a failure: the coordinator answers
// a retriable code and the client's retry writes the same values again).
// One connection under a mutex, reopened when it broke.
//
// Besides the interface, the broker reads single groups back
// (load_group_rows / load_group_offsets) when their coordinator moves here
// (app/cluster_groups.h), and lists the ids of every group kept.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cluster/pg.h"
#include "meta/offset_store.h"

namespace ketch::shared {

class pg_offset_store final : public meta::offset_store {
public:
    explicit pg_offset_store(std::string url) : url_(std::move(url)) {}

    result<std::vector<meta::stored_offset>, meta::store_error> load_offsets() override;
    result<std::vector<meta::stored_group>, meta::store_error> load_groups() override;
    status<meta::store_error> commit_offsets(std::span<const meta::stored_offset> offsets) override;
    status<meta::store_error> delete_offsets(const std::string& group, std::span<const meta::offset_key> keys) override;
    status<meta::store_error> delete_groups(std::span<const std::string> groups) override;
    status<meta::store_error> put_group(const meta::stored_group& g) override;

    // The rows of these groups only (the groups whose coordinator moved here).
    result<std::vector<meta::stored_offset>, meta::store_error> load_offsets_of(std::span<const std::string> groups);
    result<std::vector<meta::stored_group>, meta::store_error> load_groups_of(std::span<const std::string> groups);
    // Every group id that has a row or an offset.
    result<std::vector<std::string>, meta::store_error> group_ids();

private:
    result<cluster::pg_connection*, meta::store_error> conn();  // mu_ held
    template <class Body>
    status<meta::store_error> transaction(const char* what, Body body);  // takes mu_
    result<std::vector<meta::stored_offset>, meta::store_error> offsets_where(const std::string& where,
                                                                               const cluster::pg_params& params);
    result<std::vector<meta::stored_group>, meta::store_error> groups_where(const std::string& where,
                                                                             const cluster::pg_params& params);

    const std::string url_;
    std::mutex mu_;
    std::unique_ptr<cluster::pg_connection> c_;
};

// bytea as text parameters and columns: '\x' and lower-case hex.
std::string to_bytea_hex(const std::string& raw);
std::string from_hex(const std::string& hex);

}  // namespace ketch::shared
