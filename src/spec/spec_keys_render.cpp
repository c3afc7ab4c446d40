// The spec key table (spec_keys.hpp) as the reference page's Markdown and as JSON, for
// `torcrun spec --keys [--json]`.
#include "torcrun/spec/spec_keys.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace torcrun::core::spec {

namespace {

// A table cell: `|` escaped so that it does not end the cell.
std::string cell(std::string_view text)
{
    std::string out;
    for (char const c : text) {
        if (c == '|') out += '\\';
        out += c;
    }
    return out;
}

std::string_view others_text(other_keys others)
{
    switch (others) {
    case other_keys::refused:
        return "Any other key is refused at its file:line:col, with the nearest known key.";
    case other_keys::warned:
        return "Any other key is ignored with a warning naming it, as Torc ignores it.";
    case other_keys::free: return "Its keys are free: each is taken as written.";
    }
    return "";
}

std::string support_text(spec_key const& key)
{
    std::string out(to_string(key.support));
    if (!key.note.empty()) out.append(": ").append(key.note);
    return out;
}

}  // namespace

std::string render_spec_keys_markdown()
{
    std::string out;
    for (auto const& object : spec_objects()) {
        out.append("## `").append(object.path).append("`\n\n");
        out.append(object.meaning).append(". ").append(others_text(object.others)).append("\n");
        if (object.keys.empty()) {
            out.append("\n");
            continue;
        }
        out.append("\n| key | meaning | torcrun |\n| --- | --- | --- |\n");
        for (auto const& key : object.keys) {
            out.append("| `").append(key.name).append("` | ").append(cell(key.meaning));
            out.append(" | ").append(cell(support_text(key))).append(" |\n");
        }
        out.append("\n");
    }
    if (!out.empty()) out.pop_back();  // one newline at the end
    return out;
}

boost::json::value spec_keys_json()
{
    boost::json::array objects;
    for (auto const& object : spec_objects()) {
        boost::json::array keys;
        for (auto const& key : object.keys)
            keys.push_back({{"name", key.name},
                            {"support", to_string(key.support)},
                            {"meaning", key.meaning},
                            {"note", key.note}});
        objects.push_back({{"path", object.path},
                           {"meaning", object.meaning},
                           {"other_keys", to_string(object.others)},
                           {"keys", std::move(keys)}});
    }
    return boost::json::object{{"objects", std::move(objects)}};
}

}  // namespace torcrun::core::spec
