#pragma once
// Writing output files so that a reader never sees half of one: the content goes to a temporary
// file next to the target, which is then renamed over it.
#include <filesystem>
#include <string>

namespace eosim::cli {

// Returns "" on success, else what went wrong (naming the file).
std::string write_file_atomically(const std::filesystem::path& path, const std::string& content);

}  // namespace eosim::cli
