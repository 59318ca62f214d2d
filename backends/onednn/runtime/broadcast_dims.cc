#include "backends/onednn/runtime/broadcast_dims.h"

namespace glassbox::backends::onednn {

int merge_broadcast_dims(const std::int64_t* x_dims, const std::int64_t* y_dims, int rank,
                         std::int64_t* x_out, std::int64_t* y_out) {
  int merged = 0;
  bool last_broadcast = false;
  for (int i = 0; i < rank; ++i) {
    if (x_dims[i] == 1 && y_dims[i] == 1) continue;
    const bool broadcast = y_dims[i] == 1;
    if (merged > 0 && broadcast == last_broadcast) {
      x_out[merged - 1] *= x_dims[i];
      y_out[merged - 1] *= y_dims[i];
    } else {
      x_out[merged] = x_dims[i];
      y_out[merged] = y_dims[i];
      ++merged;
    }
    last_broadcast = broadcast;
  }
  if (merged == 0) {
    x_out[0] = y_out[0] = 1;
    merged = 1;
  }
  return merged;
}

}  // namespace glassbox::backends::onednn
