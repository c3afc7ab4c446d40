#define BOOST_TEST_MODULE torcrun_unit_tests
#include <boost/test/unit_test.hpp>
