// The bounded candidate read of the claim endpoints: with hundreds of ready jobs spread over groups
// of equal resource requirements and scheduler, every claim hands out exactly what
// core::select_claim / select_next_jobs choose from all ready jobs as this test reads them (their
// priorities included), claim after claim until nothing is left; the read itself stays within `limit` jobs per group, and
// (the job table's read, the ready index's fallback) falls back to every ready job past 64 groups
// or when a key is not an integer.
#include "server/io/claim_candidates.hpp"
#include "lifecycle_fixture.hpp"

#include "torcrun/server/job_status.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>

namespace api = torcrun::api;
namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;
namespace detail = torcrun::io::detail;
using torcrun::test::lifecycle_fixture;
using torcrun::test::node_body;
using torcrun::test::query;

BOOST_AUTO_TEST_SUITE(claim_candidates)

namespace {

constexpr int job_count = 400;

struct bounded_fixture : lifecycle_fixture {
    // `groups` resource requirements (values repeat every 30, so groups tie on the sort key) and
    // job_count ready jobs spread over them and over schedulers none, 3 and 4.
    void ready_jobs(int groups)
    {
        std::vector<std::int64_t> rr;
        for (int k = 0; k < groups; ++k) {
            auto const v = k % 30;
            auto r = ok("POST", "/resource_requirements",
                        R"({"workflow_id":1,"name":"r)" + std::to_string(k) +
                            R"(","num_cpus":)" + std::to_string(1 + v % 4) +
                            R"(,"num_gpus":)" + std::to_string(v % 3 == 0 ? 1 : 0) +
                            R"(,"num_nodes":)" + std::to_string(v % 7 == 6 ? 2 : 1) +
                            R"(,"memory":")" + std::to_string(1 + v % 5) + R"(g","runtime":"PT)" +
                            std::to_string(10 + 7 * (v % 6)) + R"(M"})");
            rr.push_back(r.at("id").as_int64());
        }
        std::string body = R"({"jobs":[)";
        for (int i = 0; i < job_count; ++i) {
            auto const scheduler = (i / groups) % 3;
            body += std::string(i == 0 ? "" : ",") + R"({"workflow_id":1,"name":"j)" +
                    std::to_string(i) + R"(","command":"c","resource_requirements_id":)" +
                    std::to_string(rr[static_cast<std::size_t>((i * 7) % groups)]) +
                    (scheduler == 0 ? "" : R"(,"scheduler_id":)" + std::to_string(2 + scheduler)) +
                    "}";
        }
        ok("POST", "/bulk_jobs", body + "]}");
        initialize();
        BOOST_TEST_REQUIRE(ready_count() == job_count);
    }

    std::int64_t ready_count()
    {
        return scalar("SELECT COUNT(*) FROM job WHERE status = " +
                      std::to_string(core::to_int(core::job_status::ready)));
    }

    // Every ready job, read here independently of the server's query.
    std::vector<core::claim_candidate> all_ready()
    {
        auto stmt =
            db.db()
                .prepare("SELECT j.id, COALESCE(r.num_cpus, 1), COALESCE(r.num_gpus, 0), "
                         "COALESCE(r.num_nodes, 1), COALESCE(r.memory_bytes, 1048576), "
                         "COALESCE(r.runtime_s, 60), j.scheduler_id, j.priority FROM job j "
                         "LEFT JOIN resource_requirements r ON r.id = j.resource_requirements_id "
                         "WHERE j.workflow_id = 1 AND j.status = ?")
                .value();
        stmt.bind(1, std::int64_t{core::to_int(core::job_status::ready)});
        std::vector<core::claim_candidate> out;
        while (stmt.step().value()) {
            auto const u = [&](int c) { return static_cast<std::uint32_t>(stmt.int64(c)); };
            core::claim_candidate c{stmt.int64(0),
                                    {u(1), u(2), u(3), static_cast<std::uint64_t>(stmt.int64(4))},
                                    stmt.int64(5),
                                    std::nullopt,
                                    stmt.int64(7)};
            if (!stmt.is_null(6)) c.scheduler_id = stmt.int64(6);
            out.push_back(c);
        }
        return out;
    }
};

