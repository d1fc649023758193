// Runs ketch's option parser over `args` as if they followed the program name.
#pragma once

#include <string>
#include <vector>

#include "app/options.h"

namespace ketch::app::testing {

inline options parse(std::vector<std::string> args) {
    args.insert(args.begin(), "ketch");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    return parse_options(int(argv.size()), argv.data());
}

}  // namespace ketch::app::testing
