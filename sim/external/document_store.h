#pragma once
// An Elasticsearch-like document store: the outside system behind the document sink.
//
// What is modelled (the behaviour exactly-once depends on):
// - indices of documents, each document addressed by its `_id`, with a version and fields (a flat
//   JSON object of integers: what the sinks write);
// - three write operations, as in the bulk API: `create` (fails with `conflict` when the id
//   exists), `index` (create or replace), `update` (merges fields into an existing document;
//   `not_found` when it is missing; an update that changes no field is a `noop`, as with
//   Elasticsearch's detect_noop);
// - internal versioning (each change bumps the version by one; a re-index with identical fields
//   still bumps it, as Elasticsearch does) and external versioning (`version_type=external`: the
//   caller gives the version; a write with a version <= the stored one is rejected with `conflict`
//   and changes nothing; a write with a greater version stores it);
// - a document without `_id` gets a store-generated id ("auto-1", "auto-2", ...: a deterministic
//   counter, never reused), so a replayed write without `_id` makes a second document;
// - bulk requests: per-item results; a failing item does not stop the others;
// - get by id; a scan of an index (documents sorted by id);
// - faults: unavailable until T (every call fails), write errors until T (every write request
//   fails as a whole, changing nothing), and partial bulk failure until T (each bulk item fails
//   on its own with a probability, `rejected`, like a 429 es_rejected_execution, drawn from the
//   store's own PRNG stream; the others apply).
//
// "Absorbed duplicates" (writes that changed nothing): a rejected external version, a create of
// an existing id, a re-index or update whose fields equal the stored ones.
//
// Not modelled: shards and replicas, refresh intervals (a write is visible to reads at once),
// mappings and field types, routing, sequence numbers / primary terms (if_seq_no), deletes.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/external/outside_system.h"
#include "sim/prng.h"

namespace eosim::sim::external {

enum class DocumentError : uint8_t {
    none,
    unavailable,   // the store or the caller is down, unreachable, or in an unavailable period
    write_failed,  // an injected write error: the whole request failed, nothing changed
    rejected,      // an injected bulk-item failure (429): this item changed nothing; retriable
    conflict,      // create of an existing id, or an external version <= the stored one
    not_found,     // update of a missing document
    no_such_index,
    timeout,  // no answer (calls that race, call_races.h): the request may have applied, or may
              // still land
};
const char* to_string(DocumentError error);

enum class DocumentOp : uint8_t { create, index, update };
enum class VersionType : uint8_t { internal, external };

using DocumentFields = std::map<std::string, int64_t>;

struct Document {
    std::string id;
    int64_t version = 0;
    DocumentFields fields;
    auto operator<=>(const Document&) const = default;
};

// One write, alone or as an item of a bulk request.
struct DocumentWrite {
    DocumentOp op = DocumentOp::index;
    std::optional<std::string> id;  // nullopt: the store generates one (create/index only)
    DocumentFields fields;
    VersionType version_type = VersionType::internal;
    int64_t version = 0;  // external versioning only: the caller's version (>= 0)
};

enum class WriteOutcome : uint8_t { created, updated, noop };

struct DocumentWriteResult {
    DocumentError error = DocumentError::none;
    std::string id;       // the document's id (the generated one, for a write without id)
    int64_t version = 0;  // the document's version after the write (on success)
    WriteOutcome outcome = WriteOutcome::noop;
};

struct BulkResponse {
    DocumentError error =
        DocumentError::none;                 // a failure of the whole request (then items is empty)
    std::vector<DocumentWriteResult> items;  // one per request item, in order
    bool errors() const;                     // the request or any item failed
};

struct DocumentGetResult {
    DocumentError error = DocumentError::none;
    std::optional<Document> document;  // nullopt when missing
};

struct DocumentScanResult {
    DocumentError error = DocumentError::none;
    std::vector<Document> documents;  // sorted by id
};

class DocumentStore final : public OutsideSystem {
public:
    // `prng`: the store's own stream (e.g. world.prng("documents")), used only for partial bulk
    // failures.
    DocumentStore(Scheduler& scheduler, Network& network, NodeId node, Prng prng);

    // Administration (no caller, never fails): an index exists from then on. Creating it twice is
    // harmless.
    void create_index(const std::string& index);
    bool has_index(const std::string& index) const { return indices_.count(index) != 0; }

    DocumentWriteResult write(NodeId caller, const std::string& index, const DocumentWrite& write);
    BulkResponse bulk(NodeId caller, const std::string& index,
                      const std::vector<DocumentWrite>& writes);
    DocumentGetResult get(NodeId caller, const std::string& index, const std::string& id);
    DocumentScanResult scan(NodeId caller, const std::string& index);

    bool has_partial_batch_failures() const override { return true; }
    void set_partial_batch_failure(Ratio ratio, Time until) override;

    // Narrow views for oracles and tests (no caller, no fault).
    std::vector<Document> documents(
        const std::string& index) const;  // sorted by id; empty if no index
    uint64_t generated_ids() const { return next_generated_id_ - 1; }
    uint64_t rejected_items() const { return rejected_items_; }
    // A digest of what it holds at the end (sim/external/content_digest.cpp): equal contents, equal
    // digests; folded into a run's state hash beside its trace hash.
    uint64_t content_digest() const;

private:
    using Index = std::map<std::string, Document>;
    DocumentWriteResult apply(Index& index, const DocumentWrite& write);
    BulkResponse apply_bulk(const std::string& index, const std::vector<DocumentWrite>& writes);
    DocumentWriteResult apply_with_id(Index& index, const std::string& id,
                                      const DocumentWrite& write);

    Prng prng_;
    std::map<std::string, Index> indices_;
    uint64_t next_generated_id_ = 1;
    Ratio partial_failure_ = Ratio::never();
    Time partial_failure_until_ = Time::zero();
    uint64_t rejected_items_ = 0;
};

}  // namespace eosim::sim::external
