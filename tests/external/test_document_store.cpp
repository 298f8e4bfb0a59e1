// Tests of the Elasticsearch-like document store (sim/external/document_store.h): create / index /
// update by _id, external versioning, generated ids, bulk requests where some items fail, and
// calls from down or partitioned callers or under injected faults, which change nothing.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/external/document_store.h"
#include "tests/external/external_test_world.h"

namespace {

using eosim::sim::Duration;
using eosim::sim::NodeId;
using eosim::sim::Ratio;
using eosim::sim::Time;
using eosim::sim::World;
using eosim::sim::WorldOptions;
using namespace eosim::sim::external;

std::string err(DocumentError e) { return to_string(e); }

DocumentWrite op(DocumentOp kind, std::optional<std::string> id, int64_t value) {
    DocumentWrite w;
    w.op = kind;
    w.id = std::move(id);
    w.fields = {{"value", value}};
    return w;
}

DocumentWrite external_write(std::string id, int64_t value, int64_t version) {
    DocumentWrite w = op(DocumentOp::index, std::move(id), value);
    w.version_type = VersionType::external;
    w.version = version;
    return w;
}

struct DocumentStoreFixture : eosim::test::ExternalTestWorld {
    NodeId store_node = add_node("documents");
    NodeId writer = add_node("writer");
    DocumentStore store{world.scheduler(), world.network(), store_node, world.prng("documents")};

    int64_t value_of(const std::string& id) {
        DocumentGetResult r = store.get(writer, "idx", id);
        REQUIRE(r.document);
        return r.document->fields.at("value");
    }
};

}  // namespace

TEST_CASE("create fails on an existing id and changes nothing, index replaces, update merges",
          "[document_store]") {
    DocumentStoreFixture f;
    DocumentWriteResult r = f.store.write(f.writer, "idx", op(DocumentOp::create, "a", 1));
    CHECK(err(r.error) == "none");
    CHECK(r.outcome == WriteOutcome::created);
    CHECK(r.version == 1);
    r = f.store.write(f.writer, "idx", op(DocumentOp::create, "a", 2));
    CHECK(err(r.error) == "conflict");
    CHECK(f.value_of("a") == 1);
    CHECK(f.store.stats().absorbed_duplicates == 1);

    r = f.store.write(f.writer, "idx", op(DocumentOp::index, "a", 3));
    CHECK(r.outcome == WriteOutcome::updated);
    CHECK(r.version == 2);
    CHECK(f.value_of("a") == 3);

    DocumentWrite update = op(DocumentOp::update, "a", 3);
    update.fields["extra"] = 7;
    r = f.store.write(f.writer, "idx", update);
    CHECK(r.outcome == WriteOutcome::updated);
    CHECK(f.store.get(f.writer, "idx", "a").document->fields ==
          DocumentFields{{"extra", 7}, {"value", 3}});
    r = f.store.write(f.writer, "idx", update);  // detect_noop
    CHECK(r.outcome == WriteOutcome::noop);
    CHECK(r.version == 3);
    CHECK(err(f.store.write(f.writer, "idx", op(DocumentOp::update, "missing", 1)).error) ==
          "not_found");
    CHECK(f.store.documents("idx").size() == 1);
}

TEST_CASE(
    "a re-index with identical fields is absorbed: the content stays, the internal version bumps",
    "[document_store]") {
    DocumentStoreFixture f;
    f.store.write(f.writer, "idx", op(DocumentOp::index, "k1:5", 5));
    const DocumentWriteResult r = f.store.write(f.writer, "idx", op(DocumentOp::index, "k1:5", 5));
    CHECK(err(r.error) == "none");
    CHECK(r.version == 2);
    CHECK(f.store.stats().writes_applied == 1);
    CHECK(f.store.stats().absorbed_duplicates == 1);
    CHECK(f.store.documents("idx").size() == 1);
}

TEST_CASE("external versioning: a version <= the stored one is a conflict and changes nothing",
          "[document_store]") {
    DocumentStoreFixture f;
    CHECK(f.store.write(f.writer, "idx", external_write("k", 10, 5)).version == 5);
    DocumentWriteResult r =
        f.store.write(f.writer, "idx", external_write("k", 99, 5));  // the same version
    CHECK(err(r.error) == "conflict");
    r = f.store.write(f.writer, "idx", external_write("k", 99, 3));  // an older replay
    CHECK(err(r.error) == "conflict");
    CHECK(f.value_of("k") == 10);
    CHECK(f.store.get(f.writer, "idx", "k").document->version == 5);
    r = f.store.write(f.writer, "idx",
                      external_write("k", 12, 9));  // newer: stored with the caller's version
    CHECK(err(r.error) == "none");
    CHECK(r.version == 9);
    CHECK(f.value_of("k") == 12);
    CHECK(f.store.stats().absorbed_duplicates == 2);
}

TEST_CASE("writes without _id get generated ids, so a replay duplicates", "[document_store]") {
    DocumentStoreFixture f;
    const DocumentWriteResult a =
        f.store.write(f.writer, "idx", op(DocumentOp::index, std::nullopt, 1));
    const DocumentWriteResult b =
        f.store.write(f.writer, "idx", op(DocumentOp::index, std::nullopt, 1));
    CHECK(a.id == "auto-1");
    CHECK(b.id == "auto-2");
    CHECK(f.store.documents("idx").size() == 2);
    CHECK(f.store.generated_ids() == 2);
    CHECK(f.store.stats().absorbed_duplicates == 0);
}

