// The sink kind as the harness sees it: registered under its name (by the EOSIM_REGISTER_SINK
// linked into this program), strict about its options, and read back as a table of latest values.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <eosim/engine/connectors/sink_registry.h>

#include "hello_sink.h"

TEST_CASE(
    "hello_upsert is registered, refuses unknown options and reads as a table of latest values") {
    const eosim::engine::SinkKind* kind =
        eosim::engine::SinkRegistry::global().find("hello_upsert");
    REQUIRE(kind != nullptr);

    struct NoWorld final : eosim::engine::SinkWorld {
        std::vector<std::string> topics() const override { return {}; }
        std::vector<std::string> source_topics() const override { return {}; }
        bool has_system(const std::string&) const override { return true; }
    } world;
    eosim::engine::SinkOptions empty(nlohmann::json::object());
    auto config = kind->configure(empty, "out", world);
    REQUIRE(config != nullptr);
    CHECK(config->output_shape() == eosim::engine::SinkOutputShape::keyed_table);

    eosim::engine::SinkOptions bad(nlohmann::json{{"colour", "blue"}});
    CHECK_THROWS_AS(kind->configure(bad, "out", world), eosim::engine::SinkOptionsError);

    // A replay writes 1->10 again after 1->11: the table still ends at the last write.
    const std::vector<eosim::engine::Record> appended{{1, 10}, {2, 5}, {1, 11}, {1, 10}, {1, 11}};
    CHECK(hello::latest_per_key(appended) == std::vector<eosim::engine::Record>{{1, 11}, {2, 5}});
}
