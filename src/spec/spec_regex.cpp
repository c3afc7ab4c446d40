// The RE2 side of spec_regex.hpp, kept in one file so only it includes re2.
#include "spec_regex.hpp"

#include "message_text.hpp"

#include <re2/re2.h>

namespace torcrun::core::spec::detail {

regex_cache::regex_cache() = default;
regex_cache::~regex_cache() = default;

result<re2::RE2 const*> regex_cache::get(std::string const& pattern)
{
    auto it = compiled_.find(pattern);
    if (it == compiled_.end()) {
        re2::RE2::Options options;
        options.set_log_errors(false);
        auto regex = std::make_unique<re2::RE2>(pattern, options);
        if (!regex->ok()) return error{concat({regex->error(), ""})};
        it = compiled_.emplace(pattern, std::move(regex)).first;
    }
    return it->second.get();
}

bool search(re2::RE2 const& regex, std::string_view text)
{
    return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), regex);
}

}  // namespace torcrun::core::spec::detail
