// The server's dialect from its GET /version answer: torcrun's object, Torc's bare string
// (v0.10 to v0.12) and object (API 0.23 on), and what no version can be read from.
#include "torcrun/common/server_dialect.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace bdata = boost::unit_test::data;
namespace api = torcrun::api;

namespace {

struct dialect_case {
    unsigned status;
    std::string body;
    api::server_kind kind;
    api::torc_contract contract;
    std::string described;
};
std::ostream& operator<<(std::ostream& os, dialect_case const& c)
{
    return os << c.status << " " << c.body;
}

using k = api::server_kind;
using c = api::torc_contract;
std::string const unknown =
    "an unknown server (no usable GET /version answer; spoken to as Torc v0.10)";

std::vector<dialect_case> const cases = {
    {200, R"({"version":"0.1.0","api_version":"0.23.0","server":"torcrun"})", k::torcrun, c::v0_23,
     "torcrun server 0.1.0"},
    {200, R"x("0.10.0 (03cbebb)")x", k::torc, c::v0_10,
     "Torc server 0.10.0 (03cbebb) (contract v0.10)"},
    {200, R"x("v0.12.0 (ffb4ba8-dirty)")x", k::torc, c::v0_10,
     "Torc server v0.12.0 (ffb4ba8-dirty) (contract v0.10)"},
    {200, R"({"version":"0.25.1","api_version":"0.23.0","git_hash":"f3757af"})", k::torc, c::v0_23,
     "Torc server 0.25.1 (contract 0.23)"},
    {200, R"({"version":"0.30.3","api_version":"0.30.0"})", k::torc, c::v0_23,
     "Torc server 0.30.3 (contract 0.23)"},
    {200, R"({"version":"0.17.0","api_version":"0.17.0"})", k::torc, c::v0_10,
     "Torc server 0.17.0 (contract v0.10)"},
    {200, R"({"version":"1.2.0"})", k::torc, c::v0_23, "Torc server 1.2.0 (contract 0.23)"},
    {404, R"({"message":"not found"})", k::unknown, c::v0_10, unknown},
    {200, "not json", k::unknown, c::v0_10, unknown},
    {200, "[1]", k::unknown, c::v0_10, unknown},
    {200, R"({"status":"ok"})", k::unknown, c::v0_10, unknown},
    {200, R"({"version":"x.y"})", k::torc, c::v0_10, "Torc server x.y (contract v0.10)"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(server_dialect)

BOOST_DATA_TEST_CASE(read_from_the_version_answer, bdata::make(cases), sample)
{
    auto const d = api::dialect_of_version(sample.status, sample.body);
    BOOST_TEST((d.kind == sample.kind));
    BOOST_TEST((d.contract == sample.contract));
    BOOST_TEST(api::describe(d) == sample.described);
    BOOST_TEST(api::has_torcrun_extensions(d) == (sample.kind == k::torcrun));
}

BOOST_AUTO_TEST_SUITE_END()
