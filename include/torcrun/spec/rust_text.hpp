// The Rust standard-library text rules that Torc's parameter handling inherits: `str::trim`,
// `FromStr` for i64, usize and f64, f64 `Display`, `{:.N}` and `{:0N}`. Torc's observable
// results (which strings are numbers, how a float prints) come from exactly these, so torcrun
// reproduces them here instead of approximating them with the C++ defaults.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace torcrun::core::spec::rust {

// `str::trim`: strips Unicode White_Space (ASCII blanks, U+0085, U+00A0, U+1680, U+2000-U+200A,
// U+2028, U+2029, U+202F, U+205F, U+3000) from both ends. Malformed UTF-8 stops the trimming.
std::string_view trim(std::string_view text);

// `i64::from_str`: optional `+`/`-`, then one or more ASCII digits, in range.
std::optional<std::int64_t> parse_i64(std::string_view text);

// `usize::from_str`: optional `+`, then one or more ASCII digits, in range (64-bit target).
std::optional<std::uint64_t> parse_usize(std::string_view text);

// `f64::from_str`: optional sign, then `inf`, `infinity` or `nan` (any case), or a decimal with
// an optional exponent (`1`, `1.`, `.5`, `1e3`, `2.5E-3`). Out-of-range values give +-inf or
// +-0 as in Rust; hex floats, `nan(...)` and surrounding blanks are rejected.
std::optional<double> parse_f64(std::string_view text);

// f64 `Display`: shortest round-trip digits, never in exponent form (`1`, `0.1`, `-0`,
// `0.0000001`, `1000000000000000000000`), `NaN`, `inf`, `-inf`.
std::string display_f64(double value);

// f64 `{:.N}`: N decimals of the exact binary value, ties to even (`0.125` -> `0.12`). The
// result is about N characters long, so callers bound N (template_substitution caps it).
std::string fixed_f64(double value, std::size_t precision);

// i64 `{:0N}`: zero padding to `width` characters with the sign inside the width (`-05`).
std::string zero_padded_i64(std::int64_t value, std::size_t width);

}  // namespace torcrun::core::spec::rust
