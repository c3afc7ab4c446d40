// The claim endpoints through server_api: per-node resource filtering with multi-node jobs, sort
// methods (query and workflow), time limits, scheduler matching, limits; the claimed jobs' JSON;
// canceled workflows; long polls; 10,000 ready jobs among 50 interleaved claimers; and every
// refusal verbatim with nothing changed.
#include "lifecycle_fixture.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>

#include <set>

namespace api = torcrun::api;
namespace bdata = boost::unit_test::data;
using torcrun::test::lifecycle_fixture;
using torcrun::test::node_body;
using torcrun::test::query;

BOOST_AUTO_TEST_SUITE(claims)

struct spec_job {
    std::string name;
    std::string requirements;  // resource_requirements fields beyond workflow_id and name
    std::string extra;         // job fields
};

struct claim_case {
    std::string name;
    std::vector<spec_job> jobs;
    std::string body;  // ComputeNodesResources
    query q;
    std::int64_t limit;
    std::vector<std::string> claimed;  // names, in answer order
};
std::ostream& operator<<(std::ostream& os, claim_case const& c) { return os << c.name; }

std::vector<claim_case> const claim_cases{
    {"cpus accumulate per node",
     {{"a", R"("num_cpus":4)", ""}, {"b", R"("num_cpus":4)", ""}, {"c", R"("num_cpus":4)", ""}},
     node_body(8, 16, 0, 1),
     {},
     10,
     {"a", "b"}},
    {"the limit cuts first",
     {{"a", R"("num_cpus":1)", ""}, {"b", R"("num_cpus":1)", ""}},
     node_body(8, 16, 0, 1),
     {},
     1,
     {"a"}},
    {"gpu jobs first by default",
     {{"cpu", R"("num_cpus":1)", ""}, {"gpu", R"("num_cpus":1,"num_gpus":1)", ""}},
     node_body(8, 16, 1, 1),
     {},
     10,
     {"gpu", "cpu"}},
    {"a gpu job needs gpus",
     {{"cpu", R"("num_cpus":1)", ""}, {"gpu", R"("num_gpus":1)", ""}},
     node_body(8, 16, 0, 1),
     {},
     10,
     {"cpu"}},
    {"runtime before memory",
     {{"big", R"("memory":"4g","runtime":"PT1H")", ""},
      {"long", R"("memory":"1g","runtime":"PT2H")", ""}},
     node_body(8, 16, 0, 1),
     {},
     10,
     {"long", "big"}},
    {"memory before runtime",
     {{"long", R"("memory":"1g","runtime":"PT2H")", ""},
      {"big", R"("memory":"4g","runtime":"PT1H")", ""}},
     node_body(8, 16, 0, 1),
     {{"sort_method", "gpus_memory_runtime"}},
     10,
     {"big", "long"}},
    {"none keeps id order",
     {{"small", R"("memory":"1g")", ""}, {"big", R"("memory":"4g")", ""}},
     node_body(8, 16, 0, 1),
     {{"sort_method", "none"}},
     10,
     {"small", "big"}},
    {"memory is per node",
     {{"fits", R"("memory":"1g")", ""}, {"too_big", R"("memory":"2g")", ""}},
     node_body(8, 1.5, 0, 1),
     {},
     10,
     {"fits"}},
    {"a multi-node job takes nodes, its cpus once",
     {{"mpi", R"("num_cpus":4,"num_nodes":2)", ""}, {"single", R"("num_cpus":4)", ""}},
     node_body(8, 16, 0, 2),
     {},
     10,
     {"mpi", "single"}},
    {"a multi-node job needs the nodes",
     {{"mpi", R"("num_cpus":4,"num_nodes":2)", ""}, {"single", R"("num_cpus":4)", ""}},
     node_body(8, 16, 0, 1),
     {},
     10,
     {"single"}},
    {"two multi-node jobs share the nodes",
     {{"mpi1", R"("num_nodes":2)", ""},
      {"mpi2", R"("num_nodes":2)", ""},
      {"mpi3", R"("num_nodes":2)", ""}},
     node_body(8, 16, 0, 4),
     {},
     10,
     {"mpi1", "mpi2"}},
    {"runtime within the time limit",
     {{"short", R"("runtime":"PT30M")", ""}, {"long", R"("runtime":"PT2H")", ""}},
     node_body(8, 16, 0, 1, R"(,"time_limit":"PT1H")"),
     {},
     10,
     {"short"}},
    {"no time limit is unlimited",
     {{"short", R"("runtime":"PT30M")", ""}, {"long", R"("runtime":"P2D")", ""}},
     node_body(8, 16, 0, 1),
     {},
     10,
     {"long", "short"}},
    {"the scheduler's jobs and jobs for any",
     {{"mine", "", R"("scheduler_id":3)"}, {"any", "", ""}, {"theirs", "", R"("scheduler_id":4)"}},
     node_body(8, 16, 0, 1, R"(,"scheduler_config_id":3)"),
     {},
     10,
     {"mine", "any"}},
    {"other schedulers' jobs when none match",
     {{"theirs", "", R"("scheduler_id":4)"}},
     node_body(8, 16, 0, 1, R"(,"scheduler_config_id":3)"),
     {},
     10,
     {"theirs"}},
    {"strict matching never falls back",
     {{"theirs", "", R"("scheduler_id":4)"}},
     node_body(8, 16, 0, 1, R"(,"scheduler_config_id":3)"),
     {{"strict_scheduler_match", "true"}},
     10,
     {}},
    {"a limit of zero claims nothing", {{"a", "", ""}}, node_body(8, 16, 0, 1), {}, 0, {}},
};

