#pragma once
// An S3/HDFS-like object store: the outside system behind file sinks (part files, committed by a
// rename or by completing a multipart upload).
//
// What is modelled (the behaviour exactly-once file sinks depend on):
// - objects by path (a flat namespace; "/" is only a character, as in S3), each a byte string;
// - put (create or replace), get, list by prefix (sorted by path), delete;
// - rename (HDFS: atomic; fails with `already_exists` when the target exists, `not_found` when the
//   source is missing) and copy (S3: the target is replaced; the source stays, so an S3-style move
//   is copy then delete, two calls, with a window between them);
// - multipart uploads (S3): initiate -> an upload id; upload part (a part number, replaced when
//   sent again); complete -> the object appears atomically with the parts in part-number order;
//   abort -> nothing appears. An upload that is neither completed nor aborted is invisible to get
//   and list, and it survives every crash of the uploader (its id can be completed after a restore,
//   as Flink's recoverable writers do). Completing or aborting an id that is no longer open fails
//   with `no_such_upload` (a sink that recovers must check whether the object exists);
// - faults: unavailable until T (every call fails), write errors until T (every write fails and
//   changes nothing; get and list still answer).
//
// "Absorbed duplicates" (writes that changed nothing): a put of the bytes already stored at the
// path, a delete of a missing path.
//
// Not modelled: eventual consistency of listings (S3 is strongly consistent since 2020), object
// metadata and ETags, lifecycle rules that clean up abandoned uploads, HDFS leases and directories,
// size limits on parts.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/external/outside_system.h"

namespace eosim::sim::external {

enum class ObjectError : uint8_t {
    none,
    unavailable,     // the store or the caller is down, unreachable, or in an unavailable period
    write_failed,    // an injected write error: nothing changed
    not_found,       // get/delete/rename/copy of a missing path
    already_exists,  // rename onto an existing path
    no_such_upload,  // upload part / complete / abort of an upload that is not open
    invalid_part,    // complete of an upload without parts
    timeout,  // no answer (calls that race, call_races.h): the write may have applied, or may still
              // land
};
const char* to_string(ObjectError error);

struct ObjectInfo {
    std::string path;
    uint64_t size = 0;
    auto operator<=>(const ObjectInfo&) const = default;
};

struct ObjectResult {
    ObjectError error = ObjectError::none;
    std::string bytes;                // get: the content
    int64_t upload_id = -1;           // initiate: the new upload's id
    std::vector<ObjectInfo> objects;  // list: sorted by path
};

class ObjectStore final : public OutsideSystem {
public:
    ObjectStore(Scheduler& scheduler, Network& network, NodeId node);

    ObjectResult put(NodeId caller, const std::string& path, std::string bytes);
    ObjectResult get(NodeId caller, const std::string& path);
    ObjectResult list(NodeId caller, const std::string& prefix);
    ObjectResult remove(NodeId caller, const std::string& path);
    ObjectResult rename(NodeId caller, const std::string& from, const std::string& to);
    ObjectResult copy(NodeId caller, const std::string& from, const std::string& to);

    ObjectResult initiate_upload(NodeId caller, const std::string& path);
    ObjectResult upload_part(NodeId caller, int64_t upload_id, int32_t part_number,
                             std::string bytes);
    ObjectResult complete_upload(NodeId caller, int64_t upload_id);
    ObjectResult abort_upload(NodeId caller, int64_t upload_id);

    // Narrow views for oracles and tests (no caller, no fault).
    const std::map<std::string, std::string>& objects() const { return objects_; }
    std::optional<std::string> peek(const std::string& path) const;
    std::vector<int64_t> open_uploads() const;  // ids, ascending
    // A digest of what it holds at the end (sim/external/content_digest.cpp): equal contents, equal
    // digests; folded into a run's state hash beside its trace hash.
    uint64_t content_digest() const;

private:
    struct Upload {
        std::string path;
        std::map<int32_t, std::string> parts;  // by part number
    };
    bool admit_write_or(NodeId caller, ObjectResult* failure);
    // A write: admitted, delivered as the races say, noted in the call log.
    ObjectResult write_call(NodeId caller, const std::function<std::string()>& call,
                            std::function<ObjectResult()> apply);

    std::map<std::string, std::string> objects_;
    std::map<int64_t, Upload> uploads_;  // open uploads only
    int64_t next_upload_id_ = 1;
};

}  // namespace eosim::sim::external
