#define BOOST_TEST_MODULE torcrun_io_tests
#include <boost/test/unit_test.hpp>
