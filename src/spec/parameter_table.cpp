// parameters_file tables (newer Torc; docs/TORC-COMPATIBILITY.md §4.4): the format by
// extension, CSV through read_csv_records with each cell typed integer, else float, else
// string, JSON and JSONL through core::read_json. Torc's own table reader was not in the sources
// read (its docs were: `parameterization.md` at d37dc9a), so where they say nothing torcrun
// keeps the csv crate's and serde_json's defaults, and docs/TORC-COMPATIBILITY.md says which.
#include "torcrun/spec/parameter_table.hpp"

#include "csv_records.hpp"
#include "json_text.hpp"
#include "message_text.hpp"
#include "torcrun/common/json_reader.hpp"
#include "torcrun/spec/rust_text.hpp"
#include "torcrun/spec/spec_limits.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

namespace torcrun::core::spec {

namespace {

enum class table_format { csv, json, json_lines };

std::string lower_extension(std::string_view path)
{
    auto const slash = path.find_last_of('/');
    auto const base = slash == std::string_view::npos ? path : path.substr(slash + 1);
    auto const dot = base.find_last_of('.');
    if (dot == std::string_view::npos || dot == 0) return "";
    std::string out(base.substr(dot + 1));
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

void add_column(parameter_table& table, std::string const& name)
{
    if (std::find(table.columns.begin(), table.columns.end(), name) == table.columns.end())
        table.columns.push_back(name);
}

// Binds `name` in `row`; a repeated name keeps its place and takes the later value, as a map
// insert does in Torc.
void bind(combination& row, std::string name, parameter_value value)
{
    for (auto& b : row) {
        if (b.name != name) continue;
        b.value = std::move(value);
        return;
    }
    row.push_back({std::move(name), std::move(value)});
}

parameter_value csv_cell(std::string cell)
{
    if (auto i = rust::parse_i64(cell)) return {*i};
    if (auto f = rust::parse_f64(cell)) return {*f};
    return {std::move(cell)};
}

result<parameter_table> read_csv(std::string_view text, std::string_view path)
{
    auto records = detail::read_csv_records(text, path, max_combinations);
    if (!records) return records.error();
    parameter_table table;
    if (records->empty()) return table;
    auto const& header = records->front().fields;
    for (auto const& name : header) add_column(table, name);
    table.rows.reserve(records->size() - 1);
    for (std::size_t r = 1; r < records->size(); ++r) {
        auto& record = (*records)[r];
        if (record.fields.size() != header.size())
            return error{concat({path, ":", std::to_string(record.line), ": row ",
                                 std::to_string(r), " has ", std::to_string(record.fields.size()),
                                 record.fields.size() == 1 ? " cell" : " cells",
                                 ", the header has ", std::to_string(header.size())})};
        combination row;
        for (std::size_t c = 0; c < header.size(); ++c)
            bind(row, header[c], csv_cell(std::move(record.fields[c])));
        table.rows.push_back(std::move(row));
    }
    return table;
}

parameter_value json_cell(boost::json::value const& v)
{
    if (v.is_string()) return {std::string(v.get_string())};
    if (v.is_int64()) return {v.get_int64()};
    if (v.is_uint64()) return {static_cast<double>(v.get_uint64())};
    if (v.is_double() && std::isfinite(v.get_double())) return {v.get_double()};
    return {compact_json(v)};  // booleans, null, arrays and objects: serde_json's text
}

// One object of the table; `where` is "file:line:col" of it, `what` how messages call it.
result<void> add_json_row(parameter_table& table, boost::json::value const& v,
                          std::string const& where, std::string_view what)
{
    if (!v.is_object())
        return error{concat({where, ": ", what, " must be an object of parameter values, found ",
                             describe_value(v)})};
    if (table.rows.size() == max_combinations)
        return error{concat({where, ": more than ", std::to_string(max_combinations),
                             " rows, torcrun's limit on the combinations of one entry"})};
    combination row;
    for (auto const& member : v.get_object()) {
        std::string name(member.key());
        add_column(table, name);
        bind(row, std::move(name), json_cell(member.value()));
    }
    table.rows.push_back(std::move(row));
    return {};
}

result<parameter_table> read_json_array(std::string_view text, std::string_view path)
{
    auto document = read_json(text, path);
    if (!document) return document.error();
    auto const& root = document->root();
    if (!root.is_array())
        return error{concat({document->location(""),
                             ": a .json parameters_file must be an array of objects, found ",
                             describe_value(root)})};
    parameter_table table;
    auto const& items = root.get_array();
    for (std::size_t i = 0; i < items.size(); ++i) {
        auto added = add_json_row(table, items[i], document->location(json_pointer_append("", i)),
                                  concat({"element ", std::to_string(i)}));
        if (!added) return added.error();
    }
    return table;
}

result<parameter_table> read_json_lines(std::string_view text, std::string_view path)
{
    parameter_table table;
    std::size_t line = 0;
    for (std::size_t start = 0; start < text.size();) {
        auto end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        auto const content = text.substr(start, end - start);
        start = end + 1;
        ++line;
        if (rust::trim(content).empty()) continue;
        std::string const origin = concat({path, ":", std::to_string(line)});
        auto document = read_json(content, path);
        if (!document) {
            // The reader counts lines within the one line it was given: name the file's line.
            auto message = document.error().message;
            std::string const first = concat({path, ":1:"});
            if (message.starts_with(first)) message.replace(0, first.size(), origin + ":");
            return error{std::move(message)};
        }
        auto added = add_json_row(table, document->root(), origin, "the line");
        if (!added) return added.error();
    }
    return table;
}

}  // namespace

result<parameter_table> parse_parameter_table(std::string_view text, std::string_view path)
{
    if (text.size() > max_parameter_table_bytes)
        return error{concat({path, ": larger than ", std::to_string(max_parameter_table_bytes),
                             " bytes, torcrun's limit on a parameters_file"})};
    std::string const ext = lower_extension(path);
    result<parameter_table> table = error{concat(
        {path, ": a parameters_file must be named .csv, .json, .jsonl or .ndjson"})};
    if (ext == "csv") table = read_csv(text, path);
    else if (ext == "json") table = read_json_array(text, path);
    else if (ext == "jsonl" || ext == "ndjson") table = read_json_lines(text, path);
    if (table && table->rows.empty())
        return error{concat({path, ": the table has no rows; a parameters_file needs at least "
                                   "one"})};
    return table;
}

}  // namespace torcrun::core::spec
