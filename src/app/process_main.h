// What `ketch` does with its arguments (app/process_main.cc): main() only calls
// it, so the executable's own translation unit is tiny and the work is
// compiled with the rest of the app module (docs/performance.md "Build time").
#pragma once

namespace ketch::app {

int process_main(int argc, char** argv);

}  // namespace ketch::app
