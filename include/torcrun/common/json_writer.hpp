// JSON text for people: the configuration printed by `torcrun config`, the example files and
// the documentation tables. Boost.JSON's serializer writes 5.0 as "5E0" and has no indentation,
// so this writer formats numbers in their shortest exact form and indents containers.
#pragma once

#include <boost/json/value.hpp>

#include <cstddef>
#include <string>

namespace torcrun::core {

// `indent` spaces per level, one member or element per line; indent 0 writes one line with
// ", " and ": " separators. Empty containers are "{}" and "[]". Non-finite doubles are written
// as JSON5's Infinity, -Infinity and NaN.
std::string write_json(boost::json::value const& value, std::size_t indent = 4);

// The shortest text that reads back as the same double: 5 -> "5", 0.1 -> "0.1", 1e300 ->
// "1e+300"; whole numbers below 2^53 in plain digits (1e6 -> "1000000"). So a whole double
// reads back as an integer; the configuration accepts either where it wants a number.
std::string format_number(double value);

}  // namespace torcrun::core
