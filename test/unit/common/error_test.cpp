#include "torcrun/common/error.hpp"

#include <boost/test/unit_test.hpp>

namespace core = torcrun::core;

BOOST_AUTO_TEST_SUITE(error_value)

BOOST_AUTO_TEST_CASE(value_of_an_error_throws_its_message)
{
    core::result<int> const r = core::error{"memory: bad value \"x\""};
    BOOST_TEST(!r.has_value());
    BOOST_CHECK_EXCEPTION(r.value(), core::error_exception, [](core::error_exception const& e) {
        return std::string(e.what()) == "memory: bad value \"x\"";
    });
}

BOOST_AUTO_TEST_SUITE_END()