BOOST_DATA_TEST_CASE_F(lifecycle_fixture, by_resources, bdata::make(claim_cases), c)
{
    for (auto const& j : c.jobs) {
        auto rr = ok("POST", "/resource_requirements",
                     R"({"workflow_id":1,"name":")" + j.name + "\"" +
                         (j.requirements.empty() ? "" : ",") + j.requirements + "}");
        job(j.name, R"("resource_requirements_id":)" + std::to_string(rr.at("id").as_int64()) +
                        (j.extra.empty() ? "" : ",") + j.extra);
    }
    initialize();
    auto out = ok("POST", "/workflows/1/claim_jobs_based_on_resources/" + std::to_string(c.limit),
                  c.body, c.q);
    BOOST_TEST(out.as_object().size() == 1u);  // no "reason" unless canceled
    std::vector<std::string> names;
    for (auto const& j : out.at("jobs").as_array()) {
        names.push_back(std::string(j.at("name").as_string()));
        BOOST_TEST(j.at("status").as_string() == "pending");
        torcrun::test::check_shape(api::job_model, j);
    }
    BOOST_TEST(names == c.claimed);
    BOOST_TEST(scalar("SELECT COUNT(*) FROM job WHERE status = 3") ==
               static_cast<std::int64_t>(c.claimed.size()));
}

BOOST_FIXTURE_TEST_CASE(the_workflow_sort_method_applies, lifecycle_fixture)
{
    ok("POST", "/workflows",
       R"({"name":"m","user":"me","jobs_sort_method":"gpus_memory_runtime"})");
    for (auto [name, rr] : {std::pair{"long", R"("memory":"1g","runtime":"PT2H")"},
                            std::pair{"big", R"("memory":"4g","runtime":"PT1H")"}}) {
        auto r = ok("POST", "/resource_requirements",
                    R"({"workflow_id":2,"name":")" + std::string(name) + R"(",)" + rr + "}");
        job(name, R"("resource_requirements_id":)" + std::to_string(r.at("id").as_int64()), 2);
    }
    initialize(2);
    auto out = ok("POST", "/workflows/2/claim_jobs_based_on_resources/5", node_body(8, 16, 0, 1));
    BOOST_TEST(out.at("jobs").at(0).at("name").as_string() == "big");
}

BOOST_FIXTURE_TEST_CASE(claimed_jobs_carry_what_the_runner_needs, lifecycle_fixture)
{
    ok("POST", "/files", R"({"workflow_id":1,"name":"o","path":"/o"})");
    ok("POST", "/user_data", R"({"workflow_id":1,"name":"u"})");
    job("a",
        R"("invocation_script":"module load x","output_file_ids":[1],"output_user_data_ids":[1])");
    auto const cn = node();
    initialize();
    auto out = ok("POST", "/workflows/1/claim_next_jobs", "null",
                  {{"compute_node_id", std::to_string(cn)}});
    BOOST_TEST(boost::json::serialize(out) ==
               R"({"jobs":[{"id":1,"workflow_id":1,"name":"a","command":"run a",)"
               R"("invocation_script":"module load x","status":"pending",)"
               R"("cancel_on_blocking_job_failure":true,"supports_termination":false,)"
               R"("depends_on_job_ids":[],"input_file_ids":[],"output_file_ids":[1],)"
               R"("input_user_data_ids":[],"output_user_data_ids":[1],)"
               R"("resource_requirements_id":1,"attempt_id":1,"priority":0,)"
               R"("compute_node_id":1}]})");  // the claimant holds it
    BOOST_TEST(scalar("SELECT active_compute_node_id FROM job WHERE id = 1") == cn);
}

