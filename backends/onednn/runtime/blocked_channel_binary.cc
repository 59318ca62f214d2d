#include "backends/onednn/runtime/blocked_channel_binary.h"

#include <algorithm>

#include "backends/onednn/runtime/thread_ranges.h"

namespace glassbox::backends::onednn {
namespace {

// Channel blocks [first, end) of all images (index n * blocks + b), each
// `pixels` runs of `block` lanes.
template <class Op>
void run_blocks(Op op, std::int64_t first, std::int64_t end, std::int64_t blocks,
                std::int64_t channels, std::int64_t pixels, std::int64_t block, const float* x,
                const float* s, float* y) {
  float scale[64];  // one block's values of s (block <= 64), 0 past C
  for (std::int64_t nb = first; nb < end; ++nb) {
    const std::int64_t n = nb / blocks;
    const std::int64_t c0 = (nb % blocks) * block;
    const std::int64_t lanes = std::min(block, channels - c0);
    for (std::int64_t k = 0; k < block; ++k) scale[k] = k < lanes ? s[n * channels + c0 + k] : 0.f;
    const float* in = x + nb * pixels * block;
    float* out = y + nb * pixels * block;
    for (std::int64_t p = 0; p < pixels; ++p) {
      for (std::int64_t k = 0; k < block; ++k) out[p * block + k] = op(in[p * block + k], scale[k]);
    }
    if (lanes < block) {
      for (std::int64_t p = 0; p < pixels; ++p) {
        std::fill(out + p * block + lanes, out + (p + 1) * block, 0.f);
      }
    }
  }
}

template <class Op>
void run_all(Op op, const std::int64_t* dims, std::int64_t block, const float* x, const float* s,
             float* y) {
  const std::int64_t blocks = (dims[1] + block - 1) / block;
  const std::int64_t pixels = dims[2] * dims[3];
  for_each_thread_range(dims[0] * blocks, [&](std::int64_t first, std::int64_t end) {
    run_blocks(op, first, end, blocks, dims[1], pixels, block, x, s, y);
  });
}

}  // namespace

void blocked_channel_binary(DnnBinary op, const std::int64_t* dims, std::int64_t block,
                            const float* x, const float* s, float* y) {
  switch (op) {
    case DnnBinary::kAdd:
      return run_all([](float a, float b) { return a + b; }, dims, block, x, s, y);
    case DnnBinary::kSub:
      return run_all([](float a, float b) { return a - b; }, dims, block, x, s, y);
    case DnnBinary::kMul:
      return run_all([](float a, float b) { return a * b; }, dims, block, x, s, y);
    case DnnBinary::kDiv:
      return run_all([](float a, float b) { return a / b; }, dims, block, x, s, y);
    case DnnBinary::kMin:
      return run_all([](float a, float b) { return std::min(a, b); }, dims, block, x, s, y);
    case DnnBinary::kMax:
      return run_all([](float a, float b) { return std::max(a, b); }, dims, block, x, s, y);
  }
}

}  // namespace glassbox::backends::onednn
