// The console's pages (src/console/assets/*), embedded in the binary at build
// time by scripts/embed-assets.py: no CDN, no files to install.
#pragma once

#include <span>
#include <string_view>

namespace ketch::console {

struct embedded_asset {
    std::string_view path;  // "index.html", "app.js"
    std::string_view content_type;
    std::string_view data;
};

std::span<const embedded_asset> embedded_assets();

}  // namespace ketch::console
