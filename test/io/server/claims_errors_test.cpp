// Refusals of the claim endpoints through server_api: bad bodies, query parameters and
// claimants, each status and message verbatim, with nothing changed and nobody woken.
#include "lifecycle_fixture.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>

namespace bdata = boost::unit_test::data;
using torcrun::test::lifecycle_fixture;
using torcrun::test::node_body;
using torcrun::test::query;

BOOST_AUTO_TEST_SUITE(claims_errors)

struct claim_refusal {
    std::string path;
    std::string body;
    query q;
    unsigned status;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, claim_refusal const& c) { return os << c.path; }

std::string const resources_path = "/workflows/1/claim_jobs_based_on_resources/5";
std::vector<claim_refusal> const claim_refusals{
    {"/workflows/9/claim_next_jobs", "", {}, 404, "claim_next_jobs: no workflow with id 9"},
    {"/workflows/9/claim_jobs_based_on_resources/5",
     node_body(1, 1, 0, 1),
     {},
     404,
     "claim_jobs_based_on_resources: no workflow with id 9"},
    {resources_path,
     R"({"num_cpus":1,"num_gpus":0,"num_nodes":1})",
     {},
     422,
     R"(claim_jobs_based_on_resources: field "memory_gb": required field is missing)"},
    {resources_path,
     node_body(1, 1, 0, 1, R"(,"time_limit":"1 hour")"),
     {},
     422,
     R"(claim_jobs_based_on_resources: field "time_limit": duration: "1 hour" does not start with P (e.g. PT30M, P1DT12H))"},
    {resources_path,
     node_body(1, 1, 0, 1),
     {{"sort_method", "fastest"}},
     400,
     R"(claim_jobs_based_on_resources: query parameter "sort_method": jobs_sort_method: "fastest" is not one of gpus_runtime_memory, gpus_memory_runtime or none)"},
    {resources_path,
     node_body(1, 1, 0, 1),
     {{"strict_scheduler_match", "yes"}},
     400,
     R"(claim_jobs_based_on_resources: query parameter "strict_scheduler_match": "yes" is not true or false)"},
    {"/workflows/1/claim_next_jobs",
     "",
     {{"wait_seconds", "-1"}},
     400,
     R"(claim_next_jobs: query parameter "wait_seconds": "-1" is not a number of seconds (0 or more))"},
    {"/workflows/1/claim_next_jobs",
     "",
     {{"wait_seconds", "soon"}},
     400,
     R"(claim_next_jobs: query parameter "wait_seconds": "soon" is not a number of seconds (0 or more))"},
    {"/workflows/1/claim_next_jobs",
     "",
     {{"limit", "many"}},
     400,
     R"(claim_next_jobs: query parameter "limit": "many" is not an integer)"},
    {"/workflows/1/claim_next_jobs",
     "",
     {{"compute_node_id", "9"}},
     404,
     R"(claim_next_jobs: query parameter "compute_node_id": no compute_node with id 9)"},
    {"/workflows/1/claim_next_jobs",
     "",
     {{"compute_node_id", "2"}},
     422,
     R"(claim_next_jobs: query parameter "compute_node_id": compute_node 2 belongs to workflow 2, not 1)"},
    {"/workflows/1/claim_next_jobs",
     "",
     {{"compute_node_id", "3"}},
     409,
     "claim_next_jobs: compute node 3 is inactive (shut down, or its lease ran out and its jobs "
     "went back); register a new node"},
    {"/workflows/1/claim_next_jobs",
     "5",
     {},
     422,
     "claim_next_jobs: request body: expected an object or null, found an integer"},
};

// Workflow 1 with a ready job and node 1; workflow 2 with node 2; node 3 of workflow 1 inactive.
struct claim_refusal_fixture : lifecycle_fixture {
    claim_refusal_fixture()
    {
        job("a");
        node();
        workflow("other");
        node(2);
        auto const off = node();
        ok("PUT", "/compute_nodes/" + std::to_string(off),
           R"({"workflow_id":1,"hostname":"n1","pid":7,"start_time":"t","is_active":false,)"
           R"("num_cpus":8,"memory_gb":16,"num_gpus":0,"num_nodes":1,"compute_node_type":"local"})");
        initialize();
        notified.clear();
    }
};

BOOST_DATA_TEST_CASE_F(claim_refusal_fixture, refusals_change_nothing, bdata::make(claim_refusals),
                       c)
{
    auto const before = snapshot();
    BOOST_TEST(fails(c.status, "POST", c.path, c.body, c.q) == c.message);
    BOOST_TEST(snapshot() == before);
    BOOST_TEST(notified.empty());
}

BOOST_AUTO_TEST_SUITE_END()
