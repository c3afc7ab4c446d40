// The ready jobs of every workflow, kept in memory by claim group, so that a claim reads its
// candidates without touching the job table (docs/ARCHITECTURE.md, "Server": the ready index).
//
// A claim group is what core::select_claim cannot tell apart but by priority and id: the jobs of
// one workflow with the same label, resource_requirements_id and scheduler_id. Within a group the
// jobs are kept in claim order (higher priority first, then lower id), so the candidates of a
// claim are the first `limit` of each group, as the SQL read of the same jobs returns them.
//
// Pure: the store (src/server/io/ready_jobs.cpp) feeds it every change of a job row that concerns
// a ready job, and undoes them when the transaction that made them rolls back.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace torcrun::core {

// A ready job as the index keeps it.
struct ready_job {
    std::int64_t workflow_id = 0;
    std::int64_t priority = 0;
    std::optional<std::int64_t> requirements_id;  // resource_requirements_id
    std::optional<std::int64_t> scheduler_id;
    std::optional<std::string> label;

    bool operator==(ready_job const&) const = default;
};

// The first jobs of one claim group, in claim order.
struct ready_group {
    std::optional<std::int64_t> requirements_id;
    std::optional<std::int64_t> scheduler_id;
    std::vector<std::pair<std::int64_t, std::int64_t>> jobs;  // (job id, priority)
};

class ready_index {
public:
    // Job `id` is ready as `job` describes it, or (nullopt) not ready; returns what the index held
    // for it before, which put() restores to undo the change.
    std::optional<ready_job> put(std::int64_t id, std::optional<ready_job> job);

    // The ready jobs of workflow `wf` with label `label` (none: the jobs without a label), by
    // group in (requirements, scheduler) order, NULL first: the first `limit` of each group.
    std::vector<ready_group> groups(std::int64_t wf, std::optional<std::string> const& label,
                                    std::int64_t limit) const;

    // The first `limit` of those jobs over all their groups, in claim order: (job id, priority).
    std::vector<std::pair<std::int64_t, std::int64_t>> first(
        std::int64_t wf, std::optional<std::string> const& label, std::int64_t limit) const;

    // Whether workflow `wf` has a ready job, of any label.
    bool has_jobs(std::int64_t wf) const;

    std::size_t size() const { return jobs_.size(); }
    bool contains(std::int64_t id) const { return jobs_.contains(id); }
    void clear();

private:
    struct group_key {
        std::int64_t workflow_id;
        std::optional<std::string> label;
        std::optional<std::int64_t> requirements_id;
        std::optional<std::int64_t> scheduler_id;

        auto operator<=>(group_key const&) const = default;
    };
    // (-priority, id): claim order under std::less.
    using members = std::set<std::pair<std::int64_t, std::int64_t>>;

    using group_map = std::map<group_key, members>;
    // Per job its priority and its group (a map iterator stays valid until its group is erased,
    // which happens only when its last job leaves): 16 bytes a job beside the group's set entry,
    // so a million ready jobs cost tens of megabytes, not hundreds.
    struct entry {
        std::int64_t priority;
        group_map::iterator group;
    };

    static group_key key_of(ready_job const& job);

    std::unordered_map<std::int64_t, entry> jobs_;
    group_map groups_;
};

}  // namespace torcrun::core