struct claim_scenario {
    std::string name;
    int groups;
    std::string setup;  // SQL run after the jobs are ready
    int cpus, gb, gpus, nodes;
    std::optional<std::int64_t> time_limit_seconds;
    std::optional<std::int64_t> scheduler;
    query q;
    core::claim_options options;
};
std::ostream& operator<<(std::ostream& os, claim_scenario const& s) { return os << s.name; }

using sort = core::jobs_sort_method;
std::vector<claim_scenario> const scenarios{
    {"one job per claim", 6, "", 8, 16, 1, 1, {}, 3, {}, {sort::gpus_runtime_memory, 1, false}},
    {"seven per claim, no sort", 6, "", 8, 16, 1, 2, {}, 4, {{"sort_method", "none"}},
     {sort::none, 7, false}},
    {"memory first, strict, time limit", 12, "", 6, 8, 2, 2, 1800, 3,
     {{"sort_method", "gpus_memory_runtime"}, {"strict_scheduler_match", "true"}},
     {sort::gpus_memory_runtime, 5, true}},
    {"no scheduler named", 12, "", 4, 4, 0, 1, {}, std::nullopt, {},
     {sort::gpus_runtime_memory, 3, false}},
    {"a limit beyond every group", 4, "", 64, 256, 8, 8, {}, 3, {},
     {sort::gpus_runtime_memory, 500, false}},
    {"jobs without requirements", 6,
     "UPDATE job SET resource_requirements_id = NULL WHERE id % 4 = 1", 8, 16, 1, 1, {}, 4, {},
     {sort::gpus_runtime_memory, 2, false}},
    {"more groups than the walk seeks", 90, "", 8, 16, 1, 2, {}, 3, {},
     {sort::gpus_runtime_memory, 3, false}},
    {"a scheduler id that is text", 6, "UPDATE job SET scheduler_id = 'x' WHERE id % 50 = 7", 8,
     16, 1, 1, {}, 3, {}, {sort::gpus_runtime_memory, 2, false}},
    // Priorities inside each group: the per-group read must return them in claim order.
    {"priorities within and across groups", 6, "UPDATE job SET priority = (id * 7) % 4", 8, 16,
     1, 1, {}, 3, {}, {sort::gpus_runtime_memory, 3, false}},
    {"priorities without a sort method", 12, "UPDATE job SET priority = id % 5 WHERE id % 3 = 0",
     8, 16, 1, 2, {}, 4, {{"sort_method", "none"}}, {sort::none, 4, false}},
    {"priorities past the group walk", 90, "UPDATE job SET priority = id % 2", 8, 16, 1, 2, {},
     3, {}, {sort::gpus_runtime_memory, 3, false}},
};

}  // namespace

BOOST_DATA_TEST_CASE_F(bounded_fixture, claims_equal_the_unbounded_selection,
                       bdata::make(scenarios), s)
{
    ready_jobs(s.groups);
    if (!s.setup.empty()) BOOST_TEST_REQUIRE(db.db().exec(s.setup).has_value());
    std::string more = s.scheduler ? R"(,"scheduler_config_id":)" + std::to_string(*s.scheduler)
                                   : std::string();
    if (s.time_limit_seconds)
        more += R"(,"time_limit":"PT)" + std::to_string(*s.time_limit_seconds) + R"(S")";
    core::claim_request const request{static_cast<std::uint32_t>(s.cpus),
                                      core::claim_memory_bytes(s.gb),
                                      static_cast<std::uint32_t>(s.gpus),
                                      static_cast<std::uint32_t>(s.nodes),
                                      s.time_limit_seconds,
                                      s.scheduler};
    auto const path = "/workflows/1/claim_jobs_based_on_resources/" +
                      std::to_string(s.options.limit);
    std::size_t claimed = 0;
    int rounds = 0;
    for (int round = 0; round < job_count; ++round) {
        auto const expected = core::select_claim(all_ready(), request, s.options);
        auto const got = ids_of(ok("POST", path, node_body(s.cpus, s.gb, s.gpus, s.nodes, more),
                                   s.q));
        BOOST_TEST_REQUIRE(got == expected, "round " << round);
        if (got.empty()) break;
        claimed += got.size();
        ++rounds;
    }
    BOOST_TEST_MESSAGE(s.name << ": " << rounds << " claims, " << claimed << " jobs");
    BOOST_TEST(claimed > 0u);
    BOOST_TEST(ready_count() == static_cast<std::int64_t>(job_count - claimed));
}

