#pragma once
// rc::prop with a chosen default number of cases (rapidcheck's own default is 100; whole engine
// runs or RocksDB instances per case want fewer), unless RC_PARAMS names max_success. A failure
// reports rapidcheck's shrunk counterexample through Catch2.
#include <rapidcheck.h>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <sstream>
#include <string>

namespace eosim::testing {

template <typename Testable>
void prop_with_cases(const std::string& description, int cases, Testable&& testable) {
    SECTION(description) {
        rc::detail::TestParams params = rc::detail::configuration().testParams;
        const char* env = std::getenv("RC_PARAMS");
        if (env == nullptr || std::string(env).find("max_success") == std::string::npos)
            params.maxSuccess = cases;
        rc::detail::TestMetadata metadata;
        metadata.id = description;
        metadata.description = description;
        const auto result =
            rc::detail::checkTestable(std::forward<Testable>(testable), metadata, params);
        if (!result.template is<rc::detail::SuccessResult>()) {
            std::ostringstream message;
            rc::detail::printResultMessage(result, message);
            INFO(message.str());
            FAIL();
        }
    }
}

}  // namespace eosim::testing
