// What every generated message needs: the wire primitives and containers.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/bytes.h"
#include "base/uuid.h"
#include "protocol/records.h"
#include "protocol/wire.h"

namespace ketch::kafka {

// Writes a flexible struct's tagged-field section: known fields (already
// encoded) and unknown ones, in ascending tag order as KIP-482 requires.
void write_tagged_fields(writer& w, std::vector<std::pair<uint32_t, bytes>>& known, const tagged_fields& unknown);

}  // namespace ketch::kafka
