#include "cli/results_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace eosim::cli {

namespace {

using nlohmann::json;

json header_json(const ResultsHeader& h) {
    return {{"eosim_results", 1},
            {"suite", h.suite},
            {"plan", h.plan},
            {"shard", {{"index", h.shard.index}, {"total", h.shard.total}}},
            {"shard_runs", h.shard_runs}};
}

ResultsHeader header_from_json(const json& j, const std::string& file) {
    try {
        ResultsHeader h;
        h.suite = j.at("suite").get<std::string>();
        h.plan = j.value("plan", json::object());
        h.shard.index = j.at("shard").at("index").get<uint32_t>();
        h.shard.total = j.at("shard").at("total").get<uint32_t>();
        h.shard_runs = j.at("shard_runs").get<size_t>();
        return h;
    } catch (const json::exception& error) {
        throw ResultsError(file + ": line 1: a malformed results header: " + error.what());
    }
}

void write_all(int fd, const std::string& text, const std::string& path) {
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw ResultsError("cannot write " + path + ": " + std::strerror(errno));
        done += static_cast<size_t>(n);
    }
}

}  // namespace

ResultsFile read_results_file(const std::filesystem::path& path) {
    const std::string file = path.string();
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ResultsError(file + ": cannot open the results file for reading");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ResultsFile results;
    size_t line_number = 0;
    size_t start = 0;
    bool have_header = false;
    while (start < text.size()) {
        const size_t end = text.find('\n', start);
        const bool complete = end != std::string::npos;
        const std::string line = text.substr(start, complete ? end - start : std::string::npos);
        start = complete ? end + 1 : text.size();
        ++line_number;
        if (line.empty()) continue;
        json j;
        try {
            j = json::parse(line);
        } catch (const json::parse_error&) {
            if (!have_header)
                throw ResultsError(file + ": not an eosim results file (line 1 is not JSON)");
            results.warnings.push_back(file + ": line " + std::to_string(line_number) +
                                       (complete ? ": not JSON; skipped"
                                                 : ": incomplete (the suite was interrupted "
                                                   "while writing it); ignored"));
            continue;
        }
        if (!have_header) {
            if (!j.is_object() || !j.contains("eosim_results")) {
                throw ResultsError(file + ": not an eosim results file (no header line)");
            }
            results.header = header_from_json(j, file);
            have_header = true;
            continue;
        }
        try {
            results.records.push_back(reports::run_record_from_json(j));
        } catch (const reports::RecordError& error) {
            results.warnings.push_back(file + ": line " + std::to_string(line_number) +
                                       ": not a run record (" + error.what() + "); skipped");
        }
    }
    if (!have_header) throw ResultsError(file + ": not an eosim results file (it is empty)");
    return results;
}

ResultsWriter::ResultsWriter(const std::filesystem::path& path, const ResultsHeader& header,
                             const std::vector<reports::RunRecord>& kept)
    : path_(path.string()) {
    std::error_code error;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), error);
    const std::string temporary =
        path_ + ".tmp-" + std::to_string(static_cast<long long>(::getpid()));
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        throw ResultsError("cannot write the results file " + temporary + ": " +
                           std::strerror(errno));
    try {
        std::string text = header_json(header).dump() + "\n";
        for (const reports::RunRecord& record : kept) {
            text += reports::to_json(record).dump(-1, ' ', false, json::error_handler_t::replace) +
                    "\n";
        }
        write_all(fd, text, temporary);
    } catch (...) {
        ::close(fd);
        ::unlink(temporary.c_str());
        throw;
    }
    ::close(fd);
    if (::rename(temporary.c_str(), path_.c_str()) != 0) {
        const std::string reason = std::strerror(errno);
        ::unlink(temporary.c_str());
        throw ResultsError("cannot rename " + temporary + " to " + path_ + ": " + reason);
    }
    fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd_ < 0)
        throw ResultsError("cannot open the results file " + path_ + ": " + std::strerror(errno));
}

ResultsWriter::~ResultsWriter() {
    if (fd_ >= 0) ::close(fd_);
}

void ResultsWriter::append(const reports::RunRecord& record) {
    // error_handler replace: a worker's stderr may hold bytes that are not UTF-8.
    write_all(fd_,
              reports::to_json(record).dump(-1, ' ', false, json::error_handler_t::replace) + "\n",
              path_);
}

}  // namespace eosim::cli
