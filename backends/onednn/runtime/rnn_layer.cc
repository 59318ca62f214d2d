#include "backends/onednn/runtime/rnn_layer.h"

#include <cstring>

namespace glassbox::backends::onednn {
namespace {

constexpr std::size_t kAlignment = 64;
// Two directions, each: x, h0 and c0 reorders in, the cell, y's reorder out.
constexpr int kMaxSteps = 10;
constexpr int kMaxRnnArgs = 10;
constexpr int kMaxMems = 40;

ErrorInfo bad_rnn(const char* what) { return make_error(Error::kCorruptData, what); }

struct Shape {
  std::int64_t dirs, steps, batch, input, hidden, gates, bias_gates;
  bool batch_major;
};

std::int64_t gates_of(DnnRnnCell cell) {
  switch (cell) {
    case DnnRnnCell::kLstm: return 4;
    case DnnRnnCell::kGru:
    case DnnRnnCell::kLbrGru: return 3;
    case DnnRnnCell::kVanilla: return 1;
  }
  return 1;
}

Shape shape_of(const DnnParsedProgram& p, const DnnParsedOp& op) {
  const DnnSlot& x = p.slots[op.operands[0]];
  const DnnSlot& w_iter = p.slots[op.operands[2]];  // [D, H, G, H]
  const auto cell = static_cast<DnnRnnCell>(op.ints[0]);
  Shape s{};
  s.batch_major = op.ints[2] != 0;
  s.dirs = op.ints[1] == static_cast<std::int64_t>(DnnRnnDirection::kBidirectional) ? 2 : 1;
  s.steps = s.batch_major ? x.dims[1] : x.dims[0];
  s.batch = s.batch_major ? x.dims[0] : x.dims[1];
  s.input = x.dims[2];
  s.hidden = w_iter.rank == 4 ? w_iter.dims[3] : 0;
  s.gates = gates_of(cell);
  s.bias_gates = cell == DnnRnnCell::kLbrGru ? 4 : s.gates;
  return s;
}

bool has_dims(const DnnSlot& s, std::initializer_list<std::int64_t> dims) {
  if (s.rank != dims.size()) return false;
  std::size_t k = 0;
  for (std::int64_t d : dims) {
    if (s.dims[k++] != d) return false;
  }
  return true;
}

}  // namespace

ErrorInfo check_rnn_op(const DnnParsedProgram& p, const DnnParsedOp& op, const DnnSlot& out) {
  const std::int64_t* v = op.ints;
  if (op.num_ints != kDnnRnnInts || v[0] < 0 || v[0] > kDnnMaxRnnCell || v[1] < 0 ||
      v[1] > kDnnMaxRnnDirection || (v[2] != 0 && v[2] != 1) || v[4] < 0 || v[4] > 1 || v[5] < 0 ||
      v[5] > 1 || v[6] < 0 || v[6] > 1) {
    return bad_rnn("onednn program: rnn parameters out of range");
  }
  const auto cell = static_cast<DnnRnnCell>(v[0]);
  const bool vanilla = cell == DnnRnnCell::kVanilla, lstm = cell == DnnRnnCell::kLstm;
  const bool activation_ok = vanilla ? (v[3] == static_cast<std::int64_t>(DnnEltwise::kTanh) ||
                                        v[3] == static_cast<std::int64_t>(DnnEltwise::kRelu) ||
                                        v[3] == static_cast<std::int64_t>(DnnEltwise::kLogistic))
                                     : v[3] == 0;
  if (!activation_ok || (!lstm && (v[4] != 0 || v[6] != 0))) {
    return bad_rnn("onednn program: rnn activation, peephole or cell state of another cell");
  }
  const std::uint32_t expected = 4 + static_cast<std::uint32_t>(v[4] + v[5] + v[6]);
  if (op.num_operands != expected || p.slots[op.operands[0]].rank != 3 ||
      p.slots[op.operands[2]].rank != 4) {
    return bad_rnn("onednn program: rnn operand count or rank does not match its ints");
  }
  const Shape s = shape_of(p, op);
  const DnnSlot* slots = p.slots;
  if (s.hidden < 1 || s.steps < 1 || s.batch < 1 ||
      !has_dims(slots[op.operands[1]], {s.dirs, s.input, s.gates, s.hidden}) ||
      !has_dims(slots[op.operands[2]], {s.dirs, s.hidden, s.gates, s.hidden}) ||
      !has_dims(slots[op.operands[3]], {s.dirs, s.bias_gates, s.hidden})) {
    return bad_rnn("onednn program: rnn weights or bias do not match x and the cell");
  }
  for (std::uint32_t k = 1; k < 4 + static_cast<std::uint32_t>(v[4]); ++k) {
    if (!p.is_constant(op.operands[k])) return bad_rnn("onednn program: rnn weights not constant");
  }
  std::uint32_t next = 4;
  if (v[4] != 0 && !has_dims(slots[op.operands[next++]], {s.dirs, 3, s.hidden})) {
    return bad_rnn("onednn program: rnn peepholes do not match");
  }
  for (int k = 0; k < v[5] + v[6]; ++k) {
    const DnnSlot& state = slots[op.operands[next++]];
    if (!(s.batch_major ? has_dims(state, {s.batch, s.dirs, s.hidden})
                        : has_dims(state, {s.dirs, s.batch, s.hidden}))) {
      return bad_rnn("onednn program: rnn initial state does not match");
    }
  }
  if (!(s.batch_major ? has_dims(out, {s.batch, s.steps, s.dirs, s.hidden})
                      : has_dims(out, {s.steps, s.dirs, s.batch, s.hidden}))) {
    return bad_rnn("onednn program: rnn output does not match");
  }
  return kOk;
}

ErrorInfo check_rnn_state_op(const DnnParsedProgram& p, const DnnParsedOp& op, const DnnSlot& out) {
  const std::uint32_t layer = op.operands[0];
  if (op.num_operands != 1 || layer < p.first_op_slot() ||
      p.ops[layer - p.first_op_slot()].kind != DnnOpKind::kRnn) {
    return bad_rnn("onednn program: rnn state not of an rnn");
  }
  const DnnParsedOp& rnn = p.ops[layer - p.first_op_slot()];
  const Shape s = shape_of(p, rnn);
  const bool lstm = rnn.ints[0] == static_cast<std::int64_t>(DnnRnnCell::kLstm);
  if (op.ints[0] > (lstm ? 1 : 0) ||
      !(s.batch_major ? has_dims(out, {s.batch, s.dirs, s.hidden})
                      : has_dims(out, {s.dirs, s.batch, s.hidden}))) {
    return bad_rnn("onednn program: rnn state does not match its rnn");
  }
  return kOk;
}

struct RnnStep {
  dnnl_primitive_t primitive = nullptr;
  dnnl_exec_arg_t args[kMaxRnnArgs] = {};
  int num_args = 0;
};

struct RnnLayer {
  RnnStep steps[kMaxSteps];
  int num_steps = 0;
  dnnl_memory_t mems[kMaxMems] = {};
  int num_mems = 0;
  dnnl_primitive_desc_t pd = nullptr;  // the first cell's, for its name
  Shape shape{};
  // Per direction, the final hidden and cell states, [N, H] dense.
  float* final_state[2][2] = {};
};

namespace {

class Builder {
 public:
  Builder(RnnLayer* layer, dnnl_engine_t engine, dnnl_stream_t stream,
          runtime::MemoryAllocator* memory)
      : layer_(layer), engine_(engine), stream_(stream), memory_(memory) {}

