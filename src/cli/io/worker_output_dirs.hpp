// Where the workers of a workflow wrote their attempts' files, for `torcrun jobs`, `logs` and
// `report`: the directory the user names (--worker-output-dir, else a `torcrun run`'s
// --output-dir) for every attempt; else the one each attempt's compute node recorded (a torcrun
// worker sends its absolute output directory as `output_dir` in the node's `scheduler` object);
// else `torc_output`, the worker's default, under the current directory.
#pragma once

#include <boost/json/value.hpp>
#include <boost/program_options/variables_map.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace torcrun::apps {

// --worker-output-dir, else --output-dir, when given.
std::optional<std::string> named_worker_output_dir(
    boost::program_options::variables_map const& flags);

class worker_output_dirs {
public:
    // `named`: the directory the user gave, if any.
    explicit worker_output_dirs(std::optional<std::string> named);

    // The workflow's compute node records (GET /compute_nodes?workflow_id=).
    void add_nodes(std::vector<boost::json::value> const& nodes);

    // The named directory, else the one `node` recorded; nothing when neither is known.
    std::optional<std::string> known(std::int64_t node) const;
    // known(node), else torc_output.
    std::string of_node(std::int64_t node) const;
    // For an attempt whose node is not known (one in flight): the named directory alone, else
    // every recorded one (the active nodes' first), then torc_output; each once.
    std::vector<std::string> candidates() const;

private:
    std::optional<std::string> named_;
    std::map<std::int64_t, std::string> recorded_;  // node id -> its output_dir
    std::vector<std::string> active_first_;         // recorded dirs, active nodes' first
    std::string default_;
};

}  // namespace torcrun::apps
