// Regular expressions for the `*_regexes` fields and action job selection (private to
// src/spec). Torc uses Rust's `regex` crate; RE2 has the same syntax family (no
// look-around, no backreferences) and the same unanchored `is_match` search. One difference:
// RE2's `\d`, `\w` and `\s` are ASCII-only where Rust's are Unicode.
#pragma once

#include "torcrun/common/error.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace re2 {
class RE2;
}

namespace torcrun::core::spec::detail {

class regex_cache {
public:
    regex_cache();
    ~regex_cache();
    regex_cache(regex_cache const&) = delete;
    regex_cache& operator=(regex_cache const&) = delete;

    // The compiled pattern (compiled once per distinct text), or RE2's complaint:
    // `missing ): ^fit_(`.
    result<re2::RE2 const*> get(std::string const& pattern);

private:
    std::unordered_map<std::string, std::unique_ptr<re2::RE2>> compiled_;
};

// Rust's `Regex::is_match`: does the pattern match anywhere in `text`?
bool search(re2::RE2 const& regex, std::string_view text);

}  // namespace torcrun::core::spec::detail
