// The store's ready index against the job table it mirrors, on a real SQLite store:
// - random workflows (groups, schedulers, labels, priorities, dependencies) taken through random
//   claims, completions (failures cancel what depends on them), priority and requirement
//   changes through PUT /jobs, raw SQL updates, and changes undone by ROLLBACK and by ROLLBACK TO
//   a savepoint: after each step the index's candidates are the job table's, and select_claim
//   chooses the same jobs from both;
// - a deleted workflow's ready jobs leave the index with its cascade;
// - a process killed (SIGKILL) inside a transaction: the reopened store's index holds what was
//   committed and nothing of the transaction.
#include "server/io/claim_candidates.hpp"
#include "server/io/ready_jobs.hpp"
#include "lifecycle_fixture.hpp"

#include "torcrun/server/job_status.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <random>
#include <sys/wait.h>
#include <unistd.h>

namespace core = torcrun::core;
namespace io = torcrun::io;
namespace bdata = boost::unit_test::data;
namespace detail = torcrun::io::detail;
namespace fs = std::filesystem;
using torcrun::test::lifecycle_fixture;
using torcrun::test::node_body;

namespace {

std::string const ready = std::to_string(core::to_int(core::job_status::ready));

std::vector<core::claim_candidate> sorted(std::vector<core::claim_candidate> v)
{
    std::sort(v.begin(), v.end(),
              [](auto const& a, auto const& b) { return a.job_id < b.job_id; });
    return v;
}

// The index and the job table answer alike for workflow `wf`.
void compare(io::store& db, std::int64_t wf, std::string const& when)
{
    for (auto const& label : {std::optional<std::string>{}, std::optional<std::string>{"gpu"}}) {
        for (std::int64_t limit : {1, 3, 1000}) {
            auto const by_index = detail::claim_candidates(db, wf, limit, label, "t").value();
            auto const by_sql = detail::claim_candidates_by_sql(db, wf, limit, label, "t").value();
            BOOST_TEST_REQUIRE((sorted(by_index) == sorted(by_sql)), when << " limit " << limit);
            for (auto const& request :
                 {core::claim_request{4, core::claim_memory_bytes(8), 1, 1, std::nullopt, 3},
                  core::claim_request{64, core::claim_memory_bytes(256), 8, 4, 3600,
                                      std::nullopt}}) {
                core::claim_options const options{core::default_jobs_sort_method, limit, false};
                BOOST_TEST((core::select_claim(by_index, request, options) ==
                            core::select_claim(by_sql, request, options)),
                           when);
            }
            auto const next = detail::next_candidates(db, wf, limit, label, "t").value();
            auto const next_sql = detail::next_candidates_by_sql(db, wf, limit, label, "t").value();
            BOOST_TEST_REQUIRE(next.size() == next_sql.size(), when);
            for (std::size_t i = 0; i < next.size(); ++i)
                BOOST_TEST(next[i].job_id == next_sql[i].job_id, when);
        }
    }
}

struct random_fixture : lifecycle_fixture {
    std::mt19937_64 rng;
    std::int64_t node_id = 0;

    int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

