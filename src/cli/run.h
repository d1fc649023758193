// `ketch topic|produce|consume|group|acl|user|quota|cluster|txn|env|completion ...`:
// the Kafka command line, against any Kafka-compatible cluster (docs/cli.md).
#pragma once

#include <string_view>

#include "cli/command.h"

namespace ketch::cli {

// True when argv[1] names a CLI command group (the broker's flags start with --).
bool is_command(std::string_view arg);

// Runs the command; returns the exit code (0 ok, 1 error, 2 usage).
int run(int argc, char** argv, local_broker_fn local = {});

}  // namespace ketch::cli
