// The parameters_file tables one spec names (private to src/spec): each path read through the
// caller's table_loader and parsed once, whether the variables check asks for its columns or an
// entry for its rows, so a table shared by many entries costs one read.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/spec/parameter_table.hpp"

#include <cstddef>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

namespace torcrun::core::spec::detail {

class spec_tables {
public:
    // Without a loader every table is refused ("PATH: cannot read: no table reader was given").
    explicit spec_tables(table_loader loader);

    // The index in tables() of the table at `path`, or why it cannot be read or parsed.
    result<std::size_t> load(std::string const& path);

    std::vector<parameter_table>& tables() noexcept { return tables_; }

private:
    table_loader loader_;
    std::unordered_map<std::string, std::variant<std::size_t, error>> seen_;
    std::vector<parameter_table> tables_;
};

}  // namespace torcrun::core::spec::detail