BOOST_FIXTURE_TEST_CASE(claim_next_jobs_limits, lifecycle_fixture)
{
    for (int i = 0; i < 12; ++i) job("j" + std::to_string(i));
    initialize();
    BOOST_TEST(claim_next(3).size() == 3u);
    BOOST_TEST(ids_of(ok("POST", "/workflows/1/claim_next_jobs")).size() == 9u);  // default 10
    BOOST_TEST(claim_next(5).empty());
}

// Labels (extension): the job keeps and returns its label; a claim naming a label takes only that
// label's jobs, a claim naming none only unlabelled jobs, on both claim endpoints.
BOOST_FIXTURE_TEST_CASE(claims_keep_to_their_label, lifecycle_fixture)
{
    auto const plain = job("plain");
    auto const gpu = job("gpu", R"("label":"gpu")");
    auto const big = job("big", R"("label":"big")");
    BOOST_TEST(ok("GET", "/jobs/" + std::to_string(gpu)).at("label").as_string() == "gpu");
    BOOST_TEST(!ok("GET", "/jobs/" + std::to_string(plain)).as_object().contains("label"));
    auto const listed = [&](query q) {
        q.push_back({"workflow_id", "1"});
        std::vector<std::int64_t> out;
        auto const page = ok("GET", "/jobs", "", q);
        for (auto const& j : page.at("items").as_array()) out.push_back(j.at("id").as_int64());
        return out;
    };
    BOOST_TEST((listed({{"label", "gpu"}}) == std::vector<std::int64_t>{gpu}));
    BOOST_TEST((listed({{"has_label", "false"}}) == std::vector<std::int64_t>{plain}));
    BOOST_TEST((listed({{"has_label", "true"}}) == std::vector<std::int64_t>{gpu, big}));
    initialize();
    auto const path = std::string("/workflows/1/claim_jobs_based_on_resources/10");
    BOOST_TEST(ids_of(ok("POST", path, node_body(8, 16, 0, 1), {{"label", "nobody"}})).empty());
    BOOST_TEST((ids_of(ok("POST", path, node_body(8, 16, 0, 1), {{"label", "gpu"}})) ==
                std::vector<std::int64_t>{gpu}));
    BOOST_TEST((ids_of(ok("POST", path, node_body(8, 16, 0, 1))) ==
                std::vector<std::int64_t>{plain}));
    BOOST_TEST(claim_next(10).empty());
    BOOST_TEST((ids_of(ok("POST", "/workflows/1/claim_next_jobs", "", {{"label", "big"}})) ==
                std::vector<std::int64_t>{big}));
    BOOST_TEST(fails(400, "POST", "/workflows/1/claim_next_jobs", "", {{"label", ""}}) ==
               "claim_next_jobs: query parameter \"label\" must have 1 to 128 bytes (leave it "
               "out to claim unlabelled jobs)");
}

BOOST_FIXTURE_TEST_CASE(a_canceled_workflow_says_so, lifecycle_fixture)
{
    job("a");
    initialize();
    ok("PUT", "/workflows/1/cancel");
    auto const answer = R"({"jobs":[],"reason":"Workflow is canceled"})";
    BOOST_TEST(call("POST", "/workflows/1/claim_next_jobs", "", {{"wait_seconds", "10"}}).body ==
               answer);
    BOOST_TEST(
        call("POST", "/workflows/1/claim_jobs_based_on_resources/5", node_body(8, 16, 0, 1)).body ==
        answer);
    BOOST_TEST(status(1) == "ready");
}

struct long_poll_fixture : lifecycle_fixture {
    api::outcome claim(std::string wait, bool may_wait = true)
    {
        api::request req;
        req.method = "POST";
        req.path = "/workflows/1/claim_next_jobs";
        req.query.emplace("wait_seconds", std::move(wait));
        req.may_wait = may_wait;
        return server.handle(req);
    }
};