BOOST_FIXTURE_TEST_CASE(claim_next_equals_the_unbounded_selection, bounded_fixture)
{
    ready_jobs(5);
    BOOST_TEST_REQUIRE(db.db().exec("UPDATE job SET priority = (id * 5) % 3").has_value());
    for (std::int64_t limit : {1, 3, 0, 10, 40, 1000, 5}) {
        std::vector<core::next_candidate> ready;
        for (auto const& c : all_ready()) ready.push_back({c.job_id, c.priority});
        BOOST_TEST(claim_next(limit) == core::select_next_jobs(ready, limit), "limit " << limit);
    }
    BOOST_TEST(ready_count() == 0);
}

// The read itself: `limit` jobs of each group, the lowest ids; every ready job past 64 groups.
BOOST_FIXTURE_TEST_CASE(the_read_is_bounded_per_group, bounded_fixture)
{
    ready_jobs(6);
    auto const all = all_ready();
    auto const some = detail::claim_candidates(db, 1, 2, std::nullopt, "claim").value();
    BOOST_TEST(some.size() == 36u);  // 6 requirements x 3 schedulers x 2
    for (auto const& c : some) {
        auto const same_group_below = std::count_if(all.begin(), all.end(), [&](auto const& o) {
            return o.need == c.need && o.scheduler_id == c.scheduler_id && o.job_id < c.job_id;
        });
        BOOST_TEST(same_group_below < 2, "job " << c.job_id);
    }
    BOOST_TEST(detail::claim_candidates(db, 1, 0, std::nullopt, "claim").value().empty());
    BOOST_TEST(detail::claim_candidates(db, 1, 1000, std::nullopt, "claim").value().size() ==
               all.size());
    auto const next = detail::next_candidates(db, 1, 3, std::nullopt, "claim").value();
    BOOST_TEST_REQUIRE(next.size() == 3u);
    BOOST_TEST(next[2].job_id == 3);
    BOOST_TEST(detail::next_candidates(db, 1, -1, std::nullopt, "claim").value().empty());
}

// Labels: a labelled read sees only its label's jobs, an unlabelled one only jobs without a label,
// through the group walk, its fallback and the next_jobs read alike.
BOOST_DATA_TEST_CASE_F(bounded_fixture, each_read_keeps_to_the_claims_label,
                       bdata::make({6, 90}), groups)
{
    ready_jobs(groups);
    BOOST_TEST_REQUIRE(db.db().exec("UPDATE job SET label = 'gpu' WHERE id % 3 = 0").has_value());
    BOOST_TEST_REQUIRE(db.db().exec("UPDATE job SET label = 'big' WHERE id % 3 = 1").has_value());
    auto const count = [&](std::string const& where) {
        return static_cast<std::size_t>(scalar("SELECT COUNT(*) FROM job WHERE " + where));
    };
    auto const gpu = detail::claim_candidates(db, 1, 1000, "gpu", "claim").value();
    auto const none = detail::claim_candidates(db, 1, 1000, std::nullopt, "claim").value();
    BOOST_TEST(gpu.size() == count("label = 'gpu'"));
    BOOST_TEST(none.size() == count("label IS NULL"));
    for (auto const& c : gpu) BOOST_TEST(c.job_id % 3 == 0, "job " << c.job_id);
    for (auto const& c : none) BOOST_TEST(c.job_id % 3 == 2, "job " << c.job_id);
    auto const next = detail::next_candidates(db, 1, 5, "big", "claim").value();
    BOOST_TEST_REQUIRE(next.size() == 5u);
    for (auto const& c : next) BOOST_TEST(c.job_id % 3 == 1, "job " << c.job_id);
    BOOST_TEST(detail::claim_candidates(db, 1, 1000, "nobody", "claim").value().empty());
}

BOOST_FIXTURE_TEST_CASE(many_groups_read_every_ready_job, bounded_fixture)
{
    ready_jobs(90);
    BOOST_TEST(detail::claim_candidates_by_sql(db, 1, 1, std::nullopt, "claim").value().size() ==
               static_cast<std::size_t>(job_count));
    // The ready index reads the first of each group however many groups there are: 90
    // requirements by 3 schedulers.
    BOOST_TEST(detail::claim_candidates(db, 1, 1, std::nullopt, "claim").value().size() == 270u);
}

BOOST_AUTO_TEST_SUITE_END()
