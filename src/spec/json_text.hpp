// JSON text as Torc's client writes it with serde_json (private to src/spec): compact,
// object keys sorted bytewise (serde_json's BTreeMap map), floats in ryu's shortest form
// (`1.0`, `0.95`, `1e-7`, `1.5e300`), and serde_json's string escapes. Torc stores user data,
// failure-handler rules, slurm_defaults and the monitor settings in this form, and substitutes
// user data into commands with it, so torcrun's text must match byte for byte.
#pragma once

#include <boost/json/value.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace torcrun::core::spec {

// serde_json's `to_string`; `sort_keys` false keeps insertion order (the order-sensitive
// records Torc builds from structs). Non-finite floats print `null`, as serde_json does.
std::string compact_json(boost::json::value const& value, bool sort_keys = true);

// serde_json's f64 text (ryu `format_finite`): always a `.0` or an exponent for integral
// values, `e` notation outside 1e-5 <= |x| < 1e16.
std::string json_float_text(double value);

// A value quoted in a message: its compact JSON, cut at `limit` bytes (on a UTF-8 boundary)
// with "..." appended, so a message never carries a whole document.
std::string describe_value(boost::json::value const& value, std::size_t limit = 60);

}  // namespace torcrun::core::spec
