// Shared parts of the Python module (python/loom_py.cpp): the process-wide catalogue and predictors, and the
// bindings that live in their own files.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "e2e/kernel_predictor.h"
#include "hw/catalog.h"
#include "learned/predictor.h"

namespace loom_py {

/// One catalogue and one predictor per model kind for the process: the forests load once, lazily.
const loom::Catalog& catalog();
const loom::Predictor& predictor(const std::string& model);
/// The e2e kernel predictor of a kernel_model= (learned or analytical).
const loom::KernelPredictor& kernel_predictor(const std::string& model);

/// The rows of loom.predict_batch (python/loom_py_rows.cpp): per row its name for messages ("rows[3]", with the
/// DataFrame's index label where it is not 0..N-1) and its (column, text) cells, "" = absent.
struct BatchRows {
  std::vector<std::string> where;
  std::vector<std::vector<std::pair<std::string, std::string>>> cells;
};
/// A list of dicts, a NumPy structured array or a pandas DataFrame as rows; a bad container, column or cell is an
/// InputError naming the row and column.
BatchRows batch_rows(const pybind11::object& rows);

/// loom.e2e: one LLM step; a dict of times, the breakdown by family, the memory fit and the CLI's warnings.
pybind11::dict e2e_step(const std::string& gpu, const std::string& model_name, const std::string& phase, int64_t batch,
                        int64_t seq, int64_t context, int tp, const std::string& profile, const std::string& mode,
                        const std::string& kernel_model);

}  // namespace loom_py
