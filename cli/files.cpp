#include "cli/files.h"

#include <unistd.h>

#include <fstream>
#include <system_error>

namespace eosim::cli {

std::string write_file_atomically(const std::filesystem::path& path, const std::string& content) {
    std::error_code error;
    if (path.has_parent_path()) {
        std::filesystem::create_directories(path.parent_path(), error);
        if (error)
            return "cannot create the folder " + path.parent_path().string() + ": " +
                   error.message();
    }
    const std::filesystem::path temporary =
        path.string() + ".tmp-" + std::to_string(static_cast<long long>(::getpid()));
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) return "cannot open " + temporary.string() + " for writing";
        out << content;
        out.close();
        if (out.fail()) {
            std::filesystem::remove(temporary, error);
            return "cannot write " + temporary.string();
        }
    }
    std::filesystem::rename(temporary, path, error);
    if (error) {
        std::error_code ignored;
        std::filesystem::remove(temporary, ignored);
        return "cannot rename " + temporary.string() + " to " + path.string() + ": " +
               error.message();
    }
    return "";
}

}  // namespace eosim::cli
