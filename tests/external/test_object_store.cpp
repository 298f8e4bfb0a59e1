// Tests of the S3/HDFS-like object store (sim/external/object_store.h): put / get / list / delete,
// rename and copy, multipart uploads (complete: the object appears at once; abort: nothing appears;
// open: invisible), and calls that fail and change nothing.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/external/object_store.h"
#include "tests/external/external_test_world.h"

namespace {

using eosim::sim::Duration;
using eosim::sim::NodeId;
using eosim::sim::Time;
using namespace eosim::sim::external;

std::string err(ObjectError e) { return to_string(e); }

struct ObjectStoreFixture : eosim::test::ExternalTestWorld {
    NodeId store_node = add_node("objects");
    NodeId writer = add_node("writer");
    ObjectStore store{world.scheduler(), world.network(), store_node};

    std::vector<std::string> paths(const std::string& prefix) {
        std::vector<std::string> out;
        for (const ObjectInfo& info : store.list(writer, prefix).objects) out.push_back(info.path);
        return out;
    }
};

}  // namespace

TEST_CASE("put, get, list by prefix (sorted) and delete", "[object_store]") {
    ObjectStoreFixture f;
    CHECK(err(f.store.put(f.writer, "out/b", "bb").error) == "none");
    f.store.put(f.writer, "out/a", "a");
    f.store.put(f.writer, "other/c", "c");
    CHECK(f.store.get(f.writer, "out/b").bytes == "bb");
    CHECK(err(f.store.get(f.writer, "out/zz").error) == "not_found");
    CHECK(f.paths("out/") == std::vector<std::string>{"out/a", "out/b"});
    CHECK(f.store.list(f.writer, "out/").objects[1].size == 2);
    f.store.put(f.writer, "out/a", "a");  // the same bytes: absorbed
    CHECK(f.store.stats().absorbed_duplicates == 1);
    CHECK(err(f.store.remove(f.writer, "out/a").error) == "none");
    CHECK(err(f.store.remove(f.writer, "out/a").error) == "not_found");
    CHECK(f.paths("") == std::vector<std::string>{"other/c", "out/b"});
}

TEST_CASE("rename is atomic and refuses an existing target, and copy then delete moves",
          "[object_store]") {
    ObjectStoreFixture f;
    f.store.put(f.writer, "tmp/part-0", "x");
    f.store.put(f.writer, "out/taken", "y");
    CHECK(err(f.store.rename(f.writer, "tmp/part-0", "out/taken").error) == "already_exists");
    CHECK(err(f.store.rename(f.writer, "tmp/part-0", "out/part-0").error) == "none");
    CHECK(err(f.store.rename(f.writer, "tmp/part-0", "out/part-0").error) ==
          "not_found");  // a replay
    CHECK(f.store.peek("out/part-0") == "x");
    CHECK(!f.store.peek("tmp/part-0"));
    CHECK(err(f.store.copy(f.writer, "out/part-0", "final/p").error) == "none");
    CHECK(err(f.store.remove(f.writer, "out/part-0").error) == "none");
    CHECK(f.paths("") == std::vector<std::string>{"final/p", "out/taken"});
}

TEST_CASE("a multipart upload is invisible until completed, then appears whole in part order",
          "[object_store]") {
    ObjectStoreFixture f;
    const ObjectResult init = f.store.initiate_upload(f.writer, "out/file");
    REQUIRE(err(init.error) == "none");
    const int64_t id = init.upload_id;
    f.store.upload_part(f.writer, id, 2, "world");
    f.store.upload_part(f.writer, id, 1, "hello ");
    CHECK(err(f.store.get(f.writer, "out/file").error) == "not_found");
    CHECK(f.paths("out/").empty());
    CHECK(f.store.open_uploads() == std::vector<int64_t>{id});
    f.store.upload_part(f.writer, id, 2, "there");  // a part sent again replaces it
    f.world.scheduler().crash(f.writer);            // the upload survives its uploader
    f.world.scheduler().restart(f.writer);
    CHECK(err(f.store.complete_upload(f.writer, id).error) == "none");
    CHECK(f.store.get(f.writer, "out/file").bytes == "hello there");
    CHECK(f.store.open_uploads().empty());
    CHECK(err(f.store.complete_upload(f.writer, id).error) == "no_such_upload");
}

TEST_CASE("a multipart upload aborted leaves nothing", "[object_store]") {
    ObjectStoreFixture f;
    const int64_t id = f.store.initiate_upload(f.writer, "out/file").upload_id;
    f.store.upload_part(f.writer, id, 1, "data");
    CHECK(err(f.store.abort_upload(f.writer, id).error) == "none");
    CHECK(f.store.objects().empty());
    CHECK(f.store.open_uploads().empty());
    CHECK(err(f.store.complete_upload(f.writer, id).error) == "no_such_upload");
    CHECK(err(f.store.upload_part(f.writer, id, 2, "late").error) == "no_such_upload");
    CHECK(f.store.objects().empty());
    const int64_t empty = f.store.initiate_upload(f.writer, "out/empty").upload_id;
    CHECK(err(f.store.complete_upload(f.writer, empty).error) == "invalid_part");
}

TEST_CASE(
    "object calls fail from a down or partitioned caller, while unavailable or under write errors, "
    "and write nothing",
    "[object_store]") {
    ObjectStoreFixture f;
    const int64_t id = f.store.initiate_upload(f.writer, "out/file").upload_id;
    f.store.upload_part(f.writer, id, 1, "data");
    SECTION("caller down") {
        f.world.scheduler().crash(f.writer);
        CHECK(err(f.store.put(f.writer, "a", "1").error) == "unavailable");
        CHECK(err(f.store.complete_upload(f.writer, id).error) == "unavailable");
    }
    SECTION("partitioned") {
        f.world.network().partition({f.writer}, {f.store_node}, false);
        CHECK(err(f.store.put(f.writer, "a", "1").error) == "unavailable");
        CHECK(err(f.store.list(f.writer, "").error) == "unavailable");
    }
    SECTION("unavailable") {
        f.store.set_unavailable_until(Time::zero() + Duration::seconds(1));
        CHECK(err(f.store.complete_upload(f.writer, id).error) == "unavailable");
    }
    SECTION("write errors: reads answer") {
        f.store.set_write_errors_until(Time::zero() + Duration::seconds(1));
        CHECK(err(f.store.put(f.writer, "a", "1").error) == "write_failed");
        CHECK(err(f.store.complete_upload(f.writer, id).error) == "write_failed");
        CHECK(err(f.store.list(f.writer, "").error) == "none");
    }
    CHECK(f.store.objects().empty());
    CHECK(f.store.open_uploads() == std::vector<int64_t>{id});
}
