// parameters_file tables: bytes -> core::spec::parse_parameter_table, the first byte choosing
// the format (.csv, .json, .jsonl) and the rest the table's text. Beyond "no crash": an error
// has a message; a table has rows, and every name a row binds is one of its columns.
#include "fuzz_check.hpp"

#include "torcrun/spec/parameter_table.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size)
{
    using namespace torcrun;
    if (size == 0) return 0;
    static constexpr std::array<std::string_view, 3> names{"t.csv", "t.json", "t.jsonl"};
    auto const name = names[data[0] % names.size()];
    auto const table = core::spec::parse_parameter_table(fuzz::text_of(data + 1, size - 1), name);
    fuzz::check_error_text(table);
    if (!table) return 0;
    fuzz::check(!table->rows.empty(), "a table that parses has rows");
    for (auto const& row : table->rows) {
        for (auto const& binding : row) {
            bool const known = std::find(table->columns.begin(), table->columns.end(),
                                         binding.name) != table->columns.end();
            fuzz::check(known, "every name a row binds is a column");
        }
    }
    return 0;
}
