#include "backends/xnnpack/runtime/recurrent_layer.h"

#include <xnnpack.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "glassbox/runtime/kernels/recurrent.h"

namespace glassbox::backends::xnnpack {

namespace kernels = runtime::kernels;
using kernels::RnnActivationKind;
using kernels::RnnCell;

namespace {

constexpr std::uint32_t kMaxDirections = 2;
// XNNPACK's micro-kernels read up to XNN_EXTRA_BYTES past an input.
constexpr std::size_t kSlackBytes = 64;

ErrorInfo bad_recurrent(const char* message) { return make_error(Error::kCorruptData, message); }

// Params, by index.
enum Param : std::uint32_t {
  kCell,
  kDirection,
  kLayout,
  kHidden,
  kInput,
  kLinearBeforeReset,
  kActivations
};

std::uint64_t directions(const std::uint32_t* p) { return p[kDirection] == 2 ? 2 : 1; }
std::uint64_t gates(const std::uint32_t* p) {
  return static_cast<std::uint64_t>(kernels::rnn_gate_count(static_cast<RnnCell>(p[kCell])));
}

}  // namespace

struct RecurrentLayer {
  RnnCell cell = RnnCell::kLstm;
  std::int64_t dirs = 1, steps = 0, batch = 0, hidden = 0, gh = 0;
  bool reverse_only = false, batch_major = false, linear_before_reset = false;
  float clip = 0;
  RnnActivationKind act[kernels::kMaxRnnActivations] = {};
  const float* initial_h = nullptr;
  const float* initial_c = nullptr;
  float* y = nullptr;
  // The kRecurrentState slots (null when the program has none), written
  // from final_h / final_c ([D, N, H] in the output's layout) when the
  // layer ends: their buffers may be x's, which the last direction reads.
  float* y_h = nullptr;
  float* y_c = nullptr;
  float *final_h = nullptr, *final_c = nullptr;
  // Scratch: xw [T*N, G*H] (one direction at a time), hr [N, G*H], the
  // state h, c [N, H], GRU's r * h and its product with Rh [N, H].
  float *xw = nullptr, *hr = nullptr, *h = nullptr, *c = nullptr, *rh = nullptr, *product = nullptr;
  // Per direction: x W^T + Wb over every step; h R^T + Rb (GRU without
  // linear_before_reset: only R's z and r rows); GRU's (r * h) Rh^T + Rbh.
  xnn_operator_t input_fc[kMaxDirections] = {};
  xnn_operator_t recurrent_fc[kMaxDirections] = {};
  xnn_operator_t reset_fc[kMaxDirections] = {};
};

bool recurrent_weight_counts(const std::uint32_t* p, std::uint64_t* weights, std::uint64_t* bias) {
  if (p[kCell] > 2) return false;
  const std::uint64_t gh = directions(p) * gates(p) * p[kHidden];
  const std::uint64_t in_h = std::uint64_t{p[kInput]} + p[kHidden];
  // Both factors are below 2^27 (params <= kMaxParam): no overflow.
  *weights = gh * in_h;
  *bias = 2 * gh;
  return true;
}

ErrorInfo recurrent_output_shape(const ParsedOp& op, const SlotDesc* slots, std::int64_t* dims,
                                 std::size_t* rank) {
  const std::uint32_t* p = op.ints;
  if (p[kCell] > 2 || p[kDirection] > 2 || p[kLayout] > 1 || p[kHidden] == 0 || p[kInput] == 0 ||
      p[kLinearBeforeReset] > 1 ||
      (p[kLinearBeforeReset] == 1 && p[kCell] != static_cast<std::uint32_t>(RnnCell::kGru)) ||
      !(op.scalar >= 0)) {
    return bad_recurrent("xnnpack program: recurrent cell, direction, layout or sizes wrong");
  }
  const RnnCell cell = static_cast<RnnCell>(p[kCell]);
  const std::size_t used = directions(p) * kernels::rnn_activation_count(cell);
  for (std::size_t i = 0; i < kernels::kMaxRnnActivations; ++i) {
    const std::uint32_t a = p[kActivations + i];
    const bool known = a == static_cast<std::uint32_t>(RnnActivationKind::kSigmoid) ||
                       a == static_cast<std::uint32_t>(RnnActivationKind::kTanh) ||
                       a == static_cast<std::uint32_t>(RnnActivationKind::kRelu);
    if (i < used ? !known : a != 0) {
      return bad_recurrent("xnnpack program: recurrent activations not Sigmoid, Tanh or Relu");
    }
  }
  const std::uint32_t want_operands = cell == RnnCell::kLstm ? 3 : 2;
  if (op.num_operands != want_operands) {
    return bad_recurrent("xnnpack program: wrong operand count for the operator");
  }
  const SlotDesc& x = slots[op.operands[0]];
  const bool batch_major = p[kLayout] == 1;
  if (x.rank != 3 || x.layout != XnnLayout::kLogical || x.dims[2] != p[kInput]) {
    return bad_recurrent("xnnpack program: recurrent input is not [T, N, I] of its input_size");
  }
  const std::int64_t steps = batch_major ? x.dims[1] : x.dims[0];
  const std::int64_t batch = batch_major ? x.dims[0] : x.dims[1];
  const auto dirs = static_cast<std::int64_t>(directions(p));
  const std::int64_t hidden = p[kHidden];
  const std::int64_t state[3] = {batch_major ? batch : dirs, batch_major ? dirs : batch, hidden};
  for (std::uint32_t i = 1; i < op.num_operands; ++i) {
    const SlotDesc& s = slots[op.operands[i]];
    if (s.rank != 3 || s.layout != XnnLayout::kLogical || s.dims[0] != state[0] ||
        s.dims[1] != state[1] || s.dims[2] != state[2]) {
      return bad_recurrent("xnnpack program: recurrent initial state is not [D, N, H]");
    }
  }
  *rank = 4;
  dims[0] = batch_major ? batch : steps;
  dims[1] = batch_major ? steps : dirs;
  dims[2] = batch_major ? dirs : batch;
  dims[3] = hidden;
  return kOk;
}

ErrorInfo recurrent_state_shape(const ParsedProgram& program, std::uint32_t index,
                                std::int64_t* dims, std::size_t* rank) {
  const ParsedOp& op = program.ops[index];
  const std::uint32_t slot = op.operands[0];
  const std::uint32_t first = program.first_op_slot();
  const ErrorInfo wrong =
      bad_recurrent("xnnpack program: recurrent state does not follow its layer");
  if (op.num_operands != 1 || slot < first || op.ints[0] > 1) return wrong;
  const std::uint32_t producer = slot - first;
  const ParsedOp& layer = program.ops[producer];
  const bool right_after = producer + 1 == index;
  const bool after_sibling =
      producer + 2 == index && program.ops[index - 1].kind == XnnOpKind::kRecurrentState &&
      program.ops[index - 1].operands[0] == slot && program.ops[index - 1].ints[0] != op.ints[0];
  if (layer.kind != XnnOpKind::kRecurrent || !(right_after || after_sibling) ||
      (op.ints[0] == 1 && layer.ints[kCell] != static_cast<std::uint32_t>(RnnCell::kLstm)) ||
      program.slots[first + index].layout != XnnLayout::kLogical) {
    return wrong;
  }
  const SlotDesc& y = program.slots[slot];
  const bool batch_major = layer.ints[kLayout] == 1;
  const auto dirs = static_cast<std::int64_t>(directions(layer.ints));
  const std::int64_t batch = batch_major ? y.dims[0] : y.dims[2];
  *rank = 3;
  dims[0] = batch_major ? batch : dirs;
  dims[1] = batch_major ? dirs : batch;
  dims[2] = layer.ints[kHidden];
  return kOk;
}

namespace {

// Aligned scratch with XNNPACK's read-past slack.
float* scratch(runtime::MemoryAllocator* memory, std::int64_t floats) {
  return static_cast<float*>(
      memory->allocate(static_cast<std::size_t>(floats) * sizeof(float) + kSlackBytes, 64));
}

// One fully connected operator over `rows` rows of `in` (IC floats each)
// into `out` (OC floats each), with `kernel` [OC][IC] and `bias` [OC].
xnn_status fully_connected(std::size_t ic, std::size_t oc, const float* kernel, const float* bias,
                           std::size_t rows, const float* in, float* out, pthreadpool_t pool,
                           xnn_operator_t* op) {
  const float inf = std::numeric_limits<float>::infinity();
  const xnn_status s =
      xnn_create_fully_connected_nc_f32(ic, oc, ic, oc, kernel, bias, -inf, inf, 0, op);
  if (s != xnn_status_success) return s;
  return xnn_setup_fully_connected_nc_f32(*op, rows, in, out, pool);
}

xnn_status create_operators(const ParsedOp& op, RecurrentLayer* l, const float* x,
                            const float* weights, pthreadpool_t pool) {
  const auto in = static_cast<std::size_t>(op.ints[kInput]);
  const auto hid = static_cast<std::size_t>(l->hidden);
  const auto gh = static_cast<std::size_t>(l->gh);
  const auto n = static_cast<std::size_t>(l->batch);
  const float* w = weights;
  const float* r = w + l->dirs * gh * in;
  const float* b = r + l->dirs * gh * hid;
  const bool split = l->cell == RnnCell::kGru && !l->linear_before_reset;
  for (std::int64_t d = 0; d < l->dirs; ++d) {
    const float* wd = w + d * gh * in;
    const float* rd = r + d * gh * hid;
    const float* wb = b + d * 2 * gh;
    const float* rb = wb + gh;
    xnn_status s = fully_connected(in, gh, wd, wb, static_cast<std::size_t>(l->steps) * n, x, l->xw,
                                   pool, &l->input_fc[d]);
    if (s != xnn_status_success) return s;
    s = fully_connected(hid, split ? 2 * hid : gh, rd, rb, n, l->h, l->hr, pool,
                        &l->recurrent_fc[d]);
    if (s != xnn_status_success) return s;
    if (split) {
      s = fully_connected(hid, hid, rd + 2 * hid * hid, rb + 2 * hid, n, l->rh, l->product, pool,
                          &l->reset_fc[d]);
      if (s != xnn_status_success) return s;
    }
  }
  return xnn_status_success;
}

// The portable kernels' gate functions (the parser lets only Sigmoid,
// Tanh and Relu through: none takes alpha or beta).
void activate(RnnActivationKind kind, float* v, std::int64_t n) {
  kernels::RnnActivation a;
  a.kind = kind;
  kernels::rnn_activate(a, v, n);
}

// One step of one batch row: `g` is the row's h R^T + Rb (hr), `xr` its
// x W^T + Wb; h and c the row's state.
void lstm_cell(const RecurrentLayer& l, const RnnActivationKind* act, const float* xr, float* g,
               float* h, float* c) {
  const std::int64_t hid = l.hidden;
  for (std::int64_t k = 0; k < l.gh; ++k) g[k] += xr[k];
  kernels::rnn_clip(l.clip, g, l.gh);
  float* gi = g;
  float* go = g + hid;
  float* gf = g + 2 * hid;
  float* gc = g + 3 * hid;
  activate(act[0], g, 3 * hid);  // i, o, f share f()
  activate(act[1], gc, hid);
  for (std::int64_t k = 0; k < hid; ++k) c[k] = gf[k] * c[k] + gi[k] * gc[k];
  std::memcpy(gc, c, static_cast<std::size_t>(hid) * sizeof(float));
  activate(act[2], gc, hid);
  for (std::int64_t k = 0; k < hid; ++k) h[k] = go[k] * gc[k];
}

Error run_direction(const RecurrentLayer& l, std::int64_t d, pthreadpool_t pool) {
  const std::int64_t hid = l.hidden, n_rows = l.batch, gh = l.gh, dirs = l.dirs;
  const bool reverse = l.reverse_only || d == 1;
  const std::size_t per_direction = kernels::rnn_activation_count(l.cell);
  const RnnActivationKind* act = l.act + static_cast<std::size_t>(d) * per_direction;
  const std::size_t row_bytes = static_cast<std::size_t>(hid) * sizeof(float);
  const auto state_at = [&](std::int64_t n) {
    return (l.batch_major ? n * dirs + d : d * n_rows + n) * hid;
  };
  const bool split = l.cell == RnnCell::kGru && !l.linear_before_reset;
  const std::int64_t hr_row = split ? 2 * hid : gh;
  if (xnn_run_operator(l.input_fc[d], pool) != xnn_status_success) return Error::kInternal;
  for (std::int64_t n = 0; n < n_rows; ++n) {
    const std::int64_t at = state_at(n);
    std::memcpy(l.h + n * hid, l.initial_h + at, row_bytes);
    if (l.cell == RnnCell::kLstm) std::memcpy(l.c + n * hid, l.initial_c + at, row_bytes);
  }
  // A step's product is [N, H] x [H, G*H]: too small to share. Handing it
  // to the thread pool at every step cost more than it saved (kws_lstm on
  // 2 threads: 0.26 ms per run against 0.13 on 1), so steps run on the
  // calling thread and only the input projection of all steps uses the pool.
  const pthreadpool_t step_pool = nullptr;
  for (std::int64_t step = 0; step < l.steps; ++step) {
    const std::int64_t time = reverse ? l.steps - 1 - step : step;
    if (xnn_run_operator(l.recurrent_fc[d], step_pool) != xnn_status_success) {
      return Error::kInternal;
    }
    if (split) {
      // r * h before its product with Rh: z and r first, for every row.
      for (std::int64_t n = 0; n < n_rows; ++n) {
        const float* xr = l.xw + (l.batch_major ? n * l.steps + time : time * n_rows + n) * gh;
        float* zr = l.hr + n * hr_row;
        for (std::int64_t k = 0; k < 2 * hid; ++k) zr[k] += xr[k];
        kernels::rnn_clip(l.clip, zr, 2 * hid);
        activate(act[0], zr, 2 * hid);
        for (std::int64_t k = 0; k < hid; ++k) l.rh[n * hid + k] = zr[hid + k] * l.h[n * hid + k];
      }
      if (xnn_run_operator(l.reset_fc[d], step_pool) != xnn_status_success) {
        return Error::kInternal;
      }
    }
    for (std::int64_t n = 0; n < n_rows; ++n) {
      const float* xr = l.xw + (l.batch_major ? n * l.steps + time : time * n_rows + n) * gh;
      float* g = l.hr + n * hr_row;
      float* h = l.h + n * hid;
      if (l.cell == RnnCell::kLstm) {
        lstm_cell(l, act, xr, g, h, l.c + n * hid);
      } else if (l.cell == RnnCell::kGru) {
        float* cand = l.rh + n * hid;  // r * h is spent: the candidate goes here
        if (split) {
          const float* hh = l.product + n * hid;
          for (std::int64_t k = 0; k < hid; ++k) cand[k] = xr[2 * hid + k] + hh[k];
        } else {
          for (std::int64_t k = 0; k < 2 * hid; ++k) g[k] += xr[k];
          kernels::rnn_clip(l.clip, g, 2 * hid);
          activate(act[0], g, 2 * hid);
          for (std::int64_t k = 0; k < hid; ++k)
            cand[k] = xr[2 * hid + k] + g[hid + k] * g[2 * hid + k];
        }
        kernels::rnn_clip(l.clip, cand, hid);
        activate(act[1], cand, hid);
        for (std::int64_t k = 0; k < hid; ++k) h[k] = (1.0f - g[k]) * cand[k] + g[k] * h[k];
      } else {
        for (std::int64_t k = 0; k < hid; ++k) g[k] += xr[k];
        kernels::rnn_clip(l.clip, g, hid);
        activate(act[0], g, hid);
        std::memcpy(h, g, row_bytes);
      }
      const std::int64_t y_at =
          (l.batch_major ? (n * l.steps + time) * dirs + d : (time * dirs + d) * n_rows + n) * hid;
      std::memcpy(l.y + y_at, h, row_bytes);
    }
  }
  for (std::int64_t n = 0; n < n_rows; ++n) {
    std::memcpy(l.final_h + state_at(n), l.h + n * hid, row_bytes);
    if (l.cell == RnnCell::kLstm) std::memcpy(l.final_c + state_at(n), l.c + n * hid, row_bytes);
  }
  return Error::kOk;
}

}  // namespace

ErrorInfo compile_recurrent_layer(const ParsedProgram& program, std::uint32_t index,
                                  float* const* buffers, pthreadpool_t pool,
                                  runtime::MemoryAllocator* memory, RecurrentLayer** out) {
  *out = nullptr;
  const ParsedOp& op = program.ops[index];
  const std::uint32_t* p = op.ints;
  const SlotDesc& x = program.slots[op.operands[0]];
  auto* l = memory->allocate_array<RecurrentLayer>(1);
  if (l == nullptr) return make_error(Error::kMemoryAllocationFailed, "xnnpack: out of memory");
  *l = RecurrentLayer{};
  l->cell = static_cast<RnnCell>(p[kCell]);
  l->dirs = static_cast<std::int64_t>(directions(p));
  l->reverse_only = p[kDirection] == 1;
  l->batch_major = p[kLayout] == 1;
  l->linear_before_reset = p[kLinearBeforeReset] == 1;
  l->hidden = p[kHidden];
  l->gh = static_cast<std::int64_t>(gates(p)) * l->hidden;
  l->steps = l->batch_major ? x.dims[1] : x.dims[0];
  l->batch = l->batch_major ? x.dims[0] : x.dims[1];
  l->clip = op.scalar;
  for (std::size_t i = 0; i < kernels::kMaxRnnActivations; ++i) {
    l->act[i] = static_cast<RnnActivationKind>(p[kActivations + i]);
  }
  l->initial_h = buffers[op.operands[1]];
  if (l->cell == RnnCell::kLstm) l->initial_c = buffers[op.operands[2]];
  l->y = buffers[program.first_op_slot() + index];
  for (std::uint32_t j = index + 1; j < program.num_ops && j <= index + 2; ++j) {
    const ParsedOp& state = program.ops[j];
    if (state.kind != XnnOpKind::kRecurrentState ||
        state.operands[0] != program.first_op_slot() + index) {
      break;
    }
    (state.ints[0] == 0 ? l->y_h : l->y_c) = buffers[program.first_op_slot() + j];
  }
  const std::int64_t state = l->batch * l->hidden;
  l->xw = scratch(memory, l->steps * l->batch * l->gh);
  l->hr = scratch(memory, l->batch * l->gh);
  l->h = scratch(memory, state);
  l->c = scratch(memory, state);
  l->rh = scratch(memory, state);
  l->product = scratch(memory, state);
  l->final_h = scratch(memory, l->dirs * state);
  l->final_c = scratch(memory, l->dirs * state);
  if (l->final_h == nullptr || l->final_c == nullptr || l->xw == nullptr || l->hr == nullptr ||
      l->h == nullptr || l->c == nullptr || l->rh == nullptr || l->product == nullptr) {
    return make_error(Error::kMemoryAllocationFailed, "xnnpack: out of memory");
  }
  // The blob's weights are unaligned views; XNNPACK packs them at create,
  // so an aligned copy lives only for these calls.
  const std::size_t count = op.weight_count + op.bias_count;
  auto* weights = static_cast<float*>(std::malloc(count * sizeof(float)));
  if (weights == nullptr)
    return make_error(Error::kMemoryAllocationFailed, "xnnpack: out of memory");
  std::memcpy(weights, op.kernel, op.weight_count * sizeof(float));
  std::memcpy(weights + op.weight_count, op.bias, op.bias_count * sizeof(float));
  const xnn_status s = create_operators(op, l, buffers[op.operands[0]], weights, pool);
  std::free(weights);
  if (s != xnn_status_success) {
    delete_recurrent_layer(l);
    return make_error(
        s == xnn_status_out_of_memory ? Error::kMemoryAllocationFailed : Error::kInvalidArgument,
        "xnnpack: recurrent layer's fully connected operators rejected by XNNPACK");
  }
  *out = l;
  return kOk;
}

Error run_recurrent_layer(const RecurrentLayer& layer, pthreadpool_t pool) {
  for (std::int64_t d = 0; d < layer.dirs; ++d) {
    if (Error e = run_direction(layer, d, pool); e != Error::kOk) return e;
  }
  const auto bytes =
      static_cast<std::size_t>(layer.dirs * layer.batch * layer.hidden) * sizeof(float);
  if (layer.y_h != nullptr) std::memcpy(layer.y_h, layer.final_h, bytes);
  if (layer.y_c != nullptr) std::memcpy(layer.y_c, layer.final_c, bytes);
  return Error::kOk;
}

void delete_recurrent_layer(RecurrentLayer* layer) {
  for (std::uint32_t d = 0; d < kMaxDirections; ++d) {
    for (xnn_operator_t* op : {&layer->input_fc[d], &layer->recurrent_fc[d], &layer->reset_fc[d]}) {
      if (*op != nullptr) (void)xnn_delete_operator(*op);
      *op = nullptr;
    }
  }
}

}  // namespace glassbox::backends::xnnpack
