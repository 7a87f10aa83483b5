// Fuzz target: arbitrary bytes -> Forest::from_binary (the packed model cache reader) -> a prediction. Only
// std::runtime_error (a refused file) may escape; a forest that loads must walk every tree to a leaf.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "learned/forest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    const loom::Forest f = loom::Forest::from_binary(bytes);
    std::vector<float> x(f.num_features() * 9, 0.5f);
    x[0] = -1e30f;
    std::vector<float> out(9);
    for (int pass : {0, 1}) {  // the trees as they are, then the SIMD walk's layout
      if (pass) f.prepare_batch_layout();
      f.predict_batch(x.data(), 9, f.num_features(), out.data());
      if (f.predict(x.data()) != out[0] && !(out[0] != out[0])) std::abort();  // batch and row walk must agree
    }
  } catch (const std::runtime_error&) {
  }
  return 0;
}
