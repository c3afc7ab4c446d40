// apply_workflow_variables (see workflow_variables.hpp): Torc's token rules kept exactly. A
// token is `{inner}` not preceded by `$`; its name is `inner` up to the first `:`. The checks
// (undefined names, references in values) look for the nearest `}` before another `{`, and only
// names that are identifiers count; the substitution looks for the nearest `}` and replaces a
// variable's token, `{name:fmt}` included (a string prints as itself whatever the format).
#include "workflow_variables.hpp"

#include "json_text.hpp"
#include "message_text.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace torcrun::core::spec::detail {

namespace {

using variable_list = std::vector<std::pair<std::string, std::string>>;

bool is_identifier(std::string_view s)
{
    if (s.empty()) return false;
    auto const head = static_cast<unsigned char>(s.front());
    if (!(std::isalpha(head) || head == '_')) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        auto const u = static_cast<unsigned char>(c);
        return std::isalnum(u) || u == '_';
    });
}

// The first `{inner}` whose name is an identifier, as Torc's checks find tokens.
std::optional<std::string_view> first_named_token(std::string_view s,
                                                  std::vector<std::string> const* allowed)
{
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '{' || (i > 0 && s[i - 1] == '$')) continue;
        std::size_t j = i + 1;
        while (j < s.size() && s[j] != '}' && s[j] != '{') ++j;
        if (j >= s.size() || s[j] != '}') continue;
        auto const inner = s.substr(i + 1, j - i - 1);
        auto const name = inner.substr(0, inner.find(':'));
        if (is_identifier(name)
            && (!allowed || std::find(allowed->begin(), allowed->end(), name) == allowed->end()))
            return inner;
        i = j;
    }
    return std::nullopt;
}

std::string substitute(std::string_view s, variable_list const& variables)
{
    std::string out;
    std::size_t copied = 0;
    for (std::size_t i = 0; i < s.size();) {
        if (s[i] != '{' || (i > 0 && s[i - 1] == '$')) {
            ++i;
            continue;
        }
        auto const close = s.find('}', i + 1);
        if (close == std::string_view::npos) {
            ++i;
            continue;
        }
        auto const inner = s.substr(i + 1, close - i - 1);
        auto const name = inner.substr(0, inner.find(':'));
        auto const v = std::find_if(variables.begin(), variables.end(),
                                    [&](auto const& p) { return p.first == name; });
        if (v != variables.end()) {
            out.append(s.substr(copied, i - copied)).append(v->second);
            copied = close + 1;
        }
        i = close + 1;
    }
    return out.append(s.substr(copied));
}

// "/jobs/3/command" as `jobs[3] command`, for messages about a string found by walking.
std::string describe_pointer(std::string_view pointer)
{
    std::string out;
    for (std::size_t pos = 1; pos <= pointer.size() && !pointer.empty();) {
        auto const end = std::min(pointer.find('/', pos), pointer.size());
        auto const part = pointer.substr(pos, end - pos);
        bool const index = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) {
            return c >= '0' && c <= '9';
        });
        if (index) out.append(concat({"[", part, "]"}));
        else out.append(out.empty() ? "" : " ").append(part);
        pos = end + 1;
    }
    return out.empty() ? "workflow" : out;
}

struct parameter_name {
    std::string name;
    std::string where;  // file:line:col of the key or of the table's parameters_file
    std::string what;   // how the message calls its origin
};

class variables_pass {
public:
    variables_pass(spec_document const& document, variable_list variables,
                   std::vector<std::string> valid)
        : document_(document), variables_(std::move(variables)), valid_(std::move(valid))
    {
    }

    // Checks and substitutes `value` (at `pointer`) in place; the first error stops the walk.
    result<void> walk(boost::json::value& value, std::string const& pointer)
    {
        if (value.is_string()) return visit_string(value.get_string(), pointer);
        if (value.is_array()) {
            auto& items = value.get_array();
            for (std::size_t i = 0; i < items.size(); ++i)
                if (auto r = walk(items[i], json_pointer_append(pointer, i)); !r) return r;
            return {};
        }
        if (!value.is_object()) return {};
        for (auto& member : value.get_object()) {
            std::string const child = json_pointer_append(pointer, member.key());
            if (member.key() == "variables" || member.key() == "use_parameters") continue;
            if (member.key() == "parameters") {  // the values only; keys are names
                if (!member.value().is_object()) continue;
                for (auto& p : member.value().get_object())
                    if (auto r = walk(p.value(), json_pointer_append(child, p.key())); !r)
                        return r;
                continue;
            }
            if (auto r = walk(member.value(), child); !r) return r;
        }
        return {};
    }

private:
    result<void> visit_string(boost::json::string& s, std::string const& pointer)
    {
        std::string_view const text(s.data(), s.size());
        if (auto const undefined = first_named_token(text, &valid_))
            return error{concat({document_.location(pointer), ": ", describe_pointer(pointer),
                                 ": undefined template name {", *undefined, "} in ", quoted(text),
                                 ": neither a workflow variable nor a parameter (add it to "
                                 "\"variables\" or fix the typo)"})};
        auto replaced = substitute(text, variables_);
        if (replaced != text) s = replaced;
        return {};
    }