    // Requirements, then jobs in one batch with random groups, labels, priorities and blockers.
    void build(int jobs)
    {
        std::vector<std::int64_t> rr{1};
        for (int k = 0; k < 4; ++k) {
            rr.push_back(ok("POST", "/resource_requirements",
                            R"({"workflow_id":1,"name":"r)" + std::to_string(k) +
                                R"(","num_cpus":)" + std::to_string(1 + k) +
                                R"(,"num_gpus":)" + std::to_string(k % 2) +
                                R"(,"memory":")" + std::to_string(1 + k) +
                                R"(g","runtime":"PT)" + std::to_string(10 + 20 * k) + R"(M"})")
                             .at("id")
                             .as_int64());
        }
        std::string body = R"({"jobs":[)";
        for (int i = 0; i < jobs; ++i) {
            std::string deps;
            for (int b = 0; b < 2 && i > 0; ++b) {
                if (pick(0, 3) > 0) continue;
                // Blockers are created before their dependents: ids 1 ... i.
                deps += (deps.empty() ? "" : ",") + std::to_string(pick(1, i));
            }
            body += std::string(i == 0 ? "" : ",") + R"({"workflow_id":1,"name":"j)" +
                    std::to_string(i) + R"(","command":"c","resource_requirements_id":)" +
                    std::to_string(rr[static_cast<std::size_t>(pick(0, 4))]) +
                    R"(,"priority":)" + std::to_string(pick(0, 2)) +
                    (pick(0, 2) == 0 ? R"(,"scheduler_id":3)" : "") +
                    (pick(0, 3) == 0 ? R"(,"label":"gpu")" : "") +
                    (deps.empty() ? "" : R"(,"depends_on_job_ids":[)" + deps + "]") + "}";
        }
        ok("POST", "/bulk_jobs", body + "]}");
        initialize();
        node_id = node();
    }

    std::vector<std::int64_t> ids_with(std::string const& status_where)
    {
        auto stmt = db.db().prepare("SELECT id FROM job WHERE " + status_where).value();
        std::vector<std::int64_t> out;
        while (stmt.step().value()) out.push_back(stmt.int64(0));
        return out;
    }

    // What job_changes::set_status does to the jobs `where` selects, without its event rows.
    void set_status(std::string const& where, core::job_status to)
    {
        for (auto id : ids_with(where)) {
            BOOST_TEST_REQUIRE(db.db()
                                   .exec("UPDATE job SET status = " +
                                         std::to_string(core::to_int(to)) +
                                         " WHERE id = " + std::to_string(id))
                                   .has_value());
            BOOST_TEST_REQUIRE(db.ready_jobs().note_status(id, to, "t").has_value());
        }
    }

    std::string scalar_text(std::string const& sql)
    {
        auto stmt = db.db().prepare(sql).value();
        BOOST_TEST_REQUIRE(stmt.step().value());
        return stmt.text(0);
    }

    std::int64_t any(std::vector<std::int64_t> const& ids)
    {
        return ids[static_cast<std::size_t>(pick(0, static_cast<int>(ids.size()) - 1))];
    }

    // One random step; returns what it did.
    std::string step()
    {
        auto const ready_ids = ids_with("status = " + ready);
        auto const pending = ids_with("status = " +
                                      std::to_string(core::to_int(core::job_status::pending)));
        switch (pick(0, 7)) {
            case 0:
            case 1: {
                auto const label = pick(0, 2) == 0 ? torcrun::test::query{{"label", "gpu"}}
                                                   : torcrun::test::query{};
                auto const limit = std::to_string(pick(1, 4));
                ok("POST", "/workflows/1/claim_jobs_based_on_resources/" + limit,
                   node_body(8, 16, 1, 1), label);
                return "claim";
            }
            case 2:
                if (pending.empty()) return "nothing pending";
                {
                    auto const id = any(pending);
                    start(id, node_id);
                    complete(id, pick(0, 3) == 0 ? "failed" : "completed", node_id,
                             pick(0, 3) == 0 ? 1 : 0);
                    return "complete " + std::to_string(id);
                }
            case 3:
                if (ready_ids.empty()) return "nothing ready";
                {
                    // After initialization a ready job's requirements and scheduler may change.
                    auto const id = any(ready_ids);
                    auto const name = scalar_text("SELECT name FROM job WHERE id = " +
                                                  std::to_string(id));
                    ok("PUT", "/jobs/" + std::to_string(id),
                       R"({"workflow_id":1,"name":")" + name +
                           R"(","command":"c","resource_requirements_id":)" +
                           std::to_string(pick(1, 3)) +
                           (pick(0, 1) ? R"(,"scheduler_id":3)" : "") + "}");
                    return "requirements of " + std::to_string(id);
                }
            case 4: {
                // A transaction that makes jobs ready and takes others, rolled back.
                BOOST_TEST_REQUIRE(db.db().exec("BEGIN IMMEDIATE").has_value());
                set_status("id % 3 = 0", core::job_status::ready);
                set_status("id % 5 = 1", core::job_status::pending);
                compare(db, 1, "inside the transaction");
                BOOST_TEST_REQUIRE(db.db().exec("ROLLBACK").has_value());
                return "rolled back";
            }
            case 5: {
                // Savepoints, the inner one rolled back, the outer one kept: only the outer's
                // change stands.
                auto const id = ready_ids.empty() ? std::int64_t{1} : any(ready_ids);
                BOOST_TEST_REQUIRE(db.db()
                                       .exec("BEGIN IMMEDIATE; SAVEPOINT a; UPDATE job SET "
                                             "priority = priority + 5 WHERE id = " +
                                             std::to_string(id) + "; SAVEPOINT b;")
                                       .has_value());
                set_status("id % 4 = 2", core::job_status::ready);
                set_status("id % 7 = 3", core::job_status::running);
                // A statement that fails half-way: its trigger's change must not stand.
                // (rows go in id order: the last one breaks NOT NULL after the others changed)
                BOOST_TEST(!db.db()
                                .exec("UPDATE job SET priority = CASE WHEN id = (SELECT max(id) "
                                      "FROM job WHERE status = " + ready + ") THEN NULL ELSE "
                                      "priority + 1 END WHERE status = " + ready)
                                .has_value());
                compare(db, 1, "inside savepoint b");
                BOOST_TEST_REQUIRE(db.db().exec("ROLLBACK TO b").has_value());
                compare(db, 1, "after ROLLBACK TO b");
                BOOST_TEST_REQUIRE(db.db()
                                       .exec("UPDATE job SET label = 'gpu' WHERE id = " +
                                             std::to_string(id) + "; RELEASE a; COMMIT")
                                       .has_value());
                return "savepoints on " + std::to_string(id);
            }
            case 6:
                // Raw SQL outside a transaction (autocommit), as an operator might.
                BOOST_TEST_REQUIRE(db.db()
                                       .exec("UPDATE job SET resource_requirements_id = NULL, "
                                             "priority = " + std::to_string(pick(0, 4)) +
                                             " WHERE id = " + std::to_string(pick(1, 60)))
                                       .has_value());
                return "requirements dropped";
            default:
                ok("POST", "/workflows/1/claim_next_jobs", "",
                   {{"limit", std::to_string(pick(1, 3))}});
                return "claim_next";
        }
    }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(ready_jobs)

