// Cluster mode's scripted faults (--faults with --cluster; docs/design/
// faults.md "Cluster mode"): the faults in PostgreSQL (ketch_faults), shared
// by every broker. Adding or removing one ends its transaction with NOTIFY
// ketch_commit 'faults'; every broker then reloads its fault::registry. Each
// injection is claimed here (claim(): one UPDATE of the fault's row, which
// PostgreSQL locks, so brokers claiming at once take distinct counts), so
// "the next N matching requests" are the cluster's N.
#pragma once

#include <string>
#include <vector>

#include "fault/store.h"
#include "shared/pg_session.h"

namespace ketch::app {

// The payload of the NOTIFY a change of the cluster's faults sends.
inline constexpr const char* k_faults_changed = "faults";

class pg_fault_store final : public fault::store {
public:
    // Connects at first use; the cluster schema must be migrated (storage_engines).
    explicit pg_fault_store(std::string url) : session_(std::move(url), "faults") {}

    uint64_t add(const fault::rule& r, size_t max_faults) override;
    bool remove(uint64_t id) override;
    size_t clear() override;
    std::vector<fault::stored_fault> load() override;
    bool claim(uint64_t id) override;
    void count_injected(const std::vector<uint64_t>& ids) override;

private:
    shared::pg_session session_;
};

}  // namespace ketch::app
