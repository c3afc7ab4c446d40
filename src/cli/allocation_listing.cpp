// See allocation_listing.hpp.
#include "torcrun/cli/allocation_listing.hpp"

#include <boost/json/object.hpp>

#include <algorithm>

namespace torcrun::core {
namespace {

std::string first_of(std::string const& a, std::string const& b) { return a.empty() ? b : a; }

std::string state_of(allocation_entry const& e)
{
    if (e.slurm_id == 0) return "failed";
    if (e.end_reason.starts_with("worker left: ")) return "done";
    if (e.end_reason.starts_with("slurm: ")) {
        auto const word = e.end_reason.substr(7, e.end_reason.find(' ', 7) - 7);
        if (word == "COMPLETED") return "done";
        if (word == "CANCELLED") return "cancelled";
        return "failed";
    }
    if (e.status == "canceled") return "cancelled";
    if (e.status == "complete") return "done";
    if (e.slurm && slurm_state_ended(e.slurm->state)) {
        if (e.slurm->state == "COMPLETED" || ended_because(*e.slurm).starts_with("worker left: "))
            return "done";
        return e.slurm->state == "CANCELLED" ? "cancelled" : "failed";
    }
    if (e.status == "active") return "running";
    if (e.slurm && e.slurm->state != "PENDING") return "running";
    return "queued";
}

std::string pad(std::string s, std::size_t width)
{
    if (s.size() < width) s.append(width - s.size(), ' ');
    return s;
}

}  // namespace

allocation_row allocation_row_of(allocation_entry const& e)
{
    allocation_row r;
    r.slurm_id = e.slurm_id;
    r.state = state_of(e);
    if (!e.shape.empty()) {
        r.shape = e.shape;
    } else {
        r.shape = std::to_string(e.nodes) + (e.nodes == 1 ? " node" : " nodes");
        if (!e.gres.empty()) r.shape += " x " + e.gres;
        if (!e.walltime.empty()) r.shape += ", " + e.walltime;
        if (!e.partition.empty()) r.shape += ", " + e.partition;
        if (!e.scheduler.empty()) r.shape += " (scheduler " + e.scheduler + ")";
    }
    r.made_for = e.made_for;
    auto const* s = e.slurm ? &*e.slurm : nullptr;
    r.node = first_of(e.node, s ? s->node_list : "");
    r.submitted = first_of(e.submit_time, s ? s->submit_time : "");
    r.started = first_of(e.start_time, s ? s->start_time : "");
    r.ended = first_of(e.end_time, s ? s->end_time : "");
    r.why = e.end_reason;
    if (r.why.empty() && s && slurm_state_ended(s->state)) r.why = ended_because(*s);
    if (r.why.empty() && r.state == "queued" && s && !s->reason.empty())
        r.why = "waiting: " + s->reason;
    return r;
}

std::string id_ranges(std::vector<std::int64_t> const& ids)
{
    std::string out;
    for (std::size_t i = 0; i < ids.size();) {
        auto j = i;
        while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
        if (!out.empty()) out += ",";
        out += std::to_string(ids[i]);
        if (j > i) {
            out += '-';
            out += std::to_string(ids[j]);
        }
        i = j + 1;
    }
    return out;
}

std::string format_allocation_table(std::vector<allocation_row> const& rows)
{
    std::vector<std::vector<std::string>> cells{
        {"SLURM_ID", "STATE", "SHAPE", "JOBS", "NODES", "SUBMITTED", "STARTED", "ENDED", "WHY"}};
    for (auto const& r : rows) {
        cells.push_back({r.slurm_id ? std::to_string(r.slurm_id) : "-", r.state, r.shape,
                         first_of(r.made_for, "-"), first_of(r.node, "-"),
                         first_of(r.submitted, "-"), first_of(r.started, "-"),
                         first_of(r.ended, "-"), r.why});
    }
    std::vector<std::size_t> width(cells.front().size(), 0);
    for (auto const& line : cells)
        for (std::size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
    std::string out;
    for (auto const& line : cells) {
        std::string text;
        for (std::size_t i = 0; i < line.size(); ++i)
            text += i + 1 == line.size() ? line[i] : pad(line[i], width[i]) + "  ";
        while (!text.empty() && text.back() == ' ') text.pop_back();
        out += text + "\n";
    }
    return out;
}

boost::json::array allocations_to_json(std::vector<allocation_row> const& rows)
{
    boost::json::array out;
    for (auto const& r : rows) {
        boost::json::object o{{"slurm_id", r.slurm_id}, {"state", r.state}, {"shape", r.shape},
                              {"made_for", r.made_for}, {"nodes", r.node},
                              {"submit_time", r.submitted}, {"start_time", r.started},
                              {"end_time", r.ended}, {"why", r.why}};
        out.push_back(std::move(o));
    }
    return out;
}

std::map<std::string, std::int64_t> allocation_counts(std::vector<allocation_row> const& rows)
{
    std::map<std::string, std::int64_t> out;
    for (auto const& r : rows) ++out[r.state];
    return out;
}

}  // namespace torcrun::core
