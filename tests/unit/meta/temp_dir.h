// A fresh directory under the system temp dir, removed with its contents.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

namespace ketch::meta::testing {

class temp_dir {
public:
    temp_dir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "ketch-meta-XXXXXX").string();
        path_ = ::mkdtemp(tmpl.data());
    }
    ~temp_dir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;

    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace ketch::meta::testing
