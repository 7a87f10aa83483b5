// The rows of loom.predict_batch (python/loom_py.cpp) as the batch CSV reader sees them: a list of dicts, a NumPy
// structured array or a pandas DataFrame, each cell as text ("" = absent) and each row named for messages. The three
// containers give the same text for the same values: NumPy scalars are their Python values, pandas' and NumPy's
// missing values are absent as None is, and a cell or column that cannot be read names its row and column.
#include <pybind11/pybind11.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "kernels/kernel_spec.h"
#include "loom_py.h"

namespace py = pybind11;

namespace loom_py {
namespace {

/// A column label as text; a label that is not a str (an int, a tuple of a MultiIndex, None) is refused: it named no
/// key, and "no `family`" or "unknown key '0'" said nothing of why.
std::string column_name(const py::handle& k, const std::string& where) {
  if (!py::isinstance<py::str>(k))
    throw loom::InputError(where, "column " + loom::printable_error(py::repr(k).cast<std::string>()).substr(0, 80) +
                                      " (" + py::str(py::type::of(k).attr("__name__")).cast<std::string>() +
                                      ") is not a name; name the columns by the spec's keys (family, m, n, ...)");
  Py_ssize_t n = 0;
  const char* s = PyUnicode_AsUTF8AndSize(k.ptr(), &n);
  if (!s) {
    PyErr_Clear();
    throw loom::InputError(where, "a column name is not UTF-8 text (a lone surrogate); name it by the spec's key");
  }
  return std::string(s, n);
}

/// NumPy's scalars (np.int64, np.float32, np.bool_, a 0-d array) as the Python values they hold: np.float32(64.0)
/// printed "64.0" (refused, where 64.0 is m=64) and np.float32('nan') "nan" (refused, where NaN is absent).
py::object python_value(const py::handle& v) {
  if (py::hasattr(v, "dtype") && py::hasattr(v, "shape") && py::hasattr(v, "item") &&
      py::isinstance<py::tuple>(v.attr("shape")) && py::len(v.attr("shape")) == 0)
    return v.attr("item")();
  return py::reinterpret_borrow<py::object>(v);
}

/// A missing value: None, NaN, pandas' NA and NaT, NumPy's masked constant (each absent, as None in a dict).
bool missing(const py::handle& v) {
  if (v.is_none()) return true;
  if (py::isinstance<py::float_>(v)) return std::isnan(v.cast<double>());
  const std::string type = py::str(py::type::of(v).attr("__name__")).cast<std::string>();
  return type == "NAType" || type == "NaTType" || type == "MaskedConstant";
}

/// Text as UTF-8, or refused naming the row and column: bytes that are not UTF-8 gave an empty ValueError, a lone
/// surrogate a RuntimeError from pybind11's cast.
std::string utf8_text(const py::handle& v, const std::string& key, const std::string& where) {
  if (py::isinstance<py::bytes>(v)) {
    const std::string s = v.cast<std::string>();
    py::handle u = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "strict");
    if (!u) {
      PyErr_Clear();
      throw loom::InputError(where, key + " holds bytes that are not UTF-8 text; give the spec's value as text");
    }
    u.dec_ref();
    return s;
  }
  const py::str text = py::str(v);
  Py_ssize_t n = 0;
  const char* s = PyUnicode_AsUTF8AndSize(text.ptr(), &n);
  if (!s) {
    PyErr_Clear();
    throw loom::InputError(where, key + " holds text that is not UTF-8 (a lone surrogate); give the spec's value");
  }
  return std::string(s, n);
}

// A cell of a batch row as the CSV reader would see it: "" = absent; integral floats print as integers (NumPy and
// pandas turn integer columns with gaps into floats).
std::string cell_text(const py::handle& cell, const std::string& key, const std::string& where) {
  const py::object v = python_value(cell);
  if (missing(v)) return "";
  if (py::isinstance<py::bool_>(v)) {  // m=True ran m=1: a bool fills only a 0/1 key
    if (!loom::is_flag_key(key))
      throw loom::InputError(where, key.substr(0, 60) + "=" + (v.cast<bool>() ? "True" : "False") +
                                        " is a bool; only the 0/1 keys (causal, residual, mask) take one: give the "
                                        "spec's value");
    return v.cast<bool>() ? "1" : "0";
  }
  // As text, not through long long: 10**30 made pybind11 throw RuntimeError; the spec parser names it instead.
  if (py::isinstance<py::int_>(v)) return py::str(v).cast<std::string>();
  if (py::isinstance<py::float_>(v)) {
    const double x = v.cast<double>();
    if (std::isfinite(x) && x == std::floor(x) && std::fabs(x) < 9e15) return std::to_string(static_cast<long long>(x));
    return py::str(v).cast<std::string>();
  }
  return utf8_text(v, key, where);
}

std::string row_name(size_t r) { return "rows[" + std::to_string(r) + "]"; }

/// A DataFrame's rows: its columns checked first (pandas' to_dict kept one of two same-named columns with a warning
/// only), rows named by position and, where the index is not 0..N-1, by their index label as well.
BatchRows frame_rows(const py::object& frame) {
  const py::object cols = frame.attr("columns");
  if (py::getattr(cols, "nlevels", py::int_(1)).cast<int>() > 1)
    throw loom::InputError("rows", "the DataFrame's columns have " + py::str(cols.attr("nlevels")).cast<std::string>() +
                                       " levels (a MultiIndex); give one level named by the spec's keys");
  std::vector<std::string> names;
  for (const auto& k : cols) names.push_back(column_name(k, "rows"));
  for (size_t i = 0; i < names.size(); ++i)
    for (size_t j = i + 1; j < names.size(); ++j)
      if (names[i] == names[j])
        throw loom::InputError("rows", "column '" + loom::printable_error(names[i]).substr(0, 80) +
                                           "' appears twice in the DataFrame; keep one");
  const py::object index = frame.attr("index");
  const size_t n = py::len(index);
  const bool plain = py::str(py::type::of(index).attr("__name__")).cast<std::string>() == "RangeIndex" &&
                     index.attr("start").cast<long long>() == 0 && index.attr("step").cast<long long>() == 1;
  const py::list labels = index.attr("tolist")();
  BatchRows out;
  out.cells.resize(n);
  for (size_t r = 0; r < n; ++r)
    out.where.push_back(plain ? row_name(r)
                              : row_name(r) + " (index " +
                                    loom::printable_error(py::repr(labels[r]).cast<std::string>()).substr(0, 60) + ")");
  for (size_t c = 0; c < names.size(); ++c) {
    const py::list values = frame.attr("iloc")[py::make_tuple(py::slice(0, static_cast<Py_ssize_t>(n), 1),
                                                              py::int_(c))].attr("tolist")();
    for (size_t r = 0; r < n; ++r) out.cells[r].emplace_back(names[c], cell_text(values[r], names[c], out.where[r]));
  }
  return out;
}

BatchRows structured_rows(const py::object& rows, const py::tuple& names) {
  // One record per row, one scalar per cell: a 0-d array said "'int' object is not iterable", a 2-d one sent lists
  // as cells, a nested record field was dropped.
  if (py::len(rows.attr("shape")) != 1)
    throw loom::InputError("rows", "a NumPy structured array of shape (N,) (one record per row); got shape " +
                                       py::str(rows.attr("shape")).cast<std::string>());
  std::vector<std::string> keys;
  for (const auto& n : names) {
    keys.push_back(column_name(n, "rows"));
    const py::object fd = rows.attr("dtype").attr("fields")[n].cast<py::tuple>()[0];
    if (!py::getattr(fd, "names", py::none()).is_none() || py::len(fd.attr("shape")) != 0)
      throw loom::InputError("rows", "field '" + keys.back() + "' holds a nested record or a sub-array; give one "
                                                               "scalar per cell");
  }
  std::vector<py::list> cols;
  for (const auto& n : names) cols.push_back(rows[n].attr("tolist")());  // masked cells: None
  BatchRows out;
  const size_t n = py::len(rows);
  out.cells.resize(n);
  for (size_t r = 0; r < n; ++r) {
    out.where.push_back(row_name(r));
    for (size_t c = 0; c < cols.size(); ++c)
      out.cells[r].emplace_back(keys[c], cell_text(cols[c][r], keys[c], out.where[r]));
  }
  return out;
}

}  // namespace

