// The parameters_file tables of a spec read from disk for the pure spec reader
// (core::spec::table_loader): the path as the spec gives it, so a relative one is taken from the
// working directory, as Torc's client reads it (docs/TORC-COMPATIBILITY.md §4.4).
#pragma once

#include "torcrun/spec/parameter_table.hpp"

namespace torcrun::apps {

// Reads a table's whole text; a file larger than core::spec::max_parameter_table_bytes is
// refused before it is read ("PATH: larger than N bytes, ...").
core::spec::table_loader table_file_loader();

}  // namespace torcrun::apps