  dnnl_status_t memory(const dnnl_memory_desc_t& md, void* data, dnnl_memory_t* mem) {
    if (layer_->num_mems == kMaxMems) return dnnl_out_of_memory;
    if (data == nullptr) {
      data = memory_->allocate(dnnl_memory_desc_get_size(&md), kAlignment);
      if (data == nullptr) return dnnl_out_of_memory;
    }
    const dnnl_status_t s = dnnl_memory_create(mem, &md, engine_, data);
    if (s == dnnl_success) layer_->mems[layer_->num_mems++] = *mem;
    return s;
  }

  // A step copying `from` into `to` (a reorder between their formats).
  dnnl_status_t reorder_step(dnnl_memory_t from, dnnl_memory_t to) {
    if (layer_->num_steps == kMaxSteps) return dnnl_out_of_memory;
    const dnnl_memory_desc_t *from_md = nullptr, *to_md = nullptr;
    dnnl_memory_get_memory_desc(from, &from_md);
    dnnl_memory_get_memory_desc(to, &to_md);
    dnnl_primitive_desc_t rpd = nullptr;
    dnnl_status_t s =
        dnnl_reorder_primitive_desc_create(&rpd, from_md, engine_, to_md, engine_, nullptr);
    RnnStep& step = layer_->steps[layer_->num_steps];
    if (s == dnnl_success) s = dnnl_primitive_create(&step.primitive, rpd);
    if (rpd != nullptr) dnnl_primitive_desc_destroy(rpd);
    if (s != dnnl_success) return s;
    step.args[0] = {DNNL_ARG_FROM, from};
    step.args[1] = {DNNL_ARG_TO, to};
    step.num_args = 2;
    ++layer_->num_steps;
    return dnnl_success;
  }