BOOST_FIXTURE_TEST_CASE(long_poll, long_poll_fixture)
{
    auto const a = job("a");
    auto const b = job("b", R"("depends_on_job_ids":[1])");
    auto const cn = node();
    initialize();
    BOOST_TEST((claim_next(5) == std::vector<std::int64_t>{a}));
    // Nothing claimable: park, for at most the server's limit.
    auto parked = claim("100");
    BOOST_TEST_REQUIRE(std::holds_alternative<api::wait_for_workflow>(parked));
    BOOST_TEST(std::get<api::wait_for_workflow>(parked).workflow_id == 1);
    BOOST_TEST(std::get<api::wait_for_workflow>(parked).seconds == 30.0);
    BOOST_TEST(std::get<api::wait_for_workflow>(claim("2.5")).seconds == 2.5);
    // The wait ran out: an empty claim.
    auto timed_out = claim("30", false);
    BOOST_TEST(std::get<api::response>(timed_out).body == R"({"jobs":[]})");
    // Without wait_seconds the answer is immediate.
    BOOST_TEST(claim_next(5).empty());
    // A completion that makes b ready wakes the parked claim, which then gets b.
    start(a, cn);
    notified.clear();
    complete(a, "completed", cn);
    BOOST_TEST((notified == std::vector<std::int64_t>{1}));
    auto woken = claim("30");
    BOOST_TEST_REQUIRE(std::holds_alternative<api::response>(woken));
    BOOST_TEST(ids_of(boost::json::parse(std::get<api::response>(woken).body)) ==
               std::vector<std::int64_t>{b});
}

// Once every job finished nothing can become claimable: the last completion wakes parked claims
// and a claim is answered at once, so a long-polling worker learns it is done without waiting out
// its poll (torcrun run ended 30 s after its last job before).
BOOST_FIXTURE_TEST_CASE(a_finished_workflow_answers_claims_at_once, long_poll_fixture)
{
    auto const a = job("a");
    auto const b = job("b");
    auto const cn = node();
    initialize();
    BOOST_TEST((claim_next(5) == std::vector<std::int64_t>{a, b}));
    BOOST_TEST(std::holds_alternative<api::wait_for_workflow>(claim("30")));  // a, b running
    start(a, cn);
    start(b, cn);
    notified.clear();
    complete(a, "completed", cn);
    BOOST_TEST(notified.empty());  // b still runs: nothing to wake
    BOOST_TEST(std::holds_alternative<api::wait_for_workflow>(claim("30")));
    complete(b, "failed", cn);
    BOOST_TEST((notified == std::vector<std::int64_t>{1}));
    auto answer = claim("30");
    BOOST_TEST_REQUIRE(std::holds_alternative<api::response>(answer));
    BOOST_TEST(std::get<api::response>(answer).body == R"({"jobs":[]})");
}

BOOST_FIXTURE_TEST_CASE(fifty_claimers_share_ten_thousand_jobs, lifecycle_fixture)
{
    constexpr int job_count = 10000, claimers = 50;
    std::string body = R"({"jobs":[)";
    for (int i = 0; i < job_count; ++i) {
        body += std::string(i == 0 ? "" : ",") + R"({"workflow_id":1,"name":"j)" +
                std::to_string(i) + R"(","command":"c"})";
    }
    ok("POST", "/bulk_jobs", body + "]}");
    initialize();
    std::vector<std::int64_t> nodes;
    for (int i = 0; i < claimers; ++i) nodes.push_back(node());
    std::map<std::int64_t, std::int64_t> owner;  // job -> claimant
    std::size_t claims = 0;
    for (bool any = true; any;) {
        any = false;
        for (int c = 0; c < claimers; ++c) {
            query q{{"compute_node_id", std::to_string(nodes[c])}};
            boost::json::value out;
            if (c % 2 == 0) {
                q.emplace_back("limit", std::to_string(1 + c % 13));
                out = ok("POST", "/workflows/1/claim_next_jobs", "", q);
            } else {
                out = ok("POST", "/workflows/1/claim_jobs_based_on_resources/" + std::to_string(c),
                         node_body(8, 16, 0, 1), q);
            }
            ++claims;
            for (auto id : ids_of(out)) {
                BOOST_TEST_REQUIRE(owner.emplace(id, nodes[c]).second, "job " << id << " twice");
                any = true;
            }
        }
    }
    BOOST_TEST(owner.size() == static_cast<std::size_t>(job_count));
    BOOST_TEST(scalar("SELECT COUNT(*) FROM job WHERE status = 3") == job_count);
    std::int64_t mismatched = 0;
    auto stmt = db.db().prepare("SELECT id, active_compute_node_id FROM job").value();
    while (stmt.step().value()) mismatched += owner.at(stmt.int64(0)) != stmt.int64(1) ? 1 : 0;
    BOOST_TEST(mismatched == 0);
    BOOST_TEST_MESSAGE(claims << " claim requests");
}

BOOST_AUTO_TEST_SUITE_END()
