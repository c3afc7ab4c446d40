// The ready index against a plain model of the same jobs (a map from id to job, read by sorting
// every ready job): after random puts, removals and undos (put() restoring what it returned),
// groups() and first() answer what the model answers, for every workflow, label and limit.
#include "torcrun/server/ready_index.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;

namespace {

using model = std::map<std::int64_t, core::ready_job>;
using id_priority = std::pair<std::int64_t, std::int64_t>;

core::ready_job random_job(std::mt19937_64& rng)
{
    auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    core::ready_job job{pick(1, 3), pick(-2, 2), std::nullopt, std::nullopt, std::nullopt};
    if (pick(0, 4) > 0) job.requirements_id = pick(1, 4);
    if (pick(0, 2) > 0) job.scheduler_id = pick(1, 3);
    if (pick(0, 3) == 0) job.label = pick(0, 1) ? "gpu" : "big";
    return job;
}

// What the index must answer, computed from every job: group by (requirements, scheduler) in
// that order, NULL first; claim order within.
std::vector<core::ready_group> expected_groups(model const& jobs, std::int64_t wf,
                                               std::optional<std::string> const& label,
                                               std::int64_t limit)
{
    std::map<std::pair<std::optional<std::int64_t>, std::optional<std::int64_t>>,
             std::vector<id_priority>>
        by_group;
    for (auto const& [id, job] : jobs) {
        if (job.workflow_id != wf || job.label != label) continue;
        by_group[{job.requirements_id, job.scheduler_id}].emplace_back(id, job.priority);
    }
    std::vector<core::ready_group> out;
    if (limit <= 0) return out;
    for (auto& [key, members] : by_group) {
        std::sort(members.begin(), members.end(), [](auto const& a, auto const& b) {
            return std::tuple(-a.second, a.first) < std::tuple(-b.second, b.first);
        });
        if (members.size() > static_cast<std::size_t>(limit))
            members.resize(static_cast<std::size_t>(limit));
        out.push_back({key.first, key.second, members});
    }
    return out;
}

std::vector<id_priority> expected_first(model const& jobs, std::int64_t wf,
                                        std::optional<std::string> const& label, std::int64_t limit)
{
    std::vector<id_priority> all;
    for (auto const& [id, job] : jobs) {
        if (job.workflow_id == wf && job.label == label) all.emplace_back(id, job.priority);
    }
    std::sort(all.begin(), all.end(), [](auto const& a, auto const& b) {
        return std::tuple(-a.second, a.first) < std::tuple(-b.second, b.first);
    });
    all.resize(std::min(all.size(), static_cast<std::size_t>(std::max<std::int64_t>(limit, 0))));
    return all;
}

void check(core::ready_index const& index, model const& jobs)
{
    BOOST_TEST_REQUIRE(index.size() == jobs.size());
    for (std::int64_t wf = 0; wf <= 4; ++wf) {
        bool const any = std::any_of(jobs.begin(), jobs.end(),
                                     [&](auto const& j) { return j.second.workflow_id == wf; });
        BOOST_TEST(index.has_jobs(wf) == any, "workflow " << wf);
    }
    for (std::int64_t wf = 1; wf <= 3; ++wf) {
        for (auto const& label :
             {std::optional<std::string>{}, std::optional<std::string>{"gpu"},
              std::optional<std::string>{"big"}}) {
            for (std::int64_t limit : {0, 1, 3, 1000}) {
                auto const got = index.groups(wf, label, limit);
                auto const want = expected_groups(jobs, wf, label, limit);
                BOOST_TEST_REQUIRE(got.size() == want.size());
                for (std::size_t g = 0; g < got.size(); ++g) {
                    BOOST_TEST((got[g].requirements_id == want[g].requirements_id));
                    BOOST_TEST((got[g].scheduler_id == want[g].scheduler_id));
                    BOOST_TEST((got[g].jobs == want[g].jobs));
                }
                auto const first = index.first(wf, label, limit);
                BOOST_TEST((first == expected_first(jobs, wf, label, limit)));
            }
        }
    }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(ready_index)

BOOST_DATA_TEST_CASE(matches_a_model_of_the_same_jobs, bdata::xrange(20), seed)
{
    std::mt19937_64 rng(static_cast<std::uint64_t>(seed) * 7919 + 1);
    auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    core::ready_index index;
    model jobs;
    for (int step = 0; step < 400; ++step) {
        auto const id = std::int64_t{pick(1, 120)};
        // A batch of changes, then sometimes undone in reverse order, as a rolled-back savepoint.
        std::vector<std::pair<std::int64_t, std::optional<core::ready_job>>> undo;
        auto const before = jobs;
        for (int k = 0, n = pick(1, 4); k < n; ++k) {
            auto const target = k == 0 ? id : std::int64_t{pick(1, 120)};
            std::optional<core::ready_job> job;
            if (pick(0, 2) > 0) job = random_job(rng);
            if (job) jobs[target] = *job;
            else jobs.erase(target);
            undo.emplace_back(target, index.put(target, job));
        }
        if (pick(0, 3) == 0) {
            for (auto it = undo.rbegin(); it != undo.rend(); ++it) index.put(it->first, it->second);
            jobs = before;
        }
        if (step % 20 == 0) check(index, jobs);
    }
    check(index, jobs);
    index.clear();
    check(index, {});
}

BOOST_AUTO_TEST_CASE(put_returns_what_it_replaced)
{
    core::ready_index index;
    core::ready_job const a{1, 0, 2, std::nullopt, std::nullopt};
    core::ready_job const b{1, 5, 2, std::nullopt, std::string("gpu")};
    BOOST_TEST(!index.put(7, a).has_value());
    BOOST_TEST((index.put(7, b) == a));
    BOOST_TEST((index.put(7, std::nullopt) == b));
    BOOST_TEST(!index.contains(7));
    BOOST_TEST(index.groups(1, std::nullopt, 10).empty());
}

BOOST_AUTO_TEST_SUITE_END()