  // Dense `dense_md` memory holding the caller's `view` (strided over
  // `data`): the view itself when it is dense, else a copy a step makes
  // before the cell runs.
  dnnl_status_t dense_input(const dnnl_memory_desc_t& dense_md, const dnnl_memory_desc_t& view,
                            float* data, dnnl_memory_t* dense) {
    if (dnnl_memory_desc_equal(&dense_md, &view) != 0) return memory(dense_md, data, dense);
    dnnl_memory_t user = nullptr;
    dnnl_status_t s = memory(view, data, &user);
    if (s == dnnl_success) s = memory(dense_md, nullptr, dense);
    if (s == dnnl_success) s = reorder_step(user, *dense);
    return s;
  }

  // Weights in the format `pd` chose for `arg`, reordered once now from
  // the plain `user_md` view of `data`.
  dnnl_status_t packed(dnnl_primitive_desc_t pd, int arg, const dnnl_memory_desc_t& user_md,
                       float* data, dnnl_memory_t* out) {
    const dnnl_memory_desc_t* chosen =
        dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
    if (chosen == nullptr) return dnnl_runtime_error;
    dnnl_memory_t user = nullptr;
    dnnl_status_t s = memory(user_md, data, &user);
    if (s != dnnl_success) return s;
    if (dnnl_memory_desc_equal(chosen, &user_md) != 0) {
      *out = user;
      return dnnl_success;
    }
    if ((s = memory(*chosen, nullptr, out)) != dnnl_success) return s;
    dnnl_primitive_desc_t rpd = nullptr;
    dnnl_primitive_t r = nullptr;
    s = dnnl_reorder_primitive_desc_create(&rpd, &user_md, engine_, chosen, engine_, nullptr);
    if (s == dnnl_success) s = dnnl_primitive_create(&r, rpd);
    const dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, *out}};
    if (s == dnnl_success) s = dnnl_primitive_execute(r, stream_, 2, args);
    if (s == dnnl_success) s = dnnl_stream_wait(stream_);
    if (r != nullptr) dnnl_primitive_destroy(r);
    if (rpd != nullptr) dnnl_primitive_desc_destroy(rpd);
    return s;
  }

  dnnl_status_t direction(const DnnParsedOp& op, const Shape& sh, std::int64_t d,
                          float* const* buffers, float* y, dnnl_memory_t* x_dense,
                          const char** what);

 private:
  RnnLayer* layer_;
  dnnl_engine_t engine_;
  dnnl_stream_t stream_;
  runtime::MemoryAllocator* memory_;
};

dnnl_status_t strided(dnnl_memory_desc_t* md, std::initializer_list<std::int64_t> dims,
                      std::initializer_list<std::int64_t> strides) {
  dnnl_dims_t d = {}, st = {};
  int n = 0;
  for (std::int64_t v : dims) d[n++] = v;
  n = 0;
  for (std::int64_t v : strides) st[n++] = v;
  return dnnl_memory_desc_init_by_strides(md, n, d, dnnl_f32, st);
}

dnnl_status_t tagged(dnnl_memory_desc_t* md, std::initializer_list<std::int64_t> dims,
                     dnnl_format_tag_t tag) {
  dnnl_dims_t d = {};
  int n = 0;
  for (std::int64_t v : dims) d[n++] = v;
  return dnnl_memory_desc_init_by_tag(md, n, d, dnnl_f32, tag);
}

