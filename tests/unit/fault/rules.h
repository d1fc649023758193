// Rules the fault tests add.
#pragma once

#include "fault/rule.h"

namespace ketch::fault::test {

// An error fault answering `code`, for `count` requests (none: until cleared).
inline rule error_rule(int16_t code, std::optional<int64_t> count) {
    rule r;
    r.what = kind::error;
    r.error_code = code;
    r.count = count;
    return r;
}

}  // namespace ketch::fault::test
