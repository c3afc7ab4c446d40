// Walking a configuration document against the key rules: groups are nested objects, leaves
// are checked by their rule, and unknown keys get a "did you mean": the closest sibling, else a
// sibling the key is the start of, else (a key at the wrong level) a key with the same name.
#include "config_table.hpp"

#include <algorithm>
#include <vector>

namespace torcrun::core {

std::size_t edit_distance(std::string_view a, std::string_view b)
{
    // Optimal string alignment: insertions, deletions, substitutions and adjacent swaps.
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t const cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
            }
        }
    }
    return d[a.size()][b.size()];
}

namespace detail {

namespace {

constexpr std::size_t max_suggestion_distance = 2;

using rule_list = std::span<key_rule const* const>;

std::optional<std::size_t> find_rule(rule_list rules, std::string_view path)
{
    for (std::size_t i = 0; i < rules.size(); ++i) {
        if (rules[i]->path == path) return i;
    }
    return std::nullopt;
}

bool is_group(rule_list rules, std::string_view path)
{
    return std::any_of(rules.begin(), rules.end(), [&](key_rule const* r) {
        return r->path.size() > path.size() && r->path.starts_with(path)
            && r->path[path.size()] == '.';
    });
}

// The closest of `candidates` to `name` within the suggestion distance; the first wins ties.
std::optional<std::string> closest(std::vector<std::string> const& candidates,
                                   std::string_view name)
{
    std::optional<std::string> best;
    std::size_t best_distance = max_suggestion_distance + 1;
    for (auto const& candidate : candidates) {
        std::size_t const distance = edit_distance(name, candidate);
        if (distance < best_distance) best = candidate, best_distance = distance;
    }
    return best;
}

// " (did you mean "x"?)" or "" for the unknown key `name` inside the group `prefix` ("poll.").
std::string suggestion(rule_list rules, std::string_view prefix, std::string_view name)
{
    std::vector<std::string> siblings, elsewhere;
    for (key_rule const* r : rules) {
        if (r->path.starts_with(prefix)) {
            std::string_view rest = r->path.substr(prefix.size());
            std::string sibling(rest.substr(0, rest.find('.')));
            if (std::find(siblings.begin(), siblings.end(), sibling) == siblings.end()) {
                siblings.push_back(sibling);
            }
        }
        std::size_t const dot = r->path.rfind('.');
        if (dot != std::string_view::npos && r->path.substr(dot + 1) == name) {
            elsewhere.emplace_back(r->path);
        }
    }
    auto best = closest(siblings, name);
    for (auto const& sibling : siblings) {
        if (!best && sibling.starts_with(name)) best = sibling;  // "htpasswd" -> "htpasswd_file"
    }
    if (!best && !elsewhere.empty()) best = elsewhere.front();
    return best ? cat(" (did you mean \"", *best, "\"?)") : "";
}

struct walker {
    json_document const& doc;
    rule_list rules;
    accept_fn const& accept;
    std::vector<std::string> errors;

    void add(std::string_view pointer, bool at_key, std::string_view label, std::string_view what)
    {
        errors.push_back(cat(doc.location(pointer, at_key), ": ", label, ": ", what));
    }

    void walk(boost::json::object const& object, std::string const& prefix,
              std::string const& pointer)
    {
        for (auto const& member : object) {
            std::string const path = prefix + std::string(member.key());
            std::string const at = json_pointer_append(pointer, member.key());
            if (member.key().find('.') != std::string_view::npos) {
                add(at, true, path, "unknown key (write nested objects instead of dots)");
            } else if (auto const index = find_rule(rules, path)) {
                leaf(*index, member.value(), path, at);
            } else if (!is_group(rules, path)) {
                add(at, true, path, cat("unknown key", suggestion(rules, prefix, member.key())));
            } else if (!member.value().is_object()) {
                add(at, false, path,
                    cat("expected an object, found ", describe_json(member.value())));
            } else {
                walk(member.value().get_object(), path + ".", at);
            }
        }
    }

    void leaf(std::size_t index, boost::json::value const& value, std::string const& path,
              std::string const& pointer)
    {
        auto const checked = check_value(rules[index]->rule, value);
        if (checked) return accept(index, *checked);
        auto const& problem = checked.error();
        add(pointer + problem.pointer_suffix, problem.at_key, path + problem.label_suffix,
            problem.detail);
    }
};

}  // namespace

std::vector<std::string> check_document(json_document const& doc, rule_list rules,
                                        accept_fn const& accept)
{
    walker w{doc, rules, accept, {}};
    if (!doc.root().is_object()) {
        w.errors.push_back(cat(doc.location(""), ": expected an object at the top level, found ",
                               describe_json(doc.root())));
        return w.errors;
    }
    w.walk(doc.root().get_object(), "", "");
    return w.errors;
}

std::string blame_location(json_document const& doc, std::span<config_override const> overrides,
                           cross_problem const& problem)
{
    for (std::string_view const path : {problem.path, problem.other_path}) {
        for (auto it = overrides.rbegin(); it != overrides.rend(); ++it) {
            if (it->key_path == path) return it->origin;
        }
    }
    return doc.location(pointer_of(problem.path));
}

std::string unknown_override_key(rule_list rules, std::string_view path, std::string_view origin)
{
    std::vector<std::string> paths;
    for (key_rule const* r : rules) paths.emplace_back(r->path);
    auto best = closest(paths, path);
    // A right name in the wrong group ("interval_seconds" for "poll.interval_seconds"), or
    // the start of a key ("auth.htpasswd" for "auth.htpasswd_file").
    std::string_view const name = path.substr(path.rfind('.') + 1);
    for (key_rule const* r : rules) {
        if (!best && (r->path.ends_with(cat(".", name)) || r->path.starts_with(path))) {
            best = std::string(r->path);
        }
    }
    return cat(origin, ": unknown key \"", path, "\"",
               best ? cat(" (did you mean \"", *best, "\"?)") : "");
}

}  // namespace detail
}  // namespace torcrun::core
