// sim::Callback: small captures inline, large ones on the heap; moves keep exactly one live copy
// of the callable and destroy it once; mutable callables keep their state between calls.
#include <catch2/catch.hpp>

#include <array>
#include <memory>
#include <string>
#include <utility>

#include "sim/callback.h"

namespace eosim::sim {
namespace {

// Counts live instances, so that a leak or a double destruction shows.
struct Counted {
    static inline int live = 0;
    int* calls;
    explicit Counted(int* c) : calls(c) { ++live; }
    Counted(const Counted& o) : calls(o.calls) { ++live; }
    Counted(Counted&& o) noexcept : calls(o.calls) { ++live; }
    ~Counted() { --live; }
    void operator()() const { ++*calls; }
};

template <size_t kPadding>
struct Padded : Counted {
    using Counted::Counted;
    std::array<char, kPadding> padding{};
};

TEMPLATE_TEST_CASE("callback: calls, moves and destroys the callable exactly once",
                   "[sim][callback]", Counted, Padded<Callback::kInlineBytes>) {
    int calls = 0;
    {
        Callback a = TestType(&calls);
        CHECK(static_cast<bool>(a));
        CHECK(Counted::live == 1);
        a();
        Callback b = std::move(a);
        CHECK_FALSE(static_cast<bool>(a));
        CHECK(Counted::live == 1);
        b();
        Callback c;
        c = std::move(b);
        c();
        CHECK(Counted::live == 1);
        c = nullptr;
        CHECK_FALSE(static_cast<bool>(c));
        CHECK(Counted::live == 0);
        c = TestType(&calls);
        CHECK(Counted::live == 1);
    }
    CHECK(Counted::live == 0);
    CHECK(calls == 3);
}

TEST_CASE("callback: move-only and mutable captures", "[sim][callback]") {
    auto owned = std::make_unique<std::string>("x");
    std::string* seen = nullptr;
    Callback f = [owned = std::move(owned), &seen]() mutable {
        *owned += "y";
        seen = owned.get();
    };
    f();
    f();
    REQUIRE(seen != nullptr);
    CHECK(*seen == "xyy");
}

}  // namespace
}  // namespace eosim::sim