#define RNN_TRY(call, step)          \
  do {                               \
    const dnnl_status_t s_ = (call); \
    if (s_ != dnnl_success) {        \
      *what = step;                  \
      return s_;                     \
    }                                \
  } while (0)

dnnl_status_t Builder::direction(const DnnParsedOp& op, const Shape& sh, std::int64_t d,
                                 float* const* buffers, float* y, dnnl_memory_t* x_dense,
                                 const char** what) {
  const auto cell = static_cast<DnnRnnCell>(op.ints[0]);
  const auto dir = static_cast<DnnRnnDirection>(op.ints[1]);
  const bool l2r =
      dir == DnnRnnDirection::kForward || (dir == DnnRnnDirection::kBidirectional && d == 0);
  const std::int64_t T = sh.steps, N = sh.batch, I = sh.input, H = sh.hidden, D = sh.dirs;
  const std::int64_t G = sh.gates, Gb = sh.bias_gates;

  // x, shared by both directions: [T, N, I] dense, or [N, T, I] seen as tnc.
  dnnl_memory_desc_t x_md, x_view;
  RNN_TRY(tagged(&x_md, {T, N, I}, dnnl_tnc), "rnn source descriptor");
  if (*x_dense == nullptr) {
    RNN_TRY(sh.batch_major ? strided(&x_view, {T, N, I}, {I, T * I, 1})
                           : tagged(&x_view, {T, N, I}, dnnl_tnc),
            "rnn source descriptor");
    RNN_TRY(dense_input(x_md, x_view, buffers[op.operands[0]], x_dense), "rnn source reorder");
  }

  // Initial states: this direction's [N, H] of [D, N, H] or [N, D, H].
  std::uint32_t next = 4 + static_cast<std::uint32_t>(op.ints[4]);
  dnnl_memory_desc_t state_md, zero{};
  RNN_TRY(tagged(&state_md, {1, 1, N, H}, dnnl_ldnc), "rnn state descriptor");
  dnnl_memory_t states[2] = {nullptr, nullptr};
  for (int k = 0; k < 2; ++k) {
    if (op.ints[5 + k] == 0) continue;
    dnnl_memory_desc_t view;
    RNN_TRY(sh.batch_major ? strided(&view, {1, 1, N, H}, {N * D * H, N * D * H, D * H, 1})
                           : tagged(&view, {1, 1, N, H}, dnnl_ldnc),
            "rnn state descriptor");
    float* base = buffers[op.operands[next++]] + (sh.batch_major ? d * H : d * N * H);
    RNN_TRY(dense_input(state_md, view, base, &states[k]), "rnn state reorder");
  }

  // Weights from [D, I, G, H] (ldigo per direction), the bias [D, Gb, H].
  dnnl_memory_desc_t wl_user, wi_user, wl_any, wi_any, bias_md, peep_md, y_md;
  RNN_TRY(tagged(&wl_user, {1, 1, I, G, H}, dnnl_ldigo), "rnn weights descriptor");
  RNN_TRY(tagged(&wi_user, {1, 1, H, G, H}, dnnl_ldigo), "rnn weights descriptor");
  RNN_TRY(tagged(&wl_any, {1, 1, I, G, H}, dnnl_format_tag_any), "rnn weights descriptor");
  RNN_TRY(tagged(&wi_any, {1, 1, H, G, H}, dnnl_format_tag_any), "rnn weights descriptor");
  RNN_TRY(tagged(&bias_md, {1, 1, Gb, H}, dnnl_ldgo), "rnn bias descriptor");
  RNN_TRY(tagged(&peep_md, {1, 1, 3, H}, dnnl_ldgo), "rnn peephole descriptor");
  RNN_TRY(tagged(&y_md, {T, N, H}, dnnl_tnc), "rnn output descriptor");
  const dnnl_memory_desc_t* h0_md = states[0] != nullptr ? &state_md : &zero;
  const dnnl_memory_desc_t* c0_md = states[1] != nullptr ? &state_md : &zero;
  // The final states, for kRnnState (the cell state an LSTM's only).
  const bool lstm = cell == DnnRnnCell::kLstm;
  dnnl_memory_t finals[2] = {nullptr, nullptr};
  for (int k = 0; k < (lstm ? 2 : 1); ++k) {
    RNN_TRY(memory(state_md, nullptr, &finals[k]), "rnn state memory");
    void* data = nullptr;
    RNN_TRY(dnnl_memory_get_data_handle(finals[k], &data), "rnn state memory");
    layer_->final_state[d][k] = static_cast<float*>(data);
  }
  const bool peephole = op.ints[4] != 0;

  dnnl_rnn_desc_t desc;
  const dnnl_rnn_direction_t direction =
      l2r ? dnnl_unidirectional_left2right : dnnl_unidirectional_right2left;
  const dnnl_prop_kind_t prop = dnnl_forward_inference;
  dnnl_status_t s = dnnl_success;
  switch (cell) {
    case DnnRnnCell::kLstm:
      s = dnnl_lstm_forward_desc_init_v3(&desc, prop, direction, &x_md, h0_md, c0_md, &wl_any,
                                         &wi_any, peephole ? &peep_md : &zero, &zero, &bias_md,
                                         &y_md, &state_md, &state_md, 0);
      break;
    case DnnRnnCell::kGru:
      s = dnnl_gru_forward_desc_init(&desc, prop, direction, &x_md, h0_md, &wl_any, &wi_any,
                                     &bias_md, &y_md, &state_md, 0);
      break;
    case DnnRnnCell::kLbrGru:
      s = dnnl_lbr_gru_forward_desc_init(&desc, prop, direction, &x_md, h0_md, &wl_any, &wi_any,
                                         &bias_md, &y_md, &state_md, 0);
      break;
    case DnnRnnCell::kVanilla: {
      dnnl_alg_kind_t alg = dnnl_eltwise_tanh;
      if (op.ints[3] == static_cast<std::int64_t>(DnnEltwise::kRelu)) alg = dnnl_eltwise_relu;
      if (op.ints[3] == static_cast<std::int64_t>(DnnEltwise::kLogistic)) {
        alg = dnnl_eltwise_logistic;
      }
      s = dnnl_vanilla_rnn_forward_desc_init(&desc, prop, alg, direction, &x_md, h0_md, &wl_any,
                                             &wi_any, &bias_md, &y_md, &state_md, 0, 0.f, 0.f);
      break;
    }
  }
  RNN_TRY(s, "rnn descriptor");
  dnnl_primitive_desc_t pd = nullptr;
  RNN_TRY(dnnl_primitive_desc_create(&pd, &desc, nullptr, engine_, nullptr), "rnn creation");
  if (layer_->pd == nullptr) {
    layer_->pd = pd;  // destroyed with the layer
  }
  const std::int64_t w_layer_size = I * G * H, w_iter_size = H * G * H;
  dnnl_memory_t wl = nullptr, wi = nullptr, bias = nullptr, peep = nullptr;
  s = packed(pd, DNNL_ARG_WEIGHTS_LAYER, wl_user, buffers[op.operands[1]] + d * w_layer_size, &wl);
  if (s == dnnl_success) {
    s = packed(pd, DNNL_ARG_WEIGHTS_ITER, wi_user, buffers[op.operands[2]] + d * w_iter_size, &wi);
  }
  if (s == dnnl_success) s = memory(bias_md, buffers[op.operands[3]] + d * Gb * H, &bias);
  if (s == dnnl_success && peephole) {
    s = memory(peep_md, buffers[op.operands[4]] + d * 3 * H, &peep);
  }
  // y: this direction's [T, N, H] of [T, D, N, H] or [N, T, D, H].
  dnnl_memory_desc_t y_view;
  if (s == dnnl_success) {
    s = sh.batch_major ? strided(&y_view, {T, N, H}, {D * H, T * D * H, 1})
                       : strided(&y_view, {T, N, H}, {D * N * H, H, 1});
  }
  float* y_base = y + (sh.batch_major ? d * H : d * N * H);
  dnnl_memory_t y_user = nullptr, y_dense = nullptr;
  if (s == dnnl_success) s = memory(y_view, y_base, &y_user);
  const bool y_direct = dnnl_memory_desc_equal(&y_view, &y_md) != 0;
  if (s == dnnl_success) s = y_direct ? dnnl_success : memory(y_md, nullptr, &y_dense);
  if (s == dnnl_success && layer_->num_steps == kMaxSteps) s = dnnl_out_of_memory;
  RnnStep& step = layer_->steps[layer_->num_steps];
  if (s == dnnl_success) s = dnnl_primitive_create(&step.primitive, pd);
  if (pd != layer_->pd) dnnl_primitive_desc_destroy(pd);
  RNN_TRY(s, "rnn creation");
  ++layer_->num_steps;
  const auto arg = [&](int name, dnnl_memory_t mem) {
    if (mem != nullptr) step.args[step.num_args++] = {name, mem};
  };
  arg(DNNL_ARG_SRC_LAYER, *x_dense);
  arg(DNNL_ARG_SRC_ITER, states[0]);
  arg(DNNL_ARG_SRC_ITER_C, states[1]);
  arg(DNNL_ARG_WEIGHTS_LAYER, wl);
  arg(DNNL_ARG_WEIGHTS_ITER, wi);
  arg(DNNL_ARG_WEIGHTS_PEEPHOLE, peep);
  arg(DNNL_ARG_BIAS, bias);
  arg(DNNL_ARG_DST_LAYER, y_direct ? y_user : y_dense);
  arg(DNNL_ARG_DST_ITER, finals[0]);
  arg(DNNL_ARG_DST_ITER_C, finals[1]);
  if (!y_direct) RNN_TRY(reorder_step(y_dense, y_user), "rnn output reorder");
  return dnnl_success;
}

}  // namespace

