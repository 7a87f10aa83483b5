// Batch CSV rows -> kernel specs.
#include "trace/batch_csv.h"

#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "trace/text_io.h"

namespace loom {

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells;
  const char* p = line.data();
  const char* const end = p + line.size();
  if (!std::memchr(p, '"', line.size()) && !std::memchr(p, '\r', line.size())) {  // the text between commas
    cells.reserve(size_t(std::count(p, end, ',')) + 1);
    for (const char* comma; (comma = static_cast<const char*>(std::memchr(p, ',', size_t(end - p)))); p = comma + 1)
      cells.emplace_back(p, comma);
    cells.emplace_back(p, end);
    return cells;
  }
  std::string cell;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') cell += '"', ++i;
      else if (ch == '"') quoted = false;
      else cell += ch;
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      cells.push_back(cell);
      cell.clear();
    } else if (ch != '\r') {
      cell += ch;
    }
  }
  cells.push_back(cell);
  return cells;
}

BatchHeader parse_batch_header(std::string line, const std::string& where) {
  trace_io::strip_bom(line);  // spreadsheet exports start with a UTF-8 BOM
  BatchHeader h;
  h.columns = split_csv_line(line);
  trace_io::check_unique_columns(h.columns, where);
  for (size_t c = 0; c < h.columns.size(); ++c) {
    // An unnamed column's cells would be dropped silently: every value in the file must land somewhere.
    if (h.columns[c].empty())
      throw InputError(where, "column " + std::to_string(c + 1) + " of the header has no name; name it (e.g. m, dtype) "
                              "or delete the column");
    if (h.columns[c] == "family") h.family_col = static_cast<int>(c);
    if (h.columns[c] == "gpu") h.gpu_col = static_cast<int>(c);
  }
  if (h.family_col < 0) throw InputError(where, "no `family` column in the header");
  return h;
}

KernelSpec batch_row_spec(const BatchHeader& h, const std::vector<std::string>& cells, const std::string& where,
                          std::string& gpu) {
  if (cells.size() != h.columns.size())
    throw InputError(where, std::to_string(cells.size()) + " cells, header has " + std::to_string(h.columns.size()));
  KernelSpec spec;
  spec.where = where;
  spec.family = cells[static_cast<size_t>(h.family_col)];
  for (size_t c = 0; c < cells.size(); ++c)
    if (static_cast<int>(c) != h.family_col && static_cast<int>(c) != h.gpu_col && !cells[c].empty())
      spec.params[h.columns[c]] = cells[c];
  gpu = h.gpu_col >= 0 ? cells[static_cast<size_t>(h.gpu_col)] : "";
  return spec;
}

}  // namespace loom
