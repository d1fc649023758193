// What the C++ checks of tests/cluster (catalogue_check, shared_log_check,
// sweeper_check, security_store_check) share: each failed expectation is
// printed and counted; main returns 1 when any failed.
#pragma once

#include <atomic>
#include <cstdio>
#include <string>

namespace ketch::check {

inline std::atomic<int> failures = 0;

inline void expect(bool ok, const std::string& what) {
    if (!ok) {
        ++failures;
        std::printf("FAIL %s\n", what.c_str());
    }
}

}  // namespace ketch::check