dnnl_status_t rnn_layer_create(const DnnParsedProgram& program, const DnnParsedOp& op,
                               float* const* buffers, float* y, dnnl_engine_t engine,
                               dnnl_stream_t stream, runtime::MemoryAllocator* memory,
                               RnnLayer** layer, const char** what) {
  *what = "rnn creation";
  *layer = memory->allocate_array<RnnLayer>(1);
  if (*layer == nullptr) return dnnl_out_of_memory;
  Builder builder(*layer, engine, stream, memory);
  const Shape sh = shape_of(program, op);
  (*layer)->shape = sh;
  dnnl_memory_t x_dense = nullptr;
  for (std::int64_t d = 0; d < sh.dirs; ++d) {
    const dnnl_status_t s = builder.direction(op, sh, d, buffers, y, &x_dense, what);
    if (s != dnnl_success) {
      rnn_layer_destroy(*layer);
      *layer = nullptr;
      return s;
    }
  }
  return dnnl_success;
}

dnnl_status_t rnn_layer_run(const RnnLayer& layer, dnnl_stream_t stream) {
  for (int k = 0; k < layer.num_steps; ++k) {
    const RnnStep& step = layer.steps[k];
    const dnnl_status_t s =
        dnnl_primitive_execute(step.primitive, stream, step.num_args, step.args);
    if (s != dnnl_success) return s;
  }
  return dnnl_stream_wait(stream);
}

