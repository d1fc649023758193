#include "app/cluster_id.h"

#include <filesystem>
#include <fstream>

#include "base/uuid.h"

namespace ketch::app {

std::string load_or_create_cluster_id(const std::string& data_dir) {
    namespace fs = std::filesystem;
    fs::path path = fs::path(data_dir) / "cluster.id";
    {
        std::ifstream in(path);
        std::string id;
        if (in && std::getline(in, id) && uuid::from_base64(id)) return id;
    }
    std::string id = uuid::random().to_base64();
    fs::path tmp = path;
    tmp += ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << id << "\n";
        out.flush();
        if (!out) throw std::runtime_error("cannot write " + tmp.string());
    }
    fs::rename(tmp, path);
    return id;
}

}  // namespace ketch::app