    spec_document const& document_;
    variable_list variables_;
    std::vector<std::string> valid_;
};

// Every parameter name of the spec: the keys of each `parameters` map (workflow, jobs, files,
// user data) and the columns of the parameters_file tables that can be read (a table that
// cannot is reported where an entry reads it). A table path is substituted first.
std::vector<parameter_name> parameter_names(spec_document const& document,
                                            boost::json::object const& root,
                                            variable_list const& variables, spec_tables& tables)
{
    std::vector<parameter_name> out;
    auto add_keys = [&](boost::json::object const& owner, std::string const& pointer) {
        auto const* params = owner.if_contains("parameters");
        if (!params || !params->is_object()) return;
        std::string const at = json_pointer_append(pointer, "parameters");
        for (auto const& m : params->get_object())
            out.push_back({m.key(), document.location(json_pointer_append(at, m.key()), true),
                           concat({describe_pointer(at), " key"})});
    };
    auto add_columns = [&](boost::json::object const& owner, std::string const& pointer) {
        auto const* file = owner.if_contains("parameters_file");
        if (!file || !file->is_string()) return;
        std::string const path = substitute(std::string_view(file->get_string()), variables);
        auto const index = tables.load(path);
        if (!index) return;
        std::string const at = json_pointer_append(pointer, "parameters_file");
        for (auto const& column : tables.tables()[*index].columns)
            out.push_back({column, document.location(at),
                           concat({describe_pointer(at), " column of ", path})});
    };
    add_keys(root, "");
    add_columns(root, "");
    for (std::string_view list : {"jobs", "files", "user_data"}) {
        auto const* entries = root.if_contains(list);
        if (!entries || !entries->is_array()) continue;
        std::string const at = json_pointer_append("", list);
        for (std::size_t i = 0; i < entries->get_array().size(); ++i) {
            auto const& entry = entries->get_array()[i];
            if (!entry.is_object()) continue;
            add_keys(entry.get_object(), json_pointer_append(at, i));
            add_columns(entry.get_object(), json_pointer_append(at, i));
        }
    }
    return out;
}

}  // namespace

result<std::optional<boost::json::value>> apply_workflow_variables(spec_document const& document,
                                                                   spec_tables& tables)
{
    auto const& root = document.root();
    if (!root.is_object()) return std::optional<boost::json::value>{};
    auto const* map = root.get_object().if_contains("variables");
    if (!map) return std::optional<boost::json::value>{};
    if (!map->is_object())  // null too: Torc checks the raw value before serde reads null as none
        return error{concat({document.location("/variables", true),
                             ": workflow: field \"variables\" must be an object of strings, found ",
                             describe_value(*map)})};
    if (map->get_object().empty()) return std::optional<boost::json::value>{};
    variable_list variables;
    for (auto const& m : map->get_object()) {
        std::string const pointer = json_pointer_append("/variables", m.key());
        if (!is_identifier(m.key()))
            return error{concat({document.location(pointer, true), ": workflow: variables: ",
                                 quoted(m.key()),
                                 " is not a valid name ([A-Za-z_][A-Za-z0-9_]*)"})};
        if (!m.value().is_string())
            return error{concat({document.location(pointer), ": workflow: variables: the value of ",
                                 quoted(m.key()), " must be a string, found ",
                                 describe_value(m.value())})};
        variables.emplace_back(m.key(), m.value().get_string());
    }
    auto const names = parameter_names(document, root.get_object(), variables, tables);
    for (auto const& variable : variables) {
        std::string const& name = variable.first;  // clang 14 lambdas take no structured binding
        auto const clash = std::find_if(names.begin(), names.end(),
                                        [&](auto const& p) { return p.name == name; });
        if (clash == names.end()) continue;
        return error{concat({clash->where, ": ", clash->what, " ", quoted(name),
                             " is also the name of a workflow variable (",
                             document.location(json_pointer_append("/variables", name), true),
                             "); rename the one or the other"})};
    }
    std::vector<std::string> variable_names;
    for (auto const& [name, value] : variables) variable_names.push_back(name);
    for (auto const& [name, value] : variables) {
        auto const token = first_named_token(value, nullptr);
        if (!token) continue;
        auto const ref = token->substr(0, token->find(':'));
        bool const other = std::find(variable_names.begin(), variable_names.end(), ref)
                           != variable_names.end();
        return error{concat(
            {document.location(json_pointer_append("/variables", name)),
             ": workflow: variables: the value of ", quoted(name), " ",
             other ? "refers to the variable {" : "holds the template reference {", *token,
             "}; a variable's value must be a literal string (compose at the use site; ${...} "
             "is kept)"})};
    }
    std::vector<std::string> valid = variable_names;
    for (auto const& p : names) valid.push_back(p.name);
    boost::json::value copy = root;
    variables_pass pass(document, std::move(variables), std::move(valid));
    if (auto walked = pass.walk(copy, ""); !walked) return walked.error();
    return std::optional<boost::json::value>(std::move(copy));
}

}  // namespace torcrun::core::spec::detail
