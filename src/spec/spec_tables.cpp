// spec_tables: one read and one parse per parameters_file path, failures remembered too.
#include "spec_tables.hpp"

#include "message_text.hpp"

namespace torcrun::core::spec::detail {

spec_tables::spec_tables(table_loader loader) : loader_(std::move(loader)) {}

result<std::size_t> spec_tables::load(std::string const& path)
{
    if (auto const it = seen_.find(path); it != seen_.end()) {
        if (auto const* index = std::get_if<std::size_t>(&it->second)) return *index;
        return std::get<error>(it->second);
    }
    auto text = loader_ ? loader_(path)
                        : result<std::string>(error{
                              concat({path, ": cannot read: no table reader was given"})});
    auto table = text ? parse_parameter_table(*text, path) : result<parameter_table>(text.error());
    if (!table) {
        seen_.emplace(path, table.error());
        return table.error();
    }
    tables_.push_back(std::move(*table));
    seen_.emplace(path, tables_.size() - 1);
    return tables_.size() - 1;
}

}  // namespace torcrun::core::spec::detail
