// The numbered migrations of cluster mode's PostgreSQL schema, by range, each
// range in a file of its own; migrations() (cluster/schema.h) joins them in
// order. The next migration goes at the end of migrations_10_on().
#pragma once

#include <span>

namespace ketch::cluster {

// Migrations 1 to 9 (migrations_1_to_9.cc).
std::span<const char* const> migrations_1_to_9();

// Migrations 10 onward (migrations_10_on.cc).
std::span<const char* const> migrations_10_on();

}  // namespace ketch::cluster
