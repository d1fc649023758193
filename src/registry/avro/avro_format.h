// The Avro format's entry points for the registry (format.cc dispatches here).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "registry/avro/avro_schema.h"
#include "registry/format.h"

namespace ketch::registry::avro {

// deps: the referenced schemas' texts, dependencies first.
result_t<parsed_ptr> parse(std::string_view text, const std::vector<std::string>& deps);
// The model behind an Avro parsed_schema (nullptr for another format).
const avro_schema* model_of(const parsed_schema& p);

}  // namespace ketch::registry::avro