BOOST_DATA_TEST_CASE_F(random_fixture, index_follows_the_job_table, bdata::xrange(6), seed)
{
    rng.seed(static_cast<std::uint64_t>(seed) * 104729 + 3);
    build(60);
    compare(db, 1, "after initialize");
    for (int i = 0; i < 60; ++i) {
        auto const what = step();
        compare(db, 1, "step " + std::to_string(i) + " (" + what + ")");
    }
}

BOOST_FIXTURE_TEST_CASE(a_deleted_workflow_leaves_the_index, lifecycle_fixture)
{
    auto const wf2 = workflow("second");
    for (int i = 0; i < 5; ++i) job("j" + std::to_string(i), {}, wf2);
    initialize(wf2);
    BOOST_TEST_REQUIRE(detail::claim_candidates(db, wf2, 10, std::nullopt, "t").value().size() ==
                       5u);
    ok("DELETE", "/workflows/" + std::to_string(wf2));
    BOOST_TEST(detail::claim_candidates(db, wf2, 10, std::nullopt, "t").value().empty());
    compare(db, wf2, "after the delete");
}

BOOST_AUTO_TEST_CASE(a_killed_process_leaves_only_what_it_committed)
{
    auto const dir = fs::temp_directory_path() / ("torcrun-ready-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    auto const path = (dir / "w.db").string();
    {
        auto db = io::store::open(path).value();
        BOOST_TEST_REQUIRE(db.db()
                               .exec("INSERT INTO workflow (name, user, timestamp) VALUES "
                                     "('w', 'u', 't');")
                               .has_value());
        for (int i = 0; i < 40; ++i) {
            BOOST_TEST_REQUIRE(db.db()
                                   .exec("INSERT INTO job (workflow_id, name, command, status, "
                                         "priority) VALUES (1, 'j" + std::to_string(i) +
                                         "', 'c', " +
                                         (i % 2 ? ready : std::string("1")) + ", " +
                                         std::to_string(i % 3) + ")")
                                   .has_value());
        }
    }
    std::fflush(nullptr);
    auto const child = ::fork();
    BOOST_TEST_REQUIRE(child >= 0);
    if (child == 0) {
        // Committed: jobs 1-10 ready; then, uncommitted when the process dies, every job ready.
        auto db = io::store::open(path).value();
        auto const make_ready = [&](std::int64_t first, std::int64_t last) {
            for (auto id = first; id <= last; ++id) {
                (void)db.db().exec("UPDATE job SET status = " + ready + " WHERE id = " +
                                   std::to_string(id));
                (void)db.ready_jobs().note_status(id, core::job_status::ready, "t");
            }
        };
        make_ready(1, 10);
        (void)db.db().exec("BEGIN IMMEDIATE");
        make_ready(11, 40);
        (void)detail::claim_candidates(db, 1, 1000, std::nullopt, "t");
        ::raise(SIGKILL);
        ::_exit(3);
    }
    int status = 0;
    BOOST_TEST_REQUIRE(::waitpid(child, &status, 0) == child);
    BOOST_TEST_REQUIRE(WIFSIGNALED(status));
    {
        auto db = io::store::open(path).value();
        auto const got = sorted(detail::claim_candidates(db, 1, 1000, std::nullopt, "t").value());
        std::vector<std::int64_t> ids;
        for (auto const& c : got) ids.push_back(c.job_id);
        std::vector<std::int64_t> want;
        for (std::int64_t id = 1; id <= 40; ++id) {
            if (id <= 10 || id % 2 == 0) want.push_back(id);  // job i has id i + 1
        }
        BOOST_TEST(ids == want, boost::test_tools::per_element());
        compare(db, 1, "after the restart");
    }
    fs::remove_all(dir);
}

BOOST_AUTO_TEST_SUITE_END()
