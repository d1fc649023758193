// Work the coordinator collects while it holds its lock and carries out after
// releasing it: completion callbacks (never called under the lock) and
// best-effort writes of group rows.
#pragma once

#include <functional>
#include <vector>

#include "meta/offset_store.h"

namespace ketch::group {

struct completions {
    std::vector<std::function<void()>> calls;
    std::vector<meta::stored_group> group_rows;

    template <class Fn, class Arg>
    void add(Fn&& fn, Arg&& arg) {
        calls.push_back([f = std::forward<Fn>(fn), a = std::forward<Arg>(arg)]() mutable { f(std::move(a)); });
    }
};

}  // namespace ketch::group
