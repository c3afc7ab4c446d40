// The datasets `torcrun status` and `torcrun jobs` print after their own lines: one line per
// dataset with its status, its file count and size once finalized, its hash mode and hash, the
// jobs still to finish (pending), and the reason when it cannot be finalized:
//   datasets: 1
//     partitioned_output (output/partitions/): finalized, 5 files, 255 bytes, manifest 50a0...97
//     raw (raw/): pending: dataset path raw/ is not a directory
// Pure: the records come in as the server's JSON (GET /workflows/{id}/datasets).
#pragma once

#include <boost/json/array.hpp>

#include <string>

namespace torcrun::apps {

std::string dataset_lines(boost::json::array const& datasets);

}  // namespace torcrun::apps