BatchRows batch_rows(const py::object& rows) {
  if (py::hasattr(rows, "to_dict") && py::hasattr(rows, "columns") && py::hasattr(rows, "iloc"))  // a DataFrame
    return frame_rows(rows);
  if (py::hasattr(rows, "dtype") && py::hasattr(rows, "shape") && py::isinstance<py::tuple>(rows.attr("shape"))) {
    const py::object names = py::getattr(rows.attr("dtype"), "names", py::none());
    if (!names.is_none()) return structured_rows(rows, names);
    // An array without named fields: its rows are not dicts (a 0-d one is not even iterable). An object array of
    // dicts is a list of dicts.
    const std::string kind = py::str(py::getattr(rows.attr("dtype"), "kind", py::str(""))).cast<std::string>();
    if (py::len(rows.attr("shape")) != 1 || kind != "O")
      throw loom::InputError("rows", "an array of shape " + py::str(rows.attr("shape")).cast<std::string>() +
                                         " without named fields; give a NumPy structured array (fields family, m, ...),"
                                         " a pandas DataFrame or a list of dicts");
  }
  if (!py::isinstance<py::iterable>(rows) || py::isinstance<py::str>(rows) || py::isinstance<py::dict>(rows))
    throw loom::InputError("rows", "must be a list of dicts, a NumPy structured array or a pandas DataFrame");
  BatchRows out;
  for (const auto& row : rows) {
    if (!py::isinstance<py::dict>(row))  // named by index (a Mapping that is not a dict among 1,000 rows)
      throw loom::InputError(row_name(out.cells.size()),
                             "is a " + py::str(py::type::of(row).attr("__name__")).cast<std::string>() +
                                 ", not a dict; each row must be a dict (or pass a NumPy structured array / pandas "
                                 "DataFrame)");
    const std::string where = row_name(out.cells.size());
    out.where.push_back(where);
    auto& cells = out.cells.emplace_back();
    for (const auto& [k, v] : row.cast<py::dict>()) {
      const std::string key = column_name(k, where);
      cells.emplace_back(key, cell_text(v, key, where));
    }
  }
  return out;
}

}  // namespace loom_py
