// The kernel batch CSV of `loom predict --batch` (and the Python module's batch input): a header with a `family`
// column, optionally `gpu`, and one column per kernel parameter; each row becomes a KernelSpec.
#pragma once

#include <string>
#include <vector>

#include "kernels/kernel_spec.h"

namespace loom {

/// One CSV line split into cells (RFC-4180 quotes, "" inside quotes; a trailing \r dropped).
std::vector<std::string> split_csv_line(const std::string& line);

struct BatchHeader {
  std::vector<std::string> columns;
  int family_col = -1, gpu_col = -1;
};

/// The header line (a UTF-8 BOM dropped): `family` required, no column twice. Throws InputError(where, ...).
BatchHeader parse_batch_header(std::string line, const std::string& where);

/// A data row as a KernelSpec (family from its column, other non-empty cells as key=value); `gpu` gets the row's
/// `gpu` cell ("" when absent or empty). Throws InputError(where, ...) when the cell count differs from the header.
KernelSpec batch_row_spec(const BatchHeader& header, const std::vector<std::string>& cells, const std::string& where,
                          std::string& gpu);

}  // namespace loom
