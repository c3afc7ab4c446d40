// Names in parse_spec's messages (private to src/spec): how an entry is called, and the
// known field a misspelt key most likely meant.
#include "field_reader.hpp"

#include "message_text.hpp"

#include <algorithm>

namespace torcrun::core::spec::detail {

namespace {

// Optimal string alignment distance: Levenshtein plus adjacent transpositions ("nmae").
std::size_t osa_distance(std::string_view a, std::string_view b)
{
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t const cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    }
    return d[a.size()][b.size()];
}

}  // namespace

std::string entry_context(std::string_view list, std::size_t index, boost::json::value const& entry)
{
    std::string out = concat({list, "[", std::to_string(index), "]"});
    if (auto const* object = entry.if_object()) {
        if (auto const* name = object->if_contains("name"); name && name->is_string())
            out.append(concat({" ", quoted(name->get_string())}));
    }
    return out;
}

std::string_view closest_name(std::string_view key, std::initializer_list<std::string_view> known)
{
    std::string_view best;
    std::size_t best_distance = 3;
    for (auto const name : known) {
        std::size_t const d = osa_distance(key, name);
        if (d < best_distance && d * 3 <= key.size()) {
            best = name;
            best_distance = d;
        }
    }
    return best;
}

}  // namespace torcrun::core::spec::detail
