// What a client shows of a refused request: the message of either error body form, else the
// body itself, trimmed and cut at 300 characters.
#include "torcrun/common/server_message.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace bdata = boost::unit_test::data;
namespace api = torcrun::api;

namespace {

struct message_case {
    std::string body;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, message_case const& c)
{
    return os << c.body;
}

std::vector<message_case> const messages = {
    {R"({"message":"jobs: no job 7"})", "jobs: no job 7"},
    {R"({"error":{"message":"workflows: bad"}})", "workflows: bad"},
    {R"({"message":"top","error":{"message":"nested"}})", "top"},
    {R"({"message":3})", R"({"message":3})"},
    {"  An internal error occurred\n", "An internal error occurred"},
    {"", ""},
    {std::string(301, 'x'), std::string(300, 'x') + "..."},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(server_message)

BOOST_DATA_TEST_CASE(server_messages, bdata::make(messages), c)
{
    BOOST_TEST(api::server_message(c.body) == c.message);
}

BOOST_AUTO_TEST_SUITE_END()
