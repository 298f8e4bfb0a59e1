// A checkpoint's _metadata text: written directly (engine/checkpointing/checkpoint_storage.cpp), it
// must be the JSON document it always was, byte for byte (sizes reach the run's statistics), and
// read back to the same checkpoint.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/checkpointing/checkpoint_storage.h"

using namespace eosim::engine;

namespace {

// The document as the metadata describes it, built the slow way.
nlohmann::json document_of(const CompletedCheckpoint& c,
                           const std::vector<std::string>& older_shared) {
    nlohmann::json d = {{"checkpoint", c.id},
                        {"handles", nlohmann::json::array()},
                        {"offsets", nlohmann::json::array()},
                        {"state_bytes", c.state_bytes}};
    for (const auto& [where, handle] : c.handles)
        d["handles"].push_back(
            {{"vertex", where.first}, {"subtask", where.second}, {"key", handle}});
    for (const auto& [where, offset] : c.offsets) {
        d["offsets"].push_back(
            {{"topic", where.first}, {"partition", where.second}, {"offset", offset}});
    }
    if (c.savepoint) d["savepoint"] = true;
    if (!c.finished.empty()) {
        d["finished"] = nlohmann::json::array();
        for (const auto& [vertex, subtask] : c.finished)
            d["finished"].push_back({{"vertex", vertex}, {"subtask", subtask}});
    }
    if (!c.shared.empty() || !older_shared.empty()) {
        d["shared"] = nlohmann::json::array();
        for (const auto& [where, files] : c.shared)
            d["shared"].push_back(
                {{"vertex", where.first}, {"subtask", where.second}, {"keys", files}});
        d["shared_bytes_uploaded"] = c.shared_bytes_uploaded;
        d["shared_bytes_referenced"] = c.shared_bytes_referenced;
        d["older_shared"] = older_shared;
    }
    return d;
}

CompletedCheckpoint sample() {
    CompletedCheckpoint c;
    c.id = 42;
    c.state_bytes = -7;
    c.handles[{0, 0}] = "checkpoints/job/chk-42/source-0-a1";
    c.handles[{2, 1}] = "checkpoints/job/chk-42/count \"quoted\"\\-1-a3";
    c.offsets[{"input", 0}] = 1000;
    c.offsets[{"in\tput\n\r\b\f\x01\x1f\x7f\xc3\xa9", 3}] = INT64_MAX;
    return c;
}

}  // namespace

TEST_CASE("checkpoint metadata: the text is the JSON document, byte for byte, and reads back",
          "[checkpoint][metadata]") {
    CompletedCheckpoint full = sample();
    CompletedCheckpoint empty;
    CompletedCheckpoint savepoint = sample();
    savepoint.savepoint = true;
    CompletedCheckpoint incremental = sample();
    incremental.shared[{2, 1}] = {"checkpoints/job/shared/a.sst", "checkpoints/job/shared/b.sst"};
    incremental.shared[{3, 0}] = {};
    incremental.shared_bytes_uploaded = 10;
    incremental.shared_bytes_referenced = 30;
    const std::vector<std::string> older{"checkpoints/job/shared/old.sst"};
    CompletedCheckpoint with_finished = sample();  // FLIP-147: subtasks that had finished
    with_finished.finished = {{0, 1}, {0, 3}, {2, 0}};

    for (const auto& [c, older_shared] :
         std::vector<std::pair<CompletedCheckpoint, std::vector<std::string>>>{
             {full, {}},
             {empty, {}},
             {savepoint, {}},
             {incremental, older},
             {full, older},
             {with_finished, {}}}) {
        const std::string text = serialize_checkpoint_metadata(c, older_shared);
        CHECK(text == document_of(c, older_shared).dump());
        const CompletedCheckpoint back = parse_checkpoint_metadata(text);
        CHECK(back.id == c.id);
        CHECK(back.state_bytes == c.state_bytes);
        CHECK(back.handles == c.handles);
        CHECK(back.offsets == c.offsets);
        CHECK(back.savepoint == c.savepoint);
        CHECK(back.shared == c.shared);
        CHECK(back.older_shared == older_shared);
        CHECK(back.finished == c.finished);
    }
}
