// Fuzz target: arbitrary bytes -> Forest::from_binary and from_binary_in_place (the packed model cache reader: the
// arrays copied, or walked where they lie) -> a prediction. Only std::runtime_error (a refused file) may escape; a
// forest that loads must walk every tree to a leaf, and both readers must agree.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "learned/forest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  // The in-place reader over an 8-byte-aligned copy (as in a mapped file): refused exactly when from_binary refuses.
  auto aligned = std::make_shared<std::vector<uint64_t>>(size / 8 + 1);
  std::memcpy(aligned->data(), data, size);
  const std::string_view view(reinterpret_cast<const char*>(aligned->data()), size);
  bool in_place_ok = true;
  float in_place = 0;
  std::vector<float> probe;
  try {
    const loom::Forest g = loom::Forest::from_binary_in_place(view, aligned);
    probe.assign(g.num_features(), 0.5f);
    probe[0] = -1e30f;
    in_place = g.predict(probe.data());
  } catch (const std::runtime_error&) {
    in_place_ok = false;
  }
  try {
    const loom::Forest f = loom::Forest::from_binary(bytes);
    if (!in_place_ok) std::abort();
    if (f.predict(probe.data()) != in_place && in_place == in_place) std::abort();
    std::vector<float> x(f.num_features() * 9, 0.5f);
    x[0] = -1e30f;
    std::vector<float> out(9);
    for (int pass : {0, 1}) {  // the trees as they are, then the SIMD walk's layout
      if (pass) f.prepare_batch_layout();
      f.predict_batch(x.data(), 9, f.num_features(), out.data());
      if (f.predict(x.data()) != out[0] && !(out[0] != out[0])) std::abort();  // batch and row walk must agree
    }
  } catch (const std::runtime_error&) {
    if (in_place_ok) std::abort();
  }
  return 0;
}
