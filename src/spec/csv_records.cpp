// A CSV state machine with the csv crate's default reading (see csv_records.hpp): one pass over
// the text, a record ending at an unquoted line end, blank lines giving no record.
#include "csv_records.hpp"

#include "message_text.hpp"

namespace torcrun::core::spec::detail {

namespace {

enum class cell_state { start, unquoted, quoted, quote_in_quoted };

}  // namespace

result<std::vector<csv_record>> read_csv_records(std::string_view text, std::string_view origin,
                                                 std::size_t max_rows)
{
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
    std::vector<csv_record> out;
    csv_record record;
    std::string cell;
    cell_state state = cell_state::start;
    std::size_t line = 1;
    bool in_record = false;  // some character of the current record was read
    auto end_cell = [&] {
        record.fields.push_back(std::move(cell));
        cell.clear();
        state = cell_state::start;
    };
    auto end_record = [&]() -> result<void> {
        if (!in_record) return {};  // a blank line
        end_cell();
        if (out.size() > max_rows)  // the header and max_rows rows are in
            return error{concat({origin, ":", std::to_string(record.line), ": more than ",
                                 std::to_string(max_rows),
                                 " rows, torcrun's limit on the combinations of one entry"})};
        out.push_back(std::move(record));
        record = csv_record{};
        in_record = false;
        return {};
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        char const c = text[i];
        bool const line_end = c == '\n' || c == '\r';
        if (!in_record && !line_end) {
            in_record = true;
            record.line = line;
        }
        if (line_end && state != cell_state::quoted) {
            if (auto ended = end_record(); !ended) return ended.error();
        }
        if (line_end) {
            if (state == cell_state::quoted) cell.push_back(c);
            if (c == '\n' || i + 1 == text.size() || text[i + 1] != '\n') ++line;
            continue;
        }
        switch (state) {
        case cell_state::start:
            if (c == '"') {
                state = cell_state::quoted;
            } else if (c == ',') {
                end_cell();
            } else {
                cell.push_back(c);
                state = cell_state::unquoted;
            }
            break;
        case cell_state::unquoted:
            if (c == ',') end_cell();
            else cell.push_back(c);
            break;
        case cell_state::quoted:
            if (c == '"') state = cell_state::quote_in_quoted;
            else cell.push_back(c);
            break;
        case cell_state::quote_in_quoted:
            if (c == '"') {
                cell.push_back('"');
                state = cell_state::quoted;
            } else if (c == ',') {
                end_cell();
            } else {
                cell.push_back(c);
                state = cell_state::unquoted;
            }
            break;
        }
    }
    if (auto ended = end_record(); !ended) return ended.error();
    return out;
}

}  // namespace torcrun::core::spec::detail
