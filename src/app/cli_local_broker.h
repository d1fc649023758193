// What `ketch env` (cli/env_cmd.cc) prints when no -b is given: the client
// settings of the broker these flags (--listen, --listener, --config, ...)
// describe, as the broker itself would resolve them.
#pragma once

#include <string>
#include <vector>

#include "cli/command.h"

namespace ketch::app {

cli::local_broker local_broker_settings(const std::vector<std::string>& broker_args);

}  // namespace ketch::app
