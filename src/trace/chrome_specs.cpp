// aten op + recorded input shapes/dtypes -> loom kernel spec, in the vocabulary of loom-bench's case lists
// (bench/shapes.cpp): gemm m n k dtype; attention_prefill / attention_decode; rms_norm / layer_norm / softmax /
// elementwise op=.. rows cols dtype. Argument positions follow aten's native_functions.yaml signatures.
#include <numeric>

#include "trace/chrome_trace.h"

namespace loom {
namespace {

using Dims = std::vector<int64_t>;

std::string S(int64_t v) { return std::to_string(v); }

int64_t prod(const Dims& d, size_t first, size_t last) {
  int64_t p = 1;
  for (size_t i = first; i < last && i < d.size(); ++i) p *= d[i];
  return p;
}

const Dims* dims(const ChromeOp& op, size_t i) {
  return i < op.input_dims.size() && !op.input_dims[i].empty() ? &op.input_dims[i] : nullptr;
}

std::string dtype_at(const ChromeOp& op, size_t i) {
  return i < op.input_types.size() ? dtype_from_torch(op.input_types[i]) : "";
}

std::string gemm(int64_t m, int64_t n, int64_t k, const std::string& dt, int64_t batch = 1) {
  if (m <= 0 || n <= 0 || k <= 0 || dt.empty()) return "";
  return "gemm m=" + S(m) + " n=" + S(n) + " k=" + S(k) + (batch > 1 ? " batch=" + S(batch) : "") + " dtype=" + dt;
}

// "True"/"False"/"1"/"0" concrete input -> 1/0; -1 when not recorded.
int flag(const ChromeOp& op, size_t i) {
  if (i >= op.concrete_inputs.size()) return -1;
  const std::string& v = op.concrete_inputs[i];
  if (v == "True" || v == "true" || v == "1") return 1;
  if (v == "False" || v == "false" || v == "0") return 0;
  return -1;
}

// SDPA variants: q [B, H, Sq, D], k [B, Hkv, Skv, D]; is_causal at argument `causal_arg`.
std::string attention(const ChromeOp& op, size_t causal_arg) {
  const Dims *q = dims(op, 0), *k = dims(op, 1);
  std::string dt = dtype_at(op, 0);
  if (!q || !k || q->size() != 4 || k->size() != 4 || dt.empty()) return "";
  const int64_t b = (*q)[0], h = (*q)[1], sq = (*q)[2], d = (*q)[3], hkv = (*k)[1], skv = (*k)[2];
  if (sq == 1)
    return "attention_decode batch=" + S(b) + " heads=" + S(h) + " kv_heads=" + S(hkv) + " seq_kv=" + S(skv) +
           " head_dim=" + S(d) + " dtype=" + dt;
  int causal = flag(op, causal_arg);
  return "attention_prefill batch=" + S(b) + " heads=" + S(h) + " kv_heads=" + S(hkv) + " seq=" + S(sq) +
         (skv != sq ? " seq_kv=" + S(skv) : "") + " head_dim=" + S(d) + (causal >= 0 ? " causal=" + S(causal) : "") +
         " dtype=" + dt;
}

// Row-wise op over the last dimension of input 0 (norms, softmax).
std::string rowwise(const std::string& family, const ChromeOp& op) {
  const Dims* x = dims(op, 0);
  std::string dt = dtype_at(op, 0);
  if (!x || dt.empty()) return "";
  return family + " rows=" + S(prod(*x, 0, x->size() - 1)) + " cols=" + S(x->back()) + " dtype=" + dt;
}

// Elementwise op: the output has the shape of the largest tensor input (broadcasting).
std::string elementwise(const std::string& opname, const ChromeOp& op) {
  const Dims* best = nullptr;
  size_t best_i = 0;
  for (size_t i = 0; i < op.input_dims.size(); ++i)
    if (const Dims* d = dims(op, i); d && (!best || prod(*d, 0, d->size()) > prod(*best, 0, best->size())))
      best = d, best_i = i;
  std::string dt = best ? dtype_at(op, best_i) : "";
  if (!best || dt.empty()) return "";
  return "elementwise op=" + opname + " rows=" + S(prod(*best, 0, best->size() - 1)) + " cols=" + S(best->back()) +
         " dtype=" + dt;
}

}  // namespace

std::string dtype_from_torch(const std::string& t) {
  if (t == "float") return "fp32";
  if (t == "c10::BFloat16") return "bf16";
  if (t == "c10::Half") return "fp16";
  if (t == "double") return "fp64";
  if (t.rfind("c10::Float8_", 0) == 0) return "fp8";
  if (t == "signed char") return "int8";
  return "";
}

std::string spec_from_op(const ChromeOp& op) {
  const std::string& n = op.name;
  if (n == "aten::mm" || n == "aten::matmul") {
    const Dims *a = dims(op, 0), *b = dims(op, 1);
    if (!a || !b || b->size() != 2 || a->size() < 2 || (*a).back() != (*b)[0]) return "";
    return gemm(prod(*a, 0, a->size() - 1), (*b)[1], (*b)[0], dtype_at(op, 0));
  }
  if (n == "aten::addmm") {  // addmm(bias, mat1 [M,K], mat2 [K,N])
    const Dims *a = dims(op, 1), *b = dims(op, 2);
    if (!a || !b || a->size() != 2 || b->size() != 2 || (*a)[1] != (*b)[0]) return "";
    return gemm((*a)[0], (*b)[1], (*a)[1], dtype_at(op, 1));
  }
  if (n == "aten::bmm") {  // bmm([B,M,K], [B,K,N])
    const Dims *a = dims(op, 0), *b = dims(op, 1);
    if (!a || !b || a->size() != 3 || b->size() != 3 || (*a)[2] != (*b)[1] || (*a)[0] != (*b)[0]) return "";
    return gemm((*a)[1], (*b)[2], (*a)[2], dtype_at(op, 0), (*a)[0]);
  }
  if (n == "aten::linear") {  // linear(x [..., K], weight [N, K], bias)
    const Dims *x = dims(op, 0), *w = dims(op, 1);
    if (!x || !w || w->size() != 2 || x->back() != (*w)[1]) return "";
    return gemm(prod(*x, 0, x->size() - 1), (*w)[0], (*w)[1], dtype_at(op, 0));
  }
  if (n == "aten::_scaled_dot_product_flash_attention") return attention(op, 4);
  if (n == "aten::_scaled_dot_product_efficient_attention" || n == "aten::_scaled_dot_product_cudnn_attention")
    return attention(op, 6);
  if (n == "aten::scaled_dot_product_attention") return attention(op, 5);
  if (n == "aten::rms_norm" || n == "aten::_fused_rms_norm") return rowwise("rms_norm", op);
  if (n == "aten::layer_norm" || n == "aten::native_layer_norm") return rowwise("layer_norm", op);
  if (n == "aten::softmax" || n == "aten::_softmax") return rowwise("softmax", op);
  for (const char* e : {"add", "mul", "silu", "gelu"}) {
    std::string base = std::string("aten::") + e;
    if (n == base || n == base + "_") return elementwise(e, op);
  }
  return "";
}

}  // namespace loom
