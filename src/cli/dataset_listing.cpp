// See dataset_listing.hpp.
#include "torcrun/cli/dataset_listing.hpp"

#include <boost/json/value.hpp>

namespace torcrun::apps {

namespace {

std::string text(boost::json::object const& o, std::string_view key)
{
    auto const* v = o.if_contains(key);
    if (!v || !v->is_string()) return {};
    return std::string(v->as_string());
}

}  // namespace

std::string dataset_lines(boost::json::array const& datasets)
{
    if (datasets.empty()) return {};
    std::string out = "datasets: " + std::to_string(datasets.size()) + "\n";
    for (auto const& v : datasets) {
        if (!v.is_object()) continue;
        auto const& d = v.as_object();
        auto const status = text(d, "status");
        out += "  " + text(d, "name") + " (" + text(d, "path") + "): " + status;
        if (status == "finalized") {
            auto const* files = d.if_contains("file_count");
            auto const* bytes = d.if_contains("total_size_bytes");
            if (files && files->is_int64())
                out += ", " + std::to_string(files->as_int64()) + " files";
            if (bytes && bytes->is_int64())
                out += ", " + std::to_string(bytes->as_int64()) + " bytes";
            auto const hash = text(d, "manifest_hash");
            out += ", " + text(d, "hash_mode") + (hash.empty() ? "" : " " + hash);
        }
        if (auto const error = text(d, "error"); !error.empty()) out += ": " + error;
        out += "\n";
    }
    return out;
}

}  // namespace torcrun::apps