TEST_CASE("a bulk request with one failing item applies the others", "[document_store]") {
    DocumentStoreFixture f;
    f.store.write(f.writer, "idx", op(DocumentOp::create, "b", 1));
    const BulkResponse r =
        f.store.bulk(f.writer, "idx",
                     {op(DocumentOp::index, "a", 1), op(DocumentOp::create, "b", 2),
                      op(DocumentOp::update, "zz", 3), op(DocumentOp::index, "c", 4)});
    REQUIRE(r.items.size() == 4);
    CHECK(r.errors());
    CHECK(err(r.items[0].error) == "none");
    CHECK(err(r.items[1].error) == "conflict");
    CHECK(err(r.items[2].error) == "not_found");
    CHECK(err(r.items[3].error) == "none");
    CHECK(f.value_of("a") == 1);
    CHECK(f.value_of("b") == 1);
    CHECK(f.value_of("c") == 4);
}

TEST_CASE(
    "partial bulk failure: rejected items change nothing, the others apply, and the draw is seeded",
    "[document_store]") {
    auto run = [](uint64_t seed) {
        WorldOptions options;
        options.seed = seed;
        World world{options};
        const NodeId node = world.nodes().add("documents");
        const NodeId writer = world.nodes().add("writer");
        DocumentStore store{world.scheduler(), world.network(), node, world.prng("documents")};
        store.set_partial_batch_failure(Ratio{1, 2}, Time::zero() + Duration::seconds(1));
        std::vector<DocumentWrite> writes;
        for (int i = 0; i < 64; ++i)
            writes.push_back(op(DocumentOp::index, "d" + std::to_string(i), i));
        const BulkResponse r = store.bulk(writer, "idx", writes);
        std::string pattern;
        size_t rejected = 0;
        for (size_t i = 0; i < r.items.size(); ++i) {
            const bool failed = r.items[i].error == DocumentError::rejected;
            pattern += failed ? 'x' : '.';
            rejected += failed ? 1 : 0;
            const bool stored =
                store.get(writer, "idx", "d" + std::to_string(i)).document.has_value();
            CHECK(stored == !failed);
        }
        CHECK(rejected > 0);
        CHECK(rejected < 64);
        CHECK(store.rejected_items() == rejected);
        CHECK(store.documents("idx").size() == 64 - rejected);
        return pattern;
    };
    CHECK(run(7) == run(7));
    CHECK(run(7) != run(8));
}

TEST_CASE("partial bulk failure ends at its time, and write errors fail the whole bulk",
          "[document_store]") {
    DocumentStoreFixture f;
    f.store.set_partial_batch_failure(Ratio::always(), Time::zero() + Duration::seconds(1));
    CHECK(err(f.store.bulk(f.writer, "idx", {op(DocumentOp::index, "a", 1)}).items[0].error) ==
          "rejected");
    f.advance_to(Time::zero() + Duration::seconds(1));
    CHECK(!f.store.bulk(f.writer, "idx", {op(DocumentOp::index, "a", 1)}).errors());

    f.store.set_write_errors_until(Time::zero() + Duration::seconds(2));
    const BulkResponse r = f.store.bulk(f.writer, "idx", {op(DocumentOp::index, "b", 1)});
    CHECK(err(r.error) == "write_failed");
    CHECK(r.items.empty());
    CHECK(err(f.store.write(f.writer, "idx", op(DocumentOp::index, "b", 1)).error) ==
          "write_failed");
    CHECK(err(f.store.get(f.writer, "idx", "a").error) == "none");  // reads still answer
    CHECK(f.store.documents("idx").size() == 1);
}

TEST_CASE(
    "document calls fail from a down or partitioned caller, or while unavailable, and write nothing",
    "[document_store]") {
    DocumentStoreFixture f;
    SECTION("caller down") {
        f.world.scheduler().crash(f.writer);
        CHECK(err(f.store.write(f.writer, "idx", op(DocumentOp::index, "a", 1)).error) ==
              "unavailable");
        CHECK(err(f.store.bulk(f.writer, "idx", {op(DocumentOp::index, "a", 1)}).error) ==
              "unavailable");
    }
    SECTION("partitioned, one way") {
        f.world.network().partition({f.store_node}, {f.writer}, true);
        CHECK(err(f.store.write(f.writer, "idx", op(DocumentOp::index, "a", 1)).error) ==
              "unavailable");
        CHECK(err(f.store.scan(f.writer, "idx").error) == "unavailable");
    }
    SECTION("unavailable period") {
        f.store.set_unavailable_until(Time::zero() + Duration::seconds(1));
        CHECK(err(f.store.write(f.writer, "idx", op(DocumentOp::index, "a", 1)).error) ==
              "unavailable");
        f.advance_to(Time::zero() + Duration::seconds(1));
        CHECK(err(f.store.write(f.writer, "idx", op(DocumentOp::index, "z", 1)).error) == "none");
        CHECK(f.store.documents("idx").size() == 1);
        return;
    }
    CHECK(f.store.documents("idx").empty());
    CHECK(f.store.stats().failed_calls >= 1);
}

TEST_CASE("documents survive a crash of the store's node, and a scan is sorted by id",
          "[document_store]") {
    DocumentStoreFixture f;
    f.store.write(f.writer, "idx", op(DocumentOp::index, "b", 2));
    f.store.write(f.writer, "idx", op(DocumentOp::index, "a", 1));
    f.world.scheduler().crash(f.store_node);
    CHECK(err(f.store.scan(f.writer, "idx").error) == "unavailable");
    f.world.scheduler().restart(f.store_node);
    const DocumentScanResult r = f.store.scan(f.writer, "idx");
    REQUIRE(r.documents.size() == 2);
    CHECK(r.documents[0].id == "a");
    CHECK(r.documents[1].id == "b");
    CHECK(err(f.store.scan(f.writer, "nothing").error) == "no_such_index");
}
