// Reading configuration values: a file value checked against its key's rule (type, range,
// choices and the value formats: memory, signals, URLs, date-times, variable names, patterns,
// GPU ids, srun --signal) into the normalized value the member conversion expects; override
// text turned into a file value; and whole documents walked against the rules, with located
// errors. Groups are nested objects, and unknown keys get a "did you mean": the closest
// sibling, else a sibling the key is the start of, else (a key at the wrong level) a key with
// the same name.
#include "config_values.hpp"

#include "torcrun/common/date_time.hpp"
#include "torcrun/common/edit_distance.hpp"
#include "torcrun/common/json_kind.hpp"
#include "torcrun/common/json_writer.hpp"
#include "torcrun/common/signal_names.hpp"
#include "torcrun/common/units.hpp"

#include <boost/json/serialize.hpp>
#include <boost/url/parse.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <vector>

namespace torcrun::core {

namespace detail {

namespace {

// -- one value

// A value as messages quote it: strings in JSON quotes, numbers in shortest form.
std::string show(boost::json::value const& v)
{
    if (v.is_double()) return format_number(v.get_double());
    return boost::json::serialize(v);
}

std::string quote(std::string_view s) { return boost::json::serialize(boost::json::string(s)); }

value_problem mismatch(value_rule const& rule, boost::json::value const& v)
{
    std::string const expected = type_name(rule);
    std::string const article = expected.starts_with("a") || expected.starts_with("i")
            || expected.starts_with("o")
        ? "an "
        : "a ";
    return problem(cat("expected ", article, expected, ", found ", api::detail::describe(v)));
}

value_problem out_of_range(value_rule const& rule, boost::json::value const& v)
{
    return problem(show(v) + " is out of range (" + range_text(rule) + ")");
}

bool in_range(value_rule const& rule, double x) { return x >= rule.min && x <= rule.max; }

// Messages from the value parsers start with their own subject ("memory: "); the key path
// takes its place.
std::string without_subject(std::string message, std::string_view subject)
{
    if (message.starts_with(subject)) message.erase(0, subject.size());
    return message;
}

bool is_variable_name(std::string_view s)
{
    if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
    for (char const c : s) {
        bool const ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
            || c == '_';
        if (!ok) return false;
    }
    return true;
}

checked_value check_integer(value_rule const& rule, boost::json::value const& v)
{
    if (!v.is_number()) return mismatch(rule, v);
    double const d = v.to_number<double>();
    if (v.is_double() && (!std::isfinite(d) || d != std::trunc(d))) {
        return problem(show(v) + " is not an integer");
    }
    if (!in_range(rule, d)) return out_of_range(rule, v);
    if (v.is_uint64()) return v;
    return v.is_int64() ? v : boost::json::value(static_cast<std::int64_t>(d));
}

checked_value check_number(value_rule const& rule, boost::json::value const& v)
{
    if (!v.is_number()) return mismatch(rule, v);
    double const d = v.to_number<double>();
    if (!std::isfinite(d)) return problem(show(v) + " is not a finite number");
    if (!in_range(rule, d)) return out_of_range(rule, v);
    return d;
}

// A choice among "true", "false" and others (server.use_extensions: auto, true, false) also takes
// the JSON booleans, so a file written when the key was a boolean still reads.
checked_value check_choice(value_rule const& rule, boost::json::value const& v)
{
    if (v.is_bool()) {
        std::string_view const name = v.get_bool() ? "true" : "false";
        for (std::size_t i = 0; i < rule.choices.size(); ++i)
            if (rule.choices[i] == name) return static_cast<std::int64_t>(i);
    }
    if (!v.is_string()) return mismatch(rule, v);
    for (std::size_t i = 0; i < rule.choices.size(); ++i) {
        if (rule.choices[i] == v.get_string()) return static_cast<std::int64_t>(i);
    }
    return problem(show(v) + " is not one of " + range_text(rule));
}

checked_value check_memory(value_rule const& rule, boost::json::value const& v)
{
    std::uint64_t bytes = 0;
    if (v.is_string()) {
        auto const parsed = parse_memory(v.get_string());
        if (!parsed) return problem(without_subject(parsed.error().message, "memory: "));
        bytes = *parsed;
    } else if (v.is_int64() || v.is_uint64()) {
        if (v.is_int64() && v.get_int64() < 0) return out_of_range(rule, v);
        bytes = v.to_number<std::uint64_t>();
    } else if (v.is_double()) {
        return problem(show(v) + " is not an integer");
    } else {
        return mismatch(rule, v);
    }
    if (!in_range(rule, static_cast<double>(bytes))) return out_of_range(rule, v);
    return bytes;
}

checked_value check_signal(value_rule const& rule, boost::json::value const& v)
{
    if (!v.is_string() && !v.is_int64()) return mismatch(rule, v);
    auto const parsed =
        parse_signal(v.is_string() ? std::string(v.get_string()) : std::to_string(v.get_int64()));
    if (!parsed) return problem(without_subject(parsed.error().message, "signal: "));
    return static_cast<std::int64_t>(*parsed);
}

checked_value check_url(value_rule const& rule, boost::json::value const& v)
{
    if (!v.is_string()) return mismatch(rule, v);
    constexpr std::string_view form = "; expected http://host:port/torc-service/v1";
    auto const url = boost::urls::parse_uri(std::string_view(v.get_string()));
    if (!url) return problem(cat(show(v), " is not a valid URL", form));
    if (url->scheme_id() != boost::urls::scheme::http
        && url->scheme_id() != boost::urls::scheme::https) {
        return problem(cat(show(v), " is not an http or https URL", form));
    }
    if (url->encoded_host().empty()) return problem(cat(show(v), " has no host", form));
    return v;
}

checked_value check_date_time(value_rule const& rule, boost::json::value const& v)
{
    if (v.is_string()) {
        auto const parsed = parse_date_time(v.get_string());
        if (!parsed) return problem(without_subject(parsed.error().message, "date-time: "));
        return *parsed;
    }
    value_rule epoch = rule;
    epoch.kind = value_kind::number;
    epoch.min = 0;
    epoch.max = 253402300799;  // 9999-12-31T23:59:59Z
    if (!v.is_number()) return mismatch(rule, v);
    return check_number(epoch, v);
}

// One element of a list of strings: "" when it is fine, else what is wrong.
std::string element_problem(value_kind kind, boost::json::value const& e)
{
    if (!e.is_string()) return cat("expected a string, found ", api::detail::describe(e));
    std::string_view const s = e.get_string();
    if (s.empty()) return "must not be empty";
    if (kind == value_kind::variable_names && !is_variable_name(s)) {
        return show(e) + " is not a valid variable name";
    }
    if (kind == value_kind::env_patterns
        && !is_variable_name(s.ends_with('*') ? s.substr(0, s.size() - 1) : s)) {
        return show(e) + " is not a variable name or a prefix ending in '*'";
    }
    if (kind == value_kind::gpu_ids && s.find_first_of(", \t\n\r") != std::string_view::npos) {
        return show(e) + " is not a GPU id (commas and white space are not allowed)";
    }
    return "";
}

checked_value check_list(value_rule const& rule, boost::json::value const& v)
{
    if (!v.is_array()) return mismatch(rule, v);
    std::set<std::string_view> seen;
    for (std::size_t i = 0; i < v.get_array().size(); ++i) {
        auto const& e = v.get_array()[i];
        std::string detail = element_problem(rule.kind, e);
        if (detail.empty() && rule.kind == value_kind::gpu_ids
            && !seen.insert(e.get_string()).second) {
            detail = show(e) + " is listed twice";
        }
        if (!detail.empty()) {
            std::string const index = std::to_string(i);
            return value_problem{detail, cat("/", index), cat("[", index, "]"), false};
        }
    }
    return v;
}

checked_value check_gpu_ids(value_rule const& rule, boost::json::value const& v)
{
    if (v.is_array()) return check_list(rule, v);
    if (!v.is_int64()) return mismatch(rule, v);
    if (!in_range(rule, static_cast<double>(v.get_int64()))) return out_of_range(rule, v);
    boost::json::array ids;
    for (std::int64_t i = 0; i < v.get_int64(); ++i) ids.emplace_back(std::to_string(i));
    return ids;
}

checked_value check_variable_map(value_rule const& rule, boost::json::value const& v)
{
    if (!v.is_object()) return mismatch(rule, v);
    for (auto const& member : v.get_object()) {
        std::string const pointer = json_pointer_append("", member.key());
        if (!is_variable_name(member.key())) {
            return value_problem{quote(member.key()) + " is not a valid variable name", pointer,
                                 "", true};
        }
        if (!member.value().is_string()) {
            return value_problem{cat("expected a string, found ", api::detail::describe(member.value())),
                                 pointer, cat(".", member.key()), false};
        }
    }
    return v;
}

// srun --signal=[R:|B:]SIGNAL[@SECONDS] (is_srun_signal).
checked_value check_srun_signal(value_rule const& rule, boost::json::value const& v)
{
    if (!v.is_string()) return mismatch(rule, v);
    bool const ok = is_srun_signal(v.get_string());
    if (!ok) {
        return problem(show(v) + " is not an srun signal ([R:|B:]SIGNAL[@SECONDS], like "
                                       "TERM@120)");
    }
    return v;
}


// -- override text

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

template <class T>
std::optional<T> whole_number(std::string_view text)
{
    T value{};
    auto const [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return value;
}

// "[...]" or "{...}" as JSON; anything else split at commas ("a, b" or "K=V,K2=V2").
checked_value structured_from_text(value_rule const& rule, std::string_view text)
{
    if (text.starts_with('[') || text.starts_with('{')) {
        auto doc = read_json(text, "");
        if (!doc) {
            return problem(quote(text) + " is not valid JSON ("
                                 + doc.error().message.substr(1) + ")");
        }
        return doc->root();
    }
    boost::json::array items;
    boost::json::object pairs;
    while (!trim(text).empty()) {
        std::size_t const cut = std::min(text.find(','), text.size());
        std::string_view const item = trim(text.substr(0, cut));
        text.remove_prefix(std::min(cut + 1, text.size()));
        if (rule.kind != value_kind::variable_map) {
            items.emplace_back(item);
        } else if (std::size_t const eq = item.find('='); eq != std::string_view::npos) {
            pairs[item.substr(0, eq)] = item.substr(eq + 1);
        } else {
            return problem(quote(item) + " is not NAME=VALUE");
        }
    }
    if (rule.kind == value_kind::variable_map) return pairs;
    return items;
}

// -- documents

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
                    cat("expected an object, found ", api::detail::describe(member.value())));
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

std::optional<std::string> closest_name(std::vector<std::string> const& candidates,
                                        std::string_view name)
{
    return closest(candidates, name);
}

std::string file_source(std::string_view origin) { return cat("file ", origin); }

std::string override_source(config_override const& o)
{
    if (o.origin.starts_with("--set")) return "--set";
    return o.origin.starts_with("-") ? cat("flag ", o.origin) : cat("environment ", o.origin);
}

checked_value check_value(value_rule const& rule, boost::json::value const& v)
{
    if (v.is_null()) {
        if (rule.nullable) return boost::json::value(nullptr);
        return mismatch(rule, v);
    }
    switch (rule.kind) {
        case value_kind::boolean: return v.is_bool() ? checked_value(v) : mismatch(rule, v);
        case value_kind::integer: return check_integer(rule, v);
        case value_kind::number: return check_number(rule, v);
        case value_kind::string:
            if (!v.is_string()) return mismatch(rule, v);
            if (v.get_string().empty()) return problem("must not be empty");
            return v;
        case value_kind::choice: return check_choice(rule, v);
        case value_kind::memory: return check_memory(rule, v);
        case value_kind::signal: return check_signal(rule, v);
        case value_kind::url: return check_url(rule, v);
        case value_kind::date_time: return check_date_time(rule, v);
        case value_kind::string_list:
        case value_kind::variable_names:
        case value_kind::env_patterns: return check_list(rule, v);
        case value_kind::variable_map: return check_variable_map(rule, v);
        case value_kind::gpu_ids: return check_gpu_ids(rule, v);
        case value_kind::srun_signal: return check_srun_signal(rule, v);
    }
    return mismatch(rule, v);
}


checked_value value_from_text(value_rule const& rule, std::string_view text)
{
    if (rule.nullable && text == "null") return boost::json::value(nullptr);
    switch (rule.kind) {
        case value_kind::boolean:
            if (text == "true" || text == "yes" || text == "on" || text == "1") return true;
            if (text == "false" || text == "no" || text == "off" || text == "0") return false;
            return problem(quote(text) + " is not a boolean (true or false)");
        case value_kind::integer:
            if (auto const n = whole_number<std::int64_t>(text)) return *n;
            return problem(quote(text) + " is not an integer");
        case value_kind::number:
            if (auto const d = whole_number<double>(text)) return *d;
            return problem(quote(text) + " is not a number");
        case value_kind::date_time:
            if (auto const d = whole_number<double>(text)) return *d;
            return boost::json::string(text);
        case value_kind::gpu_ids:
            if (auto const n = whole_number<std::int64_t>(text)) return *n;
            return structured_from_text(rule, text);
        case value_kind::string_list:
        case value_kind::variable_names:
        case value_kind::env_patterns:
        case value_kind::variable_map: return structured_from_text(rule, text);
        case value_kind::choice: {  // the boolean spellings, where true and false are choices
            auto const has = [&rule](std::string_view name) {
                return std::ranges::find(rule.choices, name) != rule.choices.end();
            };
            if (has("true") && (text == "yes" || text == "on" || text == "1"))
                return boost::json::string("true");
            if (has("false") && (text == "no" || text == "off" || text == "0"))
                return boost::json::string("false");
            return boost::json::string(text);
        }
        default: return boost::json::string(text);
    }
}

std::string join_lines(std::vector<std::string> const& lines)
{
    std::string out;
    for (auto const& line : lines) out += (out.empty() ? "" : "\n") + line;
    return out;
}

std::string pointer_of(std::string_view path)
{
    std::string pointer;
    while (!path.empty()) {
        std::size_t const cut = std::min(path.find('.'), path.size());
        pointer = json_pointer_append(pointer, path.substr(0, cut));
        path.remove_prefix(std::min(cut + 1, path.size()));
    }
    return pointer;
}

std::vector<std::string> check_document(json_document const& doc, rule_list rules,
                                        accept_fn const& accept)
{
    walker w{doc, rules, accept, {}};
    if (!doc.root().is_object()) {
        w.errors.push_back(cat(doc.location(""), ": expected an object at the top level, found ",
                               api::detail::describe(doc.root())));
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