void rnn_layer_copy_state(const RnnLayer& layer, std::int64_t which, float* out) {
  const Shape& s = layer.shape;
  for (std::int64_t d = 0; d < s.dirs; ++d) {
    const float* state = layer.final_state[d][which];
    for (std::int64_t n = 0; n < s.batch; ++n) {
      // [D, N, H] or [N, D, H]
      float* row = out + (s.batch_major ? (n * s.dirs + d) : (d * s.batch + n)) * s.hidden;
      std::memcpy(row, state + n * s.hidden, static_cast<std::size_t>(s.hidden) * sizeof(float));
    }
  }
}

const char* rnn_layer_impl(const RnnLayer& layer) {
  const char* impl = "";
  if (layer.pd != nullptr)
    (void)dnnl_primitive_desc_query(layer.pd, dnnl_query_impl_info_str, 0, &impl);
  return impl;
}

void rnn_layer_destroy(RnnLayer* layer) {
  if (layer == nullptr) return;
  for (int k = 0; k < layer->num_steps; ++k) {
    if (layer->steps[k].primitive != nullptr) dnnl_primitive_destroy(layer->steps[k].primitive);
  }
  for (int k = 0; k < layer->num_mems; ++k) dnnl_memory_destroy(layer->mems[k]);
  if (layer->pd != nullptr) dnnl_primitive_desc_destroy(layer->pd);
  *layer = RnnLayer{};
}

}  // namespace glassbox::backends::onednn
