#include "backends/onednn/runtime/onednn_runtime.h"

#include <dnnl.h>
#include <dnnl_debug.h>
#include <omp.h>

#include <cstdio>
#include <cstring>
#include <string_view>

#include "backends/common/operator_profiler.h"
#include "backends/onednn/onednn_format.h"
#include "backends/onednn/runtime/blocked_channel_binary.h"
#include "backends/onednn/runtime/nhwc_concat.h"
#include "backends/onednn/runtime/nhwc_max_pool.h"
#include "backends/onednn/runtime/program_parser.h"
#include "backends/onednn/runtime/quantized_add.h"
#include "backends/onednn/runtime/rnn_layer.h"
#include "glassbox/core/tensor_view.h"
#include "glassbox/runtime/delegate_hooks.h"
#include "glassbox/runtime/kernels/quantized.h"
#include "glassbox/runtime/kernels/shape.h"

namespace glassbox::backends::onednn {
namespace {

using runtime::EventTracer;
using runtime::MemoryAllocator;
using runtime::Tensor;

constexpr std::size_t kBufferAlignment = 64;
// Arguments of the widest primitive (concat) plus dst and scratchpad.
constexpr int kMaxArgs = static_cast<int>(kDnnMaxOperands) + 2;
// Memory objects an operator owns beyond its output's.
constexpr int kMaxOwned = 5;
constexpr std::size_t kMetadataBytes = 192;

struct OpState {
  dnnl_primitive_desc_t pd = nullptr;  // kept until the scratchpad is bound
  dnnl_primitive_t primitive = nullptr;
  dnnl_exec_arg_t* args = nullptr;
  int num_args = 0;
  // A convolution's sum operand reordered into its output before it runs.
  dnnl_primitive_t sum_reorder = nullptr;
  dnnl_exec_arg_t sum_args[2] = {};
  // A convolution's source reordered into the format its kernel takes
  // before it runs (OpBuilder::reorder_source).
  dnnl_primitive_t src_reorder = nullptr;
  dnnl_exec_arg_t src_args[2] = {};
  // The output reordered to plain order for logging (null when plain).
  dnnl_primitive_t log_reorder = nullptr;
  dnnl_exec_arg_t log_args[2] = {};
  // Primitives run after the operator's own, with step_args: an eltwise
  // operator's later steps, each in place on its output (oneDNN 2.6 runs
  // an eltwise with eltwise post-ops on its reference kernel: a
  // hardsigmoid took 1 ms there, but each step alone on a jit one); a
  // Winograd convolution's reorder into its output's format.
  dnnl_primitive_t steps[kDnnMaxEltwiseSteps] = {};
  std::uint32_t num_steps = 0;
  dnnl_exec_arg_t step_args[2] = {};
  dnnl_memory_t owned[kMaxOwned] = {};
  int num_owned = 0;
  char* metadata = nullptr;
  std::size_t metadata_len = 0;  // measured once: every event logs it
  // A reshape (or transpose) whose output views its input's buffer:
  // nothing to run.
  bool view = false;
  // A max pool over NHWC that runs our kernel instead of a primitive.
  NhwcMaxPool* nhwc_pool = nullptr;
  // A concatenation over the channels of NHWC inputs that runs our kernel
  // (nhwc_concat.h).
  bool nhwc_concat = false;
  // A binary over channel blocks of this size that runs our kernel
  // (blocked_channel_binary.h); 0 for none.
  std::int64_t channel_block = 0;
  // An int8 binary (kQBinary) on our kernel: its second operand (the
  // slot's buffer, or its copy in the first operand's format) and the
  // elements both buffers hold (blocked padding included).
  const void* qbinary_b = nullptr;
  std::int64_t qbinary_elements = 0;
  // kQClamp's table (null: a clamp of one quantization) and kQGlobalAvgPool's
  // source in plain NCHW order (the slot's buffer, or its copy).
  const std::uint8_t* qclamp_lut = nullptr;
  const void* qpool_src = nullptr;
  // A recurrent layer (kRnn): its primitives and reorders (rnn_layer.h).
  RnnLayer* rnn = nullptr;
  // A kRnnState: the layer whose final state it copies out, and which.
  const RnnLayer* rnn_state_of = nullptr;
  std::int64_t rnn_state = 0;
};

struct DnnDelegate {
  const DnnParsedProgram* program = nullptr;
  dnnl_engine_t engine = nullptr;
  dnnl_stream_t stream = nullptr;
  dnnl_memory_desc_t* mds = nullptr;  // per slot, the format oneDNN chose
  float** buffers = nullptr;          // per slot
  std::size_t* buffer_bytes = nullptr;
  dnnl_memory_t* mems = nullptr;  // per slot
  OpState* ops = nullptr;
  std::uint32_t num_created = 0;
  float* log_buffer = nullptr;
  bool* perturbed = nullptr;
  // Per slot, the slot whose buffer it uses (itself unless it aliases
  // another: a reshape's view, a sum added in place).
  std::uint32_t* owner = nullptr;
  runtime::DelegateLogMode mode = runtime::DelegateLogMode::kRealTime;
  std::uint32_t threads = 1;
  // 3x3 convolutions may run as Winograd (see runs_winograd).
  bool winograd = true;
  // Each primitive's identifiers and metadata, as its events log them.
  backends::OperatorEvents events;
};

// Init-time errors carry oneDNN's status in a message from the method's
// allocator (init may allocate; execute never builds messages).
ErrorInfo dnn_error(MemoryAllocator* memory, const char* what, dnnl_status_t status) {
  auto* text = static_cast<char*>(memory->allocate(160, 1));
  if (text == nullptr) return make_error(Error::kNotSupported, "onednn: a primitive failed");
  std::snprintf(text, 160, "onednn: %s failed (%s)", what, dnnl_status2str(status));
  return make_error(status == dnnl_unimplemented ? Error::kNotSupported : Error::kInternal, text);
}

#define DNN_TRY(call, what)                                                       \
  do {                                                                            \
    const dnnl_status_t dnn_status_ = (call);                                     \
    if (dnn_status_ != dnnl_success) return dnn_error(memory, what, dnn_status_); \
  } while (0)

dnnl_data_type_t dnnl_type(DnnDataType type) {
  switch (type) {
    case DnnDataType::kF32: return dnnl_f32;
    case DnnDataType::kS8: return dnnl_s8;
    case DnnDataType::kU8: return dnnl_u8;
    case DnnDataType::kS32: return dnnl_s32;
  }
  return dnnl_data_type_undef;
}

ScalarType scalar_type(DnnDataType type) {
  switch (type) {
    case DnnDataType::kF32: return ScalarType::kFloat;
    case DnnDataType::kS8: return ScalarType::kChar;
    case DnnDataType::kU8: return ScalarType::kByte;
    case DnnDataType::kS32: return ScalarType::kInt;
  }
  return ScalarType::kFloat;
}

dnnl_status_t plain_md(dnnl_memory_desc_t* md, int rank, const std::int64_t* dims,
                       dnnl_data_type_t type = dnnl_f32) {
  static constexpr dnnl_format_tag_t kTags[] = {dnnl_a,    dnnl_ab,    dnnl_abc,
                                                dnnl_abcd, dnnl_abcde, dnnl_abcdef};
  dnnl_dims_t d = {};
  for (int i = 0; i < rank; ++i) d[i] = dims[i];
  return dnnl_memory_desc_init_by_tag(md, rank, d, type, kTags[rank - 1]);
}

// `s` in plain row-major order, of its own data type.
dnnl_status_t plain_md(dnnl_memory_desc_t* md, const DnnSlot& s) {
  return plain_md(md, s.rank, s.dims, dnnl_type(s.type));
}

// A 4-D slot's dims in NHWC order (oneDNN's acdb).
dnnl_status_t nhwc_md(dnnl_memory_desc_t* md, const std::int64_t* dims) {
  const dnnl_dims_t d = {dims[0], dims[1], dims[2], dims[3]};
  return dnnl_memory_desc_init_by_tag(md, 4, d, dnnl_f32, dnnl_acdb);
}

dnnl_status_t any_md(dnnl_memory_desc_t* md, int rank, const std::int64_t* dims,
                     dnnl_data_type_t type = dnnl_f32) {
  dnnl_dims_t d = {};
  for (int i = 0; i < rank; ++i) d[i] = dims[i];
  return dnnl_memory_desc_init_by_tag(md, rank, d, type, dnnl_format_tag_any);
}

bool is_plain(const DnnDelegate& d, std::uint32_t slot) {
  const DnnSlot& s = d.program->slots[slot];
  dnnl_memory_desc_t plain;
  return plain_md(&plain, s) == dnnl_success && dnnl_memory_desc_equal(&plain, &d.mds[slot]) != 0;
}

// oneDNN's short name of a blocked format: dims outermost first by stride,
// upper case when also blocked inside, then the inner blocks ("aBcd8b").
void describe_format(const dnnl_memory_desc_t& md, char* out, std::size_t size) {
  if (md.format_kind != dnnl_blocked) {
    std::snprintf(out, size, "opaque");
    return;
  }
  const dnnl_blocking_desc_t& b = md.format_desc.blocking;
  int order[DNNL_MAX_NDIMS];
  for (int i = 0; i < md.ndims; ++i) order[i] = i;
  for (int i = 1; i < md.ndims; ++i) {  // insertion sort by descending stride, stable
    for (int j = i; j > 0 && b.strides[order[j - 1]] < b.strides[order[j]]; --j) {
      const int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  }
  std::size_t n = 0;
  for (int i = 0; i < md.ndims && n + 1 < size; ++i) {
    bool blocked = false;
    for (int k = 0; k < b.inner_nblks; ++k) blocked |= b.inner_idxs[k] == order[i];
    out[n++] = static_cast<char>((blocked ? 'A' : 'a') + order[i]);
  }
  for (int k = 0; k < b.inner_nblks && n + 8 < size; ++k) {
    n += static_cast<std::size_t>(std::snprintf(out + n, size - n, "%lld%c",
                                                static_cast<long long>(b.inner_blks[k]),
                                                static_cast<char>('a' + b.inner_idxs[k])));
  }
  out[n < size ? n : size - 1] = '\0';
}

dnnl_alg_kind_t eltwise_alg(std::int64_t code) {
  switch (static_cast<DnnEltwise>(code)) {
    case DnnEltwise::kRelu: return dnnl_eltwise_relu;
    case DnnEltwise::kClip: return dnnl_eltwise_clip_v2;
    case DnnEltwise::kLogistic: return dnnl_eltwise_logistic;
    case DnnEltwise::kHardswish: return dnnl_eltwise_hardswish;
    case DnnEltwise::kLinear: return dnnl_eltwise_linear;
    case DnnEltwise::kGeluErf: return dnnl_eltwise_gelu_erf;
    case DnnEltwise::kGeluTanh: return dnnl_eltwise_gelu_tanh;
    case DnnEltwise::kTanh: return dnnl_eltwise_tanh;
    case DnnEltwise::kExp: return dnnl_eltwise_exp;
    case DnnEltwise::kLog: return dnnl_eltwise_log;
    case DnnEltwise::kAbs: return dnnl_eltwise_abs;
    case DnnEltwise::kSqrt: return dnnl_eltwise_sqrt;
    case DnnEltwise::kElu: return dnnl_eltwise_elu;
    case DnnEltwise::kSoftRelu: return dnnl_eltwise_soft_relu;
    case DnnEltwise::kPow: return dnnl_eltwise_pow;
    case DnnEltwise::kSwish: return dnnl_eltwise_swish;
  }
  return dnnl_alg_kind_undef;
}

dnnl_alg_kind_t binary_alg(std::int64_t code) {
  switch (static_cast<DnnBinary>(code)) {
    case DnnBinary::kAdd: return dnnl_binary_add;
    case DnnBinary::kSub: return dnnl_binary_sub;
    case DnnBinary::kMul: return dnnl_binary_mul;
    case DnnBinary::kDiv: return dnnl_binary_div;
    case DnnBinary::kMin: return dnnl_binary_min;
    case DnnBinary::kMax: return dnnl_binary_max;
  }
  return dnnl_alg_kind_undef;
}

// An int8 convolution's or matmul's quantization (kQConvolution,
// kQMatmul): per-channel output scales (the constant slot `scales`, its
// dim `channel_dim` of the output) and the source's and output's zero
// points, given when nonzero (oneDNN 2.6's jit int8 kernels take both).
struct QuantAttr {
  const float* scales = nullptr;
  std::int64_t count = 0;
  int channel_dim = 1;
  std::int32_t src_zero_point = 0;
  std::int32_t dst_zero_point = 0;
};

// Primitive attributes: user scratchpad, the quantization (when `quant`),
// then the sum and the eltwise steps from `first` on as post-ops.
dnnl_status_t make_attr(const DnnParsedOp& op, std::uint32_t first, bool sum,
                        dnnl_primitive_attr_t* attr, const QuantAttr* quant = nullptr) {
  dnnl_status_t s = dnnl_primitive_attr_create(attr);
  if (s != dnnl_success) return s;
  s = dnnl_primitive_attr_set_scratchpad_mode(*attr, dnnl_scratchpad_mode_user);
  if (s == dnnl_success && quant != nullptr) {
    s = dnnl_primitive_attr_set_output_scales(*attr, quant->count, 1 << quant->channel_dim,
                                              quant->scales);
    if (s == dnnl_success && quant->src_zero_point != 0) {
      s = dnnl_primitive_attr_set_zero_points(*attr, DNNL_ARG_SRC, 1, 0, &quant->src_zero_point);
    }
    if (s == dnnl_success && quant->dst_zero_point != 0) {
      s = dnnl_primitive_attr_set_zero_points(*attr, DNNL_ARG_DST, 1, 0, &quant->dst_zero_point);
    }
  }
  dnnl_post_ops_t post_ops = nullptr;
  if (s == dnnl_success) s = dnnl_post_ops_create(&post_ops);
  if (s == dnnl_success && sum) s = dnnl_post_ops_append_sum(post_ops, 1.f);
  for (std::uint32_t k = first; s == dnnl_success && k < op.num_steps; ++k) {
    s = dnnl_post_ops_append_eltwise(post_ops, 1.f, eltwise_alg(op.ints[op.first_step + k]),
                                     op.floats[2 * k], op.floats[2 * k + 1]);
  }
  if (s == dnnl_success) s = dnnl_primitive_attr_set_post_ops(*attr, post_ops);
  if (post_ops != nullptr) dnnl_post_ops_destroy(post_ops);
  if (s != dnnl_success) {
    dnnl_primitive_attr_destroy(*attr);
    *attr = nullptr;
  }
  return s;
}

// Whether `op` runs as a Winograd convolution: a 3x3 kernel, stride 1,
// no dilation, one group, no fused sum (its residual would have to be in
// the Winograd kernel's blocked format too), at least kMinWinogradChannels
// input channels, and an output at least kMinWinogradSide pixels a side
// (kMinWinogradSideOneThread on one thread). Measured alone here (oneDNN
// 2.6, AVX-512), its Winograd kernels took 1.2-3x less time than its
// direct ones on the shapes of googlenet's, squeezenet's and the ResNets'
// 3x3 convolutions on one thread (16 to 256 channels, 13x13 to 56x56),
// and on two threads at 28x28 and up; on two threads at 7x7 and 14x14
// they were up to 1.2x slower. With 16 input channels (squeezenet's first
// expands, 55x55) the two reorders took what the kernel saved.
constexpr std::int64_t kMinWinogradChannels = 32;
constexpr std::int64_t kMinWinogradSide = 28;
constexpr std::int64_t kMinWinogradSideOneThread = 13;
bool runs_winograd(const DnnDelegate& d, const DnnParsedOp& op) {
  const DnnParsedProgram& p = *d.program;
  const DnnSlot& w = p.slots[op.operands[1]];
  const DnnSlot& y = p.slots[p.first_op_slot() + static_cast<std::uint32_t>(&op - p.ops)];
  const std::int64_t* q = op.ints;
  const std::int64_t min_side = d.threads == 1 ? kMinWinogradSideOneThread : kMinWinogradSide;
  return d.winograd && op.kind == DnnOpKind::kConvolution && op.num_operands == 3 && w.rank == 4 &&
         w.dims[2] == 3 && w.dims[3] == 3 && q[0] == 1 && q[1] == 1 && q[2] == 1 && q[3] == 1 &&
         q[8] == 1 && w.dims[1] >= kMinWinogradChannels && y.dims[2] >= min_side &&
         y.dims[3] >= min_side;
}

// A convolution's weights [O, C/g, k...] as oneDNN's grouped form
// [g, O/g, C/g, k...] (w.rank + 1 dims).
void grouped_weight_dims(const DnnSlot& w, std::int64_t groups, std::int64_t* grouped) {
  grouped[0] = groups;
  grouped[1] = w.dims[0] / groups;
  for (std::uint32_t i = 1; i < w.rank; ++i) grouped[i + 1] = w.dims[i];
}

// The convolution of `op` with its source in `src` (null: let oneDNN pick).
dnnl_status_t conv_pd(const DnnDelegate& d, const DnnParsedOp& op, const dnnl_memory_desc_t* src,
                      dnnl_primitive_desc_t* pd,
                      dnnl_alg_kind_t algorithm = dnnl_convolution_direct) {
  const DnnParsedProgram& p = *d.program;
  const DnnSlot& x = p.slots[op.operands[0]];
  const DnnSlot& w = p.slots[op.operands[1]];
  const DnnSlot& y = p.slots[p.first_op_slot() + static_cast<std::uint32_t>(&op - p.ops)];
  const std::int64_t* q = op.ints;
  const int n = static_cast<int>(x.rank) - 2;  // spatial dims: 2, or 3 (D, H, W)
  const std::int64_t groups = q[4 * n];
  const bool int8 = op.kind == DnnOpKind::kQConvolution;
  const dnnl_data_type_t w_type = int8 ? dnnl_s8 : dnnl_f32;
  dnnl_memory_desc_t src_md, w_md, b_md, dst_md;
  dnnl_status_t s =
      src != nullptr ? dnnl_success : any_md(&src_md, x.rank, x.dims, dnnl_type(x.type));
  if (src != nullptr) src_md = *src;
  std::int64_t grouped[6] = {};
  grouped_weight_dims(w, groups, grouped);
  if (s == dnnl_success) {
    s = groups == 1 ? any_md(&w_md, w.rank, w.dims, w_type)
                    : any_md(&w_md, w.rank + 1, grouped, w_type);
  }
  if (s == dnnl_success) s = plain_md(&b_md, 1, &w.dims[0], int8 ? dnnl_s32 : dnnl_f32);
  if (s == dnnl_success) s = any_md(&dst_md, y.rank, y.dims, dnnl_type(y.type));
  dnnl_dims_t strides = {}, dilates = {}, pad_l = {}, pad_r = {};
  for (int k = 0; k < n; ++k) {
    strides[k] = q[k];
    dilates[k] = q[n + k] - 1;
    pad_l[k] = q[2 * n + k];
    pad_r[k] = q[3 * n + k];
  }
  dnnl_convolution_desc_t desc;
  if (s == dnnl_success) {
    s = dnnl_dilated_convolution_forward_desc_init(&desc, dnnl_forward_inference, algorithm,
                                                   &src_md, &w_md, &b_md, &dst_md, strides, dilates,
                                                   pad_l, pad_r);
  }
  dnnl_primitive_attr_t attr = nullptr;
  QuantAttr quant;
  if (int8) {
    quant = {.scales = reinterpret_cast<const float*>(d.buffers[op.operands[3]]),
             .count = w.dims[0],
             .channel_dim = 1,
             .src_zero_point = x.zero_point,
             .dst_zero_point = y.zero_point};
  }
  if (s == dnnl_success) s = make_attr(op, 0, q[4 * n + 1] != 0, &attr, int8 ? &quant : nullptr);
  if (s == dnnl_success) s = dnnl_primitive_desc_create(pd, &desc, attr, d.engine, nullptr);
  if (attr != nullptr) dnnl_primitive_attr_destroy(attr);
  return s;
}

class OpBuilder {
 public:
  OpBuilder(DnnDelegate* d, MemoryAllocator* allocator) : d_(d), memory(allocator) {}

  ErrorInfo build(std::uint32_t i) {
    const DnnParsedOp& op = d_->program->ops[i];
    out_ = d_->program->first_op_slot() + i;
    st_ = &d_->ops[i];
    st_->args = memory->allocate_array<dnnl_exec_arg_t>(kMaxArgs);
    st_->metadata = static_cast<char*>(memory->allocate(kMetadataBytes, 1));
    if (st_->args == nullptr || st_->metadata == nullptr) return oom();
    ErrorInfo e = kOk;
    switch (op.kind) {
      case DnnOpKind::kConvolution: e = convolution(op); break;
      case DnnOpKind::kMatmul: e = matmul(op); break;
      case DnnOpKind::kPooling: e = pooling(op); break;
      case DnnOpKind::kEltwise: e = eltwise(op); break;
      case DnnOpKind::kBinary: e = binary(op); break;
      case DnnOpKind::kSoftmax: e = softmax(op); break;
      case DnnOpKind::kConcat: e = concat(op); break;
      case DnnOpKind::kReorder: e = reorder(op, i); break;
      case DnnOpKind::kReshape: e = reshape(op, i); break;
      case DnnOpKind::kLayerNorm: e = layer_norm(op); break;
      case DnnOpKind::kBatchMatmul: e = batch_matmul(op); break;
      case DnnOpKind::kTranspose: e = transpose(op, i); break;
      case DnnOpKind::kSlice: e = slice(op); break;
      case DnnOpKind::kQuantize:
      case DnnOpKind::kDequantize: e = quantize(op); break;
      case DnnOpKind::kQConvolution: e = convolution(op); break;
      case DnnOpKind::kQMatmul: e = matmul(op); break;
      case DnnOpKind::kQBinary: e = qbinary(op); break;
      case DnnOpKind::kQClamp: e = qclamp(op); break;
      case DnnOpKind::kQGlobalAvgPool: e = qglobal_avg_pool(op); break;
      case DnnOpKind::kRnn: e = rnn(op); break;
      case DnnOpKind::kRnnState: e = rnn_state(op); break;
    }
    if (e.code != Error::kOk) return e;
    const char* impl = "";
    if (st_->pd != nullptr) {
      (void)dnnl_primitive_desc_query(st_->pd, dnnl_query_impl_info_str, 0, &impl);
    }
    if (op.kind == DnnOpKind::kReorder) {
      char from[48], to[48];
      describe_format(d_->mds[op.operands[0]], from, sizeof(from));
      describe_format(d_->mds[out_], to, sizeof(to));
      // "layout: " makes the Inspector's ops view give each its own row
      // instead of folding it into the operator it feeds.
      std::snprintf(st_->metadata, kMetadataBytes, "layout: %s -> %s (reorder %s)", from, to, impl);
    } else if (st_->nhwc_pool != nullptr) {
      std::snprintf(st_->metadata, kMetadataBytes, "pooling: glassbox:nhwc_max");
    } else if (st_->nhwc_concat) {
      std::snprintf(st_->metadata, kMetadataBytes, "concat: glassbox:nhwc");
    } else if (st_->channel_block != 0) {
      std::snprintf(st_->metadata, kMetadataBytes, "binary: glassbox:blocked_channel");
    } else if (op.kind == DnnOpKind::kQBinary) {
      std::snprintf(st_->metadata, kMetadataBytes, "binary: glassbox:qlinear_%s",
                    op.ints[0] == static_cast<std::int64_t>(DnnBinary::kAdd) ? "add" : "mul");
    } else if (op.kind == DnnOpKind::kQClamp) {
      std::snprintf(st_->metadata, kMetadataBytes, "eltwise: glassbox:%s",
                    op.num_operands == 1 ? "quantized_clamp" : "quant_lut");
    } else if (op.kind == DnnOpKind::kQGlobalAvgPool) {
      std::snprintf(st_->metadata, kMetadataBytes, "pooling: glassbox:qlinear_global_avg_pool2d");
    } else if (st_->rnn_state_of != nullptr) {
      std::snprintf(st_->metadata, kMetadataBytes, "rnn_state: glassbox:copy");
    } else if (st_->rnn != nullptr) {
      std::snprintf(st_->metadata, kMetadataBytes, "rnn: %s", rnn_layer_impl(*st_->rnn));
    } else if (st_->view) {
      std::snprintf(st_->metadata, kMetadataBytes, "%s: view", dnn_op_kind_name(op.kind));
    } else if (op.kind == DnnOpKind::kReshape) {
      std::snprintf(st_->metadata, kMetadataBytes, "reshape: copy");
    } else {
      std::snprintf(st_->metadata, kMetadataBytes, "%s: %s", dnn_op_kind_name(op.kind), impl);
    }
    st_->metadata_len = std::strlen(st_->metadata);
    return kOk;
  }

 private:
  ErrorInfo oom() const {
    return make_error(Error::kMemoryAllocationFailed, "onednn: out of memory");
  }

  // Allocates the output buffer for `md` and its memory object.
  ErrorInfo define_output(const dnnl_memory_desc_t& md) {
    d_->mds[out_] = md;
    d_->owner[out_] = out_;
    const std::size_t bytes = dnnl_memory_desc_get_size(&md);
    d_->buffer_bytes[out_] = bytes;
    d_->buffers[out_] = static_cast<float*>(memory->allocate(bytes, kBufferAlignment));
    if (d_->buffers[out_] == nullptr) return oom();
    DNN_TRY(dnnl_memory_create(&d_->mems[out_], &md, d_->engine, d_->buffers[out_]),
            "memory creation");
    return kOk;
  }

  // The output seen with `md` over `slot`'s buffer (a sum added in
  // place, a view): no buffer of its own.
  ErrorInfo share_buffer(std::uint32_t slot, const dnnl_memory_desc_t& md) {
    d_->mds[out_] = md;
    d_->owner[out_] = d_->owner[slot];
    d_->buffer_bytes[out_] = d_->buffer_bytes[slot];
    d_->buffers[out_] = d_->buffers[slot];
    DNN_TRY(dnnl_memory_create(&d_->mems[out_], &md, d_->engine, d_->buffers[out_]),
            "memory creation");
    return kOk;
  }

  // The output of a convolution or matmul written in `dst`; with a fused
  // sum (operand 3), in the residual's buffer when it can be (see
  // accumulates_in_place), else in a buffer of its own that a copy of the
  // residual fills before each run.
  ErrorInfo output_with_sum(const DnnParsedOp& op, const dnnl_memory_desc_t& dst) {
    // (A kQConvolution's fourth operand is its output scales.)
    if (op.num_operands != 4 || op.kind == DnnOpKind::kQConvolution) return define_output(dst);
    const std::uint32_t sum = op.operands[3];
    if (accumulates_in_place(op, dst)) return share_buffer(sum, d_->mds[sum]);
    if (ErrorInfo e = define_output(dst); e.code != Error::kOk) return e;
    return reorder_into(d_->mds[sum], d_->mems[sum], d_->mems[out_], &st_->sum_reorder,
                        st_->sum_args);
  }

  // A convolution or matmul with a fused sum (operand 3) adds its result
  // to the residual in the residual's own buffer when nothing needs that buffer's contents
  // afterwards: it is not a constant's, not the convolution's source, and
  // no slot using it (the residual, or a reshape's view of it) is a
  // delegate output or read by a later operator; and the residual is
  // already in the format the convolution writes. That saves a copy of
  // the residual per run (a ResNet block's 1x1 expansion ran at 91-125
  // GFLOP/s with the copy, against 150-170 for the other 1x1
  // convolutions).
  bool accumulates_in_place(const DnnParsedOp& op, const dnnl_memory_desc_t& dst) const {
    const DnnParsedProgram& p = *d_->program;
    const std::uint32_t buffer = d_->owner[op.operands[3]];
    if (p.is_constant(buffer) || d_->owner[op.operands[0]] == buffer ||
        dnnl_memory_desc_equal(&d_->mds[op.operands[3]], &dst) == 0) {
      return false;
    }
    // (Operands 1 and 2, weights and bias, are constants.)
    for (std::uint32_t k = 0; k < p.num_outputs; ++k) {
      if (d_->owner[p.outputs[k]] == buffer) return false;
    }
    for (std::uint32_t j = out_ - p.first_op_slot() + 1; j < p.num_ops; ++j) {
      for (std::uint32_t k = 0; k < p.ops[j].num_operands; ++k) {
        if (d_->owner[p.ops[j].operands[k]] == buffer) return false;
      }
    }
    return true;
  }

  ErrorInfo output_from_pd() {
    return define_output(*dnnl_primitive_desc_query_md(st_->pd, dnnl_query_dst_md, 0));
  }

  void arg(int name, dnnl_memory_t mem) { st_->args[st_->num_args++] = {name, mem}; }

  // A memory object of this op's own over `data` with `md`.
  ErrorInfo own(const dnnl_memory_desc_t& md, void* data, dnnl_memory_t* mem) {
    if (st_->num_owned == kMaxOwned)
      return make_error(Error::kInternal, "onednn: too many memories");
    DNN_TRY(dnnl_memory_create(mem, &md, d_->engine, data), "memory creation");
    st_->owned[st_->num_owned++] = *mem;
    return kOk;
  }

  // Weights in the format `pd` chose, reordered once from the plain
  // constant `user` (with `user_md`'s view of its bytes).
  ErrorInfo packed_weights(std::uint32_t constant, const dnnl_memory_desc_t& user_md,
                           dnnl_memory_t* packed) {
    const dnnl_memory_desc_t chosen =
        *dnnl_primitive_desc_query_md(st_->pd, dnnl_query_weights_md, 0);
    void* data = memory->allocate(dnnl_memory_desc_get_size(&chosen), kBufferAlignment);
    if (data == nullptr) return oom();
    if (ErrorInfo e = own(chosen, data, packed); e.code != Error::kOk) return e;
    dnnl_memory_t user = nullptr;
    DNN_TRY(dnnl_memory_create(&user, &user_md, d_->engine, d_->buffers[constant]),
            "memory creation");
    dnnl_primitive_desc_t rpd = nullptr;
    dnnl_primitive_t r = nullptr;
    dnnl_status_t s = dnnl_reorder_primitive_desc_create(&rpd, &user_md, d_->engine, &chosen,
                                                         d_->engine, nullptr);
    if (s == dnnl_success) s = dnnl_primitive_create(&r, rpd);
    const dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, *packed}};
    if (s == dnnl_success) s = dnnl_primitive_execute(r, d_->stream, 2, args);
    if (s == dnnl_success) s = dnnl_stream_wait(d_->stream);
    if (r != nullptr) dnnl_primitive_destroy(r);
    if (rpd != nullptr) dnnl_primitive_desc_destroy(rpd);
    dnnl_memory_destroy(user);
    DNN_TRY(s, "weights reorder");
    return kOk;
  }

  ErrorInfo create_primitive(const char* what) {
    DNN_TRY(dnnl_primitive_create(&st_->primitive, st_->pd), what);
    return kOk;
  }

  ErrorInfo reorder_into(const dnnl_memory_desc_t& from, dnnl_memory_t src, dnnl_memory_t dst,
                         dnnl_primitive_t* r, dnnl_exec_arg_t* args) {
    dnnl_primitive_desc_t rpd = nullptr;
    DNN_TRY(dnnl_reorder_primitive_desc_create(&rpd, &from, d_->engine, &d_->mds[out_], d_->engine,
                                               nullptr),
            "reorder creation");
    const dnnl_status_t s = dnnl_primitive_create(r, rpd);
    dnnl_primitive_desc_destroy(rpd);
    DNN_TRY(s, "reorder creation");
    args[0] = {DNNL_ARG_FROM, src};
    args[1] = {DNNL_ARG_TO, dst};
    return kOk;
  }

  // True if `pd` runs oneDNN's reference kernel (impl "ref:...").
  static bool runs_reference_kernel(const_dnnl_primitive_desc_t pd) {
    const char* impl = "";
    (void)dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    return impl != nullptr && std::strncmp(impl, "ref", 3) == 0;
  }

  // oneDNN 2.6 has only its reference kernel for some convolutions over a
  // source in the format the previous primitive left (a grouped 3x3 over
  // an NHWC source: regnet's, 55 ms a convolution against about 1 ms).
  // If the format oneDNN would pick for the source has a fast kernel, the
  // convolution takes that instead (see reorder_source).
  ErrorInfo source_for_fast_kernel(const DnnParsedOp& op, dnnl_memory_t* src) {
    dnnl_primitive_desc_t pd = nullptr;
    DNN_TRY(conv_pd(*d_, op, nullptr, &pd), "convolution creation");
    if (runs_reference_kernel(pd)) {  // no better kernel on this machine
      dnnl_primitive_desc_destroy(pd);
      return kOk;
    }
    dnnl_primitive_desc_destroy(st_->pd);
    st_->pd = pd;
    return reorder_source(op, src);
  }

  // When the convolution's primitive (st_->pd) takes its source in another
  // format than the one its producer wrote, the source is reordered into
  // that format before each run, inside the convolution's own event (the
  // reorder is this primitive's choice, not the model's). `*src` becomes
  // that copy.
  ErrorInfo reorder_source(const DnnParsedOp& op, dnnl_memory_t* src) {
    const std::uint32_t from = op.operands[0];
    const dnnl_memory_desc_t chosen = *dnnl_primitive_desc_query_md(st_->pd, dnnl_query_src_md, 0);
    if (dnnl_memory_desc_equal(&chosen, &d_->mds[from]) != 0) return kOk;
    void* data = memory->allocate(dnnl_memory_desc_get_size(&chosen), kBufferAlignment);
    if (data == nullptr) return oom();
    if (ErrorInfo e = own(chosen, data, src); e.code != Error::kOk) return e;
    dnnl_primitive_desc_t rpd = nullptr;
    DNN_TRY(dnnl_reorder_primitive_desc_create(&rpd, &d_->mds[from], d_->engine, &chosen,
                                               d_->engine, nullptr),
            "source reorder creation");
    const dnnl_status_t s = dnnl_primitive_create(&st_->src_reorder, rpd);
    dnnl_primitive_desc_destroy(rpd);
    DNN_TRY(s, "source reorder creation");
    st_->src_args[0] = {DNNL_ARG_FROM, d_->mems[from]};
    st_->src_args[1] = {DNNL_ARG_TO, *src};
    return kOk;
  }

  // A Winograd primitive for `op` (see runs_winograd), its source in the
  // blocked format it takes; null when oneDNN has none for it (post-ops it
  // cannot fuse, an ISA without the kernel).
  dnnl_primitive_desc_t winograd_pd(const DnnParsedOp& op) {
    dnnl_primitive_desc_t pd = nullptr;
    if (!runs_winograd(*d_, op)) return nullptr;
    if (conv_pd(*d_, op, nullptr, &pd, dnnl_convolution_winograd) != dnnl_success) return nullptr;
    if (runs_reference_kernel(pd)) {
      dnnl_primitive_desc_destroy(pd);
      return nullptr;
    }
    return pd;
  }

  // A Winograd convolution's source and output are in a blocked format
  // its neighbours do not use (a mix of formats sends oneDNN's concat to
  // its reference kernel): the source is reordered into it before the
  // run, and the output out of it into the format the direct convolution
  // would have written, after the run, both inside the convolution's own
  // event. `*dst` becomes the Winograd primitive's own output buffer.
  ErrorInfo use_winograd(const DnnParsedOp& op, dnnl_primitive_desc_t winograd, dnnl_memory_t* src,
                         dnnl_memory_t* dst) {
    dnnl_primitive_desc_destroy(st_->pd);
    st_->pd = winograd;
    if (ErrorInfo e = reorder_source(op, src); e.code != Error::kOk) return e;
    const dnnl_memory_desc_t out_md = *dnnl_primitive_desc_query_md(winograd, dnnl_query_dst_md, 0);
    if (dnnl_memory_desc_equal(&out_md, &d_->mds[out_]) != 0) return kOk;
    void* data = memory->allocate(dnnl_memory_desc_get_size(&out_md), kBufferAlignment);
    if (data == nullptr) return oom();
    if (ErrorInfo e = own(out_md, data, dst); e.code != Error::kOk) return e;
    if (ErrorInfo e = reorder_into(out_md, *dst, d_->mems[out_], &st_->steps[0], st_->step_args);
        e.code != Error::kOk) {
      return e;
    }
    st_->num_steps = 1;
    return kOk;
  }

  ErrorInfo convolution(const DnnParsedOp& op) {
    dnnl_memory_t src = d_->mems[op.operands[0]];
    DNN_TRY(conv_pd(*d_, op, &d_->mds[op.operands[0]], &st_->pd), "convolution creation");
    if (runs_reference_kernel(st_->pd)) {
      if (ErrorInfo e = source_for_fast_kernel(op, &src); e.code != Error::kOk) return e;
    }
    if (ErrorInfo e =
            output_with_sum(op, *dnnl_primitive_desc_query_md(st_->pd, dnnl_query_dst_md, 0));
        e.code != Error::kOk) {
      return e;
    }
    // The output's format is the direct convolution's; a Winograd one
    // writes its own buffer, reordered into the output after it runs.
    dnnl_memory_t dst = d_->mems[out_];
    if (dnnl_primitive_desc_t winograd = st_->src_reorder != nullptr ? nullptr : winograd_pd(op)) {
      if (ErrorInfo e = use_winograd(op, winograd, &src, &dst); e.code != Error::kOk) return e;
    }
    const DnnSlot& w = d_->program->slots[op.operands[1]];
    const std::int64_t groups = op.ints[4 * (w.rank - 2)];
    std::int64_t grouped[6] = {};
    grouped_weight_dims(w, groups, grouped);
    dnnl_memory_desc_t user_md;
    if (groups == 1) {
      DNN_TRY(plain_md(&user_md, w.rank, w.dims, dnnl_type(w.type)), "weights descriptor");
    } else {
      DNN_TRY(plain_md(&user_md, w.rank + 1, grouped, dnnl_type(w.type)), "weights descriptor");
    }
    dnnl_memory_t weights = nullptr;
    if (ErrorInfo e = packed_weights(op.operands[1], user_md, &weights); e.code != Error::kOk) {
      return e;
    }
    arg(DNNL_ARG_SRC, src);
    arg(DNNL_ARG_WEIGHTS, weights);
    arg(DNNL_ARG_BIAS, d_->mems[op.operands[2]]);
    arg(DNNL_ARG_DST, dst);
    return create_primitive("convolution creation");
  }

  ErrorInfo matmul(const DnnParsedOp& op) {
    const DnnParsedProgram& p = *d_->program;
    const DnnSlot& x = p.slots[op.operands[0]];
    if (!is_plain(*d_, op.operands[0])) {
      return make_error(Error::kCorruptData, "onednn program: matmul input not in plain order");
    }
    const std::int64_t k = x.dims[x.rank - 1];
    const std::int64_t n = p.slots[op.operands[1]].dims[1];
    const std::int64_t src_dims[2] = {x.numel / k, k};
    const std::int64_t w_dims[2] = {k, n};
    const std::int64_t b_dims[2] = {1, n};
    const std::int64_t dst_dims[2] = {x.numel / k, n};
    const bool int8 = op.kind == DnnOpKind::kQMatmul;
    const dnnl_data_type_t w_type = int8 ? dnnl_s8 : dnnl_f32;
    const DnnSlot& y = p.slots[out_];
    dnnl_memory_desc_t src_md, w_md, b_md, dst_md, w_user;
    DNN_TRY(plain_md(&src_md, 2, src_dims, dnnl_type(x.type)), "matmul descriptor");
    DNN_TRY(any_md(&w_md, 2, w_dims, w_type), "matmul descriptor");
    DNN_TRY(plain_md(&w_user, 2, w_dims, w_type), "matmul descriptor");
    DNN_TRY(plain_md(&b_md, 2, b_dims, int8 ? dnnl_s32 : dnnl_f32), "matmul descriptor");
    DNN_TRY(plain_md(&dst_md, 2, dst_dims, dnnl_type(y.type)), "matmul descriptor");
    dnnl_matmul_desc_t desc;
    DNN_TRY(dnnl_matmul_desc_init(&desc, &src_md, &w_md, &b_md, &dst_md), "matmul creation");
    dnnl_primitive_attr_t attr = nullptr;
    QuantAttr quant;
    if (int8) {
      quant = {.scales = reinterpret_cast<const float*>(d_->buffers[op.operands[3]]),
               .count = n,
               .channel_dim = 1,
               .src_zero_point = x.zero_point,
               .dst_zero_point = y.zero_point};
    }
    DNN_TRY(make_attr(op, 0, !int8 && op.num_operands == 4, &attr, int8 ? &quant : nullptr),
            "matmul attributes");
    const dnnl_status_t s = dnnl_primitive_desc_create(&st_->pd, &desc, attr, d_->engine, nullptr);
    dnnl_primitive_attr_destroy(attr);
    DNN_TRY(s, "matmul creation");
    dnnl_memory_desc_t logical;
    DNN_TRY(plain_md(&logical, y), "matmul descriptor");
    if (int8) {
      if (ErrorInfo e = define_output(logical); e.code != Error::kOk) return e;
    } else if (ErrorInfo e = output_with_sum(op, logical); e.code != Error::kOk) {
      return e;
    }
    dnnl_memory_t weights = nullptr, src = nullptr, bias = nullptr, dst = nullptr;
    ErrorInfo e = packed_weights(op.operands[1], w_user, &weights);
    if (e.code == Error::kOk) e = own(src_md, d_->buffers[op.operands[0]], &src);
    if (e.code == Error::kOk) e = own(b_md, d_->buffers[op.operands[2]], &bias);
    if (e.code == Error::kOk) e = own(dst_md, d_->buffers[out_], &dst);
    if (e.code != Error::kOk) return e;
    arg(DNNL_ARG_SRC, src);
    arg(DNNL_ARG_WEIGHTS, weights);
    arg(DNNL_ARG_BIAS, bias);
    arg(DNNL_ARG_DST, dst);
    return create_primitive("matmul creation");
  }

  // Activation x activation (attention's Q x K^T, weights x V): both
  // operands plain, viewed with the output's rank (leading 1s broadcast).
  ErrorInfo batch_matmul(const DnnParsedOp& op) {
    const DnnParsedProgram& p = *d_->program;
    const DnnSlot& y = p.slots[out_];
    const int rank = static_cast<int>(y.rank);
    dnnl_memory_desc_t mds[2], dst_md;
    dnnl_memory_t mems[2] = {};
    for (int k = 0; k < 2; ++k) {
      const std::uint32_t slot = op.operands[k];
      if (!is_plain(*d_, slot)) {
        return make_error(Error::kCorruptData, "onednn program: matmul input not in plain order");
      }
      const DnnSlot& s = p.slots[slot];
      std::int64_t dims[kDnnMaxRank];
      const std::size_t lead = y.rank - s.rank;
      for (std::size_t i = 0; i < y.rank; ++i) dims[i] = i < lead ? 1 : s.dims[i - lead];
      DNN_TRY(plain_md(&mds[k], rank, dims), "matmul descriptor");
      if (ErrorInfo e = own(mds[k], d_->buffers[slot], &mems[k]); e.code != Error::kOk) return e;
    }
    DNN_TRY(plain_md(&dst_md, rank, y.dims), "matmul descriptor");
    dnnl_matmul_desc_t desc;
    DNN_TRY(dnnl_matmul_desc_init(&desc, &mds[0], &mds[1], nullptr, &dst_md), "matmul creation");
    dnnl_primitive_attr_t attr = nullptr;
    DNN_TRY(make_attr(op, 0, false, &attr), "matmul attributes");
    const dnnl_status_t s = dnnl_primitive_desc_create(&st_->pd, &desc, attr, d_->engine, nullptr);
    dnnl_primitive_attr_destroy(attr);
    DNN_TRY(s, "matmul creation");
    if (ErrorInfo e = define_output(dst_md); e.code != Error::kOk) return e;
    arg(DNNL_ARG_SRC, mems[0]);
    arg(DNNL_ARG_WEIGHTS, mems[1]);
    arg(DNNL_ARG_DST, d_->mems[out_]);
    return create_primitive("matmul creation");
  }

  // Plain strides of `s`'s dims.
  static void plain_strides(const DnnSlot& s, std::int64_t* strides) {
    std::int64_t stride = 1;
    for (std::size_t i = s.rank; i-- > 0;) {
      strides[i] = stride;
      stride *= s.dims[i];
    }
  }

  // True when `perm` keeps the order of x's dims larger than 1: the
  // transpose then leaves the bytes as they are (vit_b_16's [1, T, E] <->
  // [T, 1, E] around every attention).
  static bool moves_only_unit_dims(const DnnSlot& x, const std::int64_t* perm) {
    std::int64_t last = -1;
    for (std::size_t i = 0; i < x.rank; ++i) {
      if (x.dims[perm[i]] == 1) continue;
      if (perm[i] < last) return false;
      last = perm[i];
    }
    return true;
  }

  // Output dim i walks src dim perm[i].
  ErrorInfo transpose(const DnnParsedOp& op, std::uint32_t index) {
    const DnnSlot& x = d_->program->slots[op.operands[0]];
    if (can_view(index) && is_plain(*d_, op.operands[0]) && moves_only_unit_dims(x, op.ints)) {
      return plain_view(op.operands[0]);
    }
    std::int64_t src[kDnnMaxRank], strides[kDnnMaxRank];
    plain_strides(x, src);
    for (std::size_t i = 0; i < x.rank; ++i) strides[i] = src[op.ints[i]];
    return strided_copy(op, strides, 0, "transpose");
  }

  // Output index j of dim i reads src index starts[i] + j * steps[i].
  ErrorInfo slice(const DnnParsedOp& op) {
    const DnnSlot& x = d_->program->slots[op.operands[0]];
    std::int64_t src[kDnnMaxRank], strides[kDnnMaxRank];
    plain_strides(x, src);
    std::int64_t offset = 0;
    for (std::size_t i = 0; i < x.rank; ++i) {
      offset += op.ints[i] * src[i];
      strides[i] = op.ints[x.rank + i] * src[i];
    }
    return strided_copy(op, strides, offset, "slice");
  }

  // One reorder from src, read as the output's dims with `strides` from
  // element `offset` on, into a plain output.
  ErrorInfo strided_copy(const DnnParsedOp& op, const std::int64_t* strides, std::int64_t offset,
                         const char* what) {
    const std::uint32_t from = op.operands[0];
    if (!is_plain(*d_, from)) {
      return make_error(Error::kCorruptData, "onednn program: strided copy of a blocked input");
    }
    const DnnSlot& y = d_->program->slots[out_];
    dnnl_memory_desc_t view_md, dst_md;
    DNN_TRY(dnnl_memory_desc_init_by_strides(&view_md, static_cast<int>(y.rank), y.dims, dnnl_f32,
                                             strides),
            what);
    DNN_TRY(plain_md(&dst_md, static_cast<int>(y.rank), y.dims), what);
    dnnl_memory_t view = nullptr;
    if (ErrorInfo e = own(view_md, d_->buffers[from] + offset, &view); e.code != Error::kOk) {
      return e;
    }
    DNN_TRY(dnnl_reorder_primitive_desc_create(&st_->pd, &view_md, d_->engine, &dst_md, d_->engine,
                                               nullptr),
            what);
    if (ErrorInfo e = define_output(dst_md); e.code != Error::kOk) return e;
    arg(DNNL_ARG_FROM, view);
    arg(DNNL_ARG_TO, d_->mems[out_]);
    return create_primitive(what);
  }

  // The window of `op` for our NHWC max pool, when it is a max pool
  // (dilation 1) over a dense NHWC source.
  bool nhwc_max_pool_of(const DnnParsedOp& op, NhwcMaxPool* pool) const {
    const std::int64_t* q = op.ints;
    const DnnSlot& x = d_->program->slots[op.operands[0]];
    const DnnSlot& y = d_->program->slots[out_];
    if (x.rank != 4 || q[0] != 0 || q[5] != 1 || q[6] != 1) return false;
    dnnl_memory_desc_t nhwc;
    if (nhwc_md(&nhwc, x.dims) != dnnl_success ||
        dnnl_memory_desc_equal(&nhwc, &d_->mds[op.operands[0]]) == 0) {
      return false;
    }
    *pool = NhwcMaxPool{.n = x.dims[0],
                        .h = x.dims[2],
                        .w = x.dims[3],
                        .c = x.dims[1],
                        .oh = y.dims[2],
                        .ow = y.dims[3],
                        .kernel_h = q[1],
                        .kernel_w = q[2],
                        .stride_h = q[3],
                        .stride_w = q[4],
                        .pad_top = q[7],
                        .pad_left = q[8]};
    return pool->valid();
  }

  ErrorInfo pooling(const DnnParsedOp& op) {
    const std::int64_t* q = op.ints;
    const DnnSlot& y = d_->program->slots[out_];
    if (NhwcMaxPool own; nhwc_max_pool_of(op, &own)) {
      // oneDNN 2.6's max pool over NHWC is 1.4-2.6x slower (nhwc_max_pool.h).
      st_->nhwc_pool = memory->allocate_array<NhwcMaxPool>(1);
      if (st_->nhwc_pool == nullptr) return oom();
      *st_->nhwc_pool = own;
      dnnl_memory_desc_t nhwc;
      DNN_TRY(nhwc_md(&nhwc, y.dims), "pooling descriptor");
      return define_output(nhwc);
    }
    dnnl_memory_desc_t dst_md;
    if (is_plain(*d_, op.operands[0])) {
      DNN_TRY(plain_md(&dst_md, y), "pooling descriptor");
    } else {
      DNN_TRY(any_md(&dst_md, y.rank, y.dims, dnnl_type(y.type)), "pooling descriptor");
    }
    const dnnl_alg_kind_t alg = q[0] == 0   ? dnnl_pooling_max
                                : q[0] == 1 ? dnnl_pooling_avg_include_padding
                                            : dnnl_pooling_avg_exclude_padding;
    const int n = static_cast<int>(y.rank) - 2;  // spatial dims: 2, or 3 (D, H, W)
    dnnl_dims_t kernel = {}, strides = {}, dilation = {}, pad_l = {}, pad_r = {};
    for (int k = 0; k < n; ++k) {
      kernel[k] = q[1 + k];
      strides[k] = q[1 + n + k];
      dilation[k] = q[1 + 2 * n + k] - 1;
      pad_l[k] = q[1 + 3 * n + k];
      pad_r[k] = q[1 + 4 * n + k];
    }
    dnnl_pooling_v2_desc_t desc;
    DNN_TRY(dnnl_pooling_v2_forward_desc_init(&desc, dnnl_forward_inference, alg,
                                              &d_->mds[op.operands[0]], &dst_md, strides, kernel,
                                              dilation, pad_l, pad_r),
            "pooling creation");
    return finish_single(op, &desc, "pooling creation", DNNL_ARG_SRC);
  }

  // Creates the primitive of `desc` with `op`'s post-ops from step `first`
  // on, its output, and the args (src, [src1], dst).
  ErrorInfo finish_single(const DnnParsedOp& op, const void* desc, const char* what, int src_arg,
                          std::uint32_t first = 0) {
    dnnl_primitive_attr_t attr = nullptr;
    DNN_TRY(make_attr(op, first, false, &attr), what);
    const dnnl_status_t s = dnnl_primitive_desc_create(
        &st_->pd, static_cast<const_dnnl_op_desc_t>(desc), attr, d_->engine, nullptr);
    dnnl_primitive_attr_destroy(attr);
    DNN_TRY(s, what);
    if (ErrorInfo e = output_from_pd(); e.code != Error::kOk) return e;
    arg(src_arg, d_->mems[op.operands[0]]);
    arg(DNNL_ARG_DST, d_->mems[out_]);
    return create_primitive(what);
  }

  ErrorInfo eltwise(const DnnParsedOp& op) {
    dnnl_eltwise_desc_t desc;
    DNN_TRY(dnnl_eltwise_forward_desc_init(&desc, dnnl_forward_inference,
                                           eltwise_alg(op.ints[op.first_step]),
                                           &d_->mds[op.operands[0]], op.floats[0], op.floats[1]),
            "eltwise creation");
    const ErrorInfo e = finish_single(op, &desc, "eltwise creation", DNNL_ARG_SRC, op.num_steps);
    if (e.code != Error::kOk) return e;
    st_->step_args[0] = {DNNL_ARG_SRC, d_->mems[out_]};
    st_->step_args[1] = {DNNL_ARG_DST, d_->mems[out_]};
    for (std::uint32_t k = 1; k < op.num_steps; ++k) {
      dnnl_eltwise_desc_t step;
      DNN_TRY(dnnl_eltwise_forward_desc_init(
                  &step, dnnl_forward_inference, eltwise_alg(op.ints[op.first_step + k]),
                  &d_->mds[out_], op.floats[2 * k], op.floats[2 * k + 1]),
              "eltwise creation");
      dnnl_primitive_desc_t pd = nullptr;
      DNN_TRY(dnnl_primitive_desc_create(&pd, &step, nullptr, d_->engine, nullptr),
              "eltwise creation");
      const dnnl_status_t s = dnnl_primitive_create(&st_->steps[st_->num_steps], pd);
      dnnl_primitive_desc_destroy(pd);
      DNN_TRY(s, "eltwise creation");
      ++st_->num_steps;
    }
    return kOk;
  }

  ErrorInfo softmax(const DnnParsedOp& op) {
    if (!is_plain(*d_, op.operands[0])) {
      return make_error(Error::kCorruptData, "onednn program: softmax input not in plain order");
    }
    dnnl_softmax_desc_t desc;
    DNN_TRY(dnnl_softmax_forward_desc_init(&desc, dnnl_forward_inference, &d_->mds[op.operands[0]],
                                           static_cast<int>(op.ints[0])),
            "softmax creation");
    return finish_single(op, &desc, "softmax creation", DNNL_ARG_SRC);
  }

  ErrorInfo layer_norm(const DnnParsedOp& op) {
    if (!is_plain(*d_, op.operands[0])) {
      return make_error(Error::kCorruptData, "onednn program: layer norm input not in plain order");
    }
    dnnl_layer_normalization_desc_t desc;
    DNN_TRY(dnnl_layer_normalization_forward_desc_init(
                &desc, dnnl_forward_inference, &d_->mds[op.operands[0]], nullptr, op.floats[0],
                dnnl_use_scale | dnnl_use_shift),
            "layer norm creation");
    arg(DNNL_ARG_SCALE, d_->mems[op.operands[1]]);
    arg(DNNL_ARG_SHIFT, d_->mems[op.operands[2]]);
    return finish_single(op, &desc, "layer norm creation", DNNL_ARG_SRC);
  }

  ErrorInfo binary(const DnnParsedOp& op) {
    const DnnParsedProgram& p = *d_->program;
    const std::uint32_t a = op.operands[0], b = op.operands[1];
    const DnnSlot& x = p.slots[a];
    const DnnSlot& y = p.slots[b];
    dnnl_memory_desc_t src1_md = d_->mds[b];
    dnnl_memory_t src1 = d_->mems[b];
    bool same = x.rank == y.rank;
    for (std::size_t i = 0; same && i < x.rank; ++i) same = x.dims[i] == y.dims[i];
    std::int64_t dims[kDnnMaxRank] = {};  // y's, with x's rank
    if (!same) {                          // broadcast: y's plain bytes seen with x's rank
      if (!is_plain(*d_, b)) {
        return make_error(Error::kCorruptData, "onednn program: broadcast operand not plain");
      }
      const std::size_t lead = x.rank - y.rank;
      for (std::size_t i = 0; i < x.rank; ++i) dims[i] = i < lead ? 1 : y.dims[i - lead];
      DNN_TRY(plain_md(&src1_md, x.rank, dims), "binary descriptor");
    }
    DNN_TRY(binary_pd(op, d_->mds[a], src1_md, &st_->pd), "binary creation");
    if (!same && on_reference_kernel(st_->pd)) {
      // oneDNN's reference kernel takes about 100 ns an element: run the
      // same bytes another way where one fits.
      const bool plain = is_plain(*d_, a);
      const std::int64_t block = plain ? 0 : channel_block_of(op, dims);
      if (plain || block != 0) {
        dnnl_primitive_desc_destroy(st_->pd);
        st_->pd = nullptr;
        if (plain) return merged_broadcast(op, dims);
        st_->channel_block = block;
        return define_output(d_->mds[a]);
      }
    }
    if (!same) {
      if (ErrorInfo e = own(src1_md, d_->buffers[b], &src1); e.code != Error::kOk) return e;
    }
    if (ErrorInfo e = output_from_pd(); e.code != Error::kOk) return e;
    arg(DNNL_ARG_SRC_0, d_->mems[a]);
    arg(DNNL_ARG_SRC_1, src1);
    arg(DNNL_ARG_DST, d_->mems[out_]);
    return create_primitive("binary creation");
  }

  // The primitive descriptor of binary `op` on `x_md` and `y_md` (the
  // output like x), with the op's post-ops.
  dnnl_status_t binary_pd(const DnnParsedOp& op, const dnnl_memory_desc_t& x_md,
                          const dnnl_memory_desc_t& y_md, dnnl_primitive_desc_t* pd) const {
    dnnl_binary_desc_t desc;
    dnnl_primitive_attr_t attr = nullptr;
    dnnl_status_t s = dnnl_binary_desc_init(&desc, binary_alg(op.ints[0]), &x_md, &y_md, &x_md);
    if (s == dnnl_success) s = make_attr(op, 0, false, &attr);
    if (s == dnnl_success) s = dnnl_primitive_desc_create(pd, &desc, attr, d_->engine, nullptr);
    if (attr != nullptr) dnnl_primitive_attr_destroy(attr);
    return s;
  }

  // Whether oneDNN chose its reference kernel for `pd`.
  static bool on_reference_kernel(const_dnnl_primitive_desc_t pd) {
    const char* impl = nullptr;
    return dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success &&
           impl != nullptr && std::string_view(impl).starts_with("ref");
  }

  // The channel block (8 or 16) of a binary `op` our kernel runs instead
  // of oneDNN's reference one (blocked_channel_binary.h): x in aBcd8b or
  // aBcd16b, y (`y_dims`, x's rank) one value per image and channel, and
  // nothing fused after it. 0 otherwise.
  std::int64_t channel_block_of(const DnnParsedOp& op, const std::int64_t* y_dims) const {
    const DnnSlot& x = d_->program->slots[op.operands[0]];
    if (x.rank != 4 || op.num_steps != 0 || y_dims[0] != x.dims[0] || y_dims[1] != x.dims[1] ||
        y_dims[2] != 1 || y_dims[3] != 1) {
      return 0;
    }
    const dnnl_dims_t dims = {x.dims[0], x.dims[1], x.dims[2], x.dims[3]};
    for (const auto& [tag, block] : {std::pair{dnnl_aBcd8b, 8}, std::pair{dnnl_aBcd16b, 16}}) {
      dnnl_memory_desc_t md;
      if (dnnl_memory_desc_init_by_tag(&md, 4, dims, dnnl_f32, tag) == dnnl_success &&
          dnnl_memory_desc_equal(&md, &d_->mds[op.operands[0]]) != 0) {
        return block;
      }
    }
    return 0;
  }

  // A broadcast of plain operands, x op y with y's dims `y_dims` (x's
  // rank), that oneDNN would run on its reference kernel, run on the
  // fewest dims the portable binary kernels walk (broadcast_walk) instead:
  // the same bytes, which oneDNN 2.6 runs on its jit kernel (swin_t's window-mask add,
  // [1,64,3,49,49] + [1,64,1,49,49], took 44 ms on the reference one). The output keeps x's plain
  // descriptor for its readers.
  ErrorInfo merged_broadcast(const DnnParsedOp& op, const std::int64_t* y_dims) {
    const DnnSlot& x = d_->program->slots[op.operands[0]];
    const Span<const std::int64_t> x_dims(x.dims, x.rank);
    const Result<runtime::kernels::Dims> out = runtime::kernels::make_dims(x_dims);
    if (!out.ok()) return make_error(Error::kCorruptData, "onednn program: binary shape");
    const runtime::kernels::BroadcastWalk walk =
        runtime::kernels::broadcast_walk(*out, x_dims, Span<const std::int64_t>(y_dims, x.rank));
    const int rank = static_cast<int>(walk.rank);
    std::int64_t xm[kDnnMaxRank], ym[kDnnMaxRank];
    for (int i = 0; i < rank; ++i) {
      xm[i] = walk.size[i];
      ym[i] = walk.b_stride[i] == 0 ? 1 : walk.size[i];
    }
    dnnl_memory_desc_t x_md, y_md;
    DNN_TRY(plain_md(&x_md, rank, xm), "binary descriptor");
    DNN_TRY(plain_md(&y_md, rank, ym), "binary descriptor");
    DNN_TRY(binary_pd(op, x_md, y_md, &st_->pd), "binary creation");
    if (ErrorInfo e = define_output(d_->mds[op.operands[0]]); e.code != Error::kOk) return e;
    dnnl_memory_t src0 = nullptr, src1 = nullptr, dst = nullptr;
    if (ErrorInfo e = own(x_md, d_->buffers[op.operands[0]], &src0); e.code != Error::kOk) return e;
    if (ErrorInfo e = own(y_md, d_->buffers[op.operands[1]], &src1); e.code != Error::kOk) return e;
    if (ErrorInfo e = own(x_md, d_->buffers[out_], &dst); e.code != Error::kOk) return e;
    arg(DNNL_ARG_SRC_0, src0);
    arg(DNNL_ARG_SRC_1, src1);
    arg(DNNL_ARG_DST, dst);
    return create_primitive("binary creation");
  }

  // Whether `op` concatenates NHWC inputs over channels with nothing
  // fused after it: our kernel runs it (oneDNN 2.6's is 1.4-2.1x slower
  // there, nhwc_concat.h).
  bool nhwc_channel_concat(const DnnParsedOp& op) const {
    const DnnSlot& y = d_->program->slots[out_];
    if (y.rank != 4 || op.ints[0] != 1 || op.num_steps != 0) return false;
    for (std::uint32_t k = 0; k < op.num_operands; ++k) {
      const DnnSlot& x = d_->program->slots[op.operands[k]];
      dnnl_memory_desc_t nhwc;
      if (x.rank != 4 || nhwc_md(&nhwc, x.dims) != dnnl_success ||
          dnnl_memory_desc_equal(&nhwc, &d_->mds[op.operands[k]]) == 0) {
        return false;
      }
    }
    return true;
  }

  ErrorInfo concat(const DnnParsedOp& op) {
    if (nhwc_channel_concat(op)) {
      st_->nhwc_concat = true;
      dnnl_memory_desc_t nhwc;
      DNN_TRY(nhwc_md(&nhwc, d_->program->slots[out_].dims), "concat descriptor");
      return define_output(nhwc);
    }
    auto* srcs = memory->allocate_array<dnnl_memory_desc_t>(op.num_operands);
    if (srcs == nullptr) return oom();
    bool all_plain = true;
    for (std::uint32_t k = 0; k < op.num_operands; ++k) {
      srcs[k] = d_->mds[op.operands[k]];
      all_plain &= is_plain(*d_, op.operands[k]);
    }
    const DnnSlot& y = d_->program->slots[out_];
    dnnl_memory_desc_t dst_md;
    DNN_TRY(plain_md(&dst_md, y.rank, y.dims), "concat descriptor");
    dnnl_primitive_attr_t attr = nullptr;
    DNN_TRY(make_attr(op, 0, false, &attr), "concat attributes");
    const dnnl_status_t s = dnnl_concat_primitive_desc_create(
        &st_->pd, all_plain ? &dst_md : nullptr, static_cast<int>(op.num_operands),
        static_cast<int>(op.ints[0]), srcs, attr, d_->engine);
    dnnl_primitive_attr_destroy(attr);
    DNN_TRY(s, "concat creation");
    if (ErrorInfo e = output_from_pd(); e.code != Error::kOk) return e;
    for (std::uint32_t k = 0; k < op.num_operands; ++k) {
      arg(DNNL_ARG_MULTIPLE_SRC + static_cast<int>(k), d_->mems[op.operands[k]]);
    }
    arg(DNNL_ARG_DST, d_->mems[out_]);
    return create_primitive("concat creation");
  }

  // kQuantize (f32 -> s8/u8) and kDequantize (s8/u8 -> f32): one reorder
  // into a plain output with the scale and zero point as attributes.
  ErrorInfo quantize(const DnnParsedOp& op) {
    const DnnSlot& x = d_->program->slots[op.operands[0]];
    const DnnSlot& y = d_->program->slots[out_];
    const bool to_int8 = op.kind == DnnOpKind::kQuantize;
    dnnl_memory_desc_t dst_md;
    DNN_TRY(plain_md(&dst_md, y), "quantize descriptor");
    dnnl_primitive_attr_t attr = nullptr;
    DNN_TRY(dnnl_primitive_attr_create(&attr), "quantize attributes");
    const float scale = to_int8 ? 1.f / y.scale : x.scale;
    dnnl_status_t s = dnnl_primitive_attr_set_output_scales(attr, 1, 0, &scale);
    const std::int32_t zero_point = to_int8 ? y.zero_point : x.zero_point;
    if (s == dnnl_success && zero_point != 0) {
      s = dnnl_primitive_attr_set_zero_points(attr, to_int8 ? DNNL_ARG_DST : DNNL_ARG_SRC, 1, 0,
                                              &zero_point);
    }
    if (s == dnnl_success) {
      s = dnnl_reorder_primitive_desc_create(&st_->pd, &d_->mds[op.operands[0]], d_->engine,
                                             &dst_md, d_->engine, attr);
    }
    dnnl_primitive_attr_destroy(attr);
    DNN_TRY(s, to_int8 ? "quantize creation" : "dequantize creation");
    if (ErrorInfo e = output_from_pd(); e.code != Error::kOk) return e;
    arg(DNNL_ARG_FROM, d_->mems[op.operands[0]]);
    arg(DNNL_ARG_TO, d_->mems[out_]);
    return create_primitive("quantize creation");
  }

  // kQBinary on our kernel (quantized.h's qlinear_add / qlinear_mul):
  // elementwise over the bytes of a's memory format, so b is reordered into
  // that format first when its producer chose another.
  ErrorInfo qbinary(const DnnParsedOp& op) {
    const std::uint32_t a = op.operands[0], b = op.operands[1];
    if (ErrorInfo e = define_output(d_->mds[a]); e.code != Error::kOk) return e;
    st_->qbinary_elements = static_cast<std::int64_t>(dnnl_memory_desc_get_size(&d_->mds[a]) /
                                                      dnn_type_size(d_->program->slots[a].type));
    st_->qbinary_b = d_->buffers[b];
    dnnl_memory_desc_t like_a = d_->mds[a];
    like_a.data_type = dnnl_type(d_->program->slots[b].type);
    if (dnnl_memory_desc_equal(&like_a, &d_->mds[b]) != 0) return kOk;
    return copy_before_run(b, like_a, &st_->qbinary_b);
  }

  // Slot `from` reordered into a buffer of format `md` before each run
  // (inside the operator's event; st_->src_reorder); `*data` becomes that
  // buffer.
  template <typename T>
  ErrorInfo copy_before_run(std::uint32_t from, const dnnl_memory_desc_t& md, T** data) {
    void* buffer = memory->allocate(dnnl_memory_desc_get_size(&md), kBufferAlignment);
    if (buffer == nullptr) return oom();
    dnnl_memory_t copy = nullptr;
    if (ErrorInfo e = own(md, buffer, &copy); e.code != Error::kOk) return e;
    dnnl_primitive_desc_t rpd = nullptr;
    DNN_TRY(dnnl_reorder_primitive_desc_create(&rpd, &d_->mds[from], d_->engine, &md, d_->engine,
                                               nullptr),
            "operand reorder creation");
    const dnnl_status_t s = dnnl_primitive_create(&st_->src_reorder, rpd);
    dnnl_primitive_desc_destroy(rpd);
    DNN_TRY(s, "operand reorder creation");
    st_->src_args[0] = {DNNL_ARG_FROM, d_->mems[from]};
    st_->src_args[1] = {DNNL_ARG_TO, copy};
    *data = buffer;
    return kOk;
  }

  // kQClamp on our kernels (quantized_clamp, apply_quant_lut): element-wise
  // over the bytes of the source's memory format, which the output keeps.
  ErrorInfo qclamp(const DnnParsedOp& op) {
    const DnnParsedProgram& p = *d_->program;
    const std::uint32_t x = op.operands[0];
    dnnl_memory_desc_t md = d_->mds[x];
    md.data_type = dnnl_type(p.slots[out_].type);
    if (ErrorInfo e = define_output(md); e.code != Error::kOk) return e;
    st_->qbinary_elements = static_cast<std::int64_t>(dnnl_memory_desc_get_size(&md));
    if (op.num_operands == 2) st_->qclamp_lut = p.constant_data[op.operands[1] - p.num_inputs];
    return kOk;
  }

  // kQGlobalAvgPool on our kernel (qlinear_global_avg_pool2d, NCHW): a
  // source in another format is reordered into plain order first, inside
  // the operator's event. The output [N, C, 1, 1] is plain.
  ErrorInfo qglobal_avg_pool(const DnnParsedOp& op) {
    const DnnParsedProgram& p = *d_->program;
    const std::uint32_t x = op.operands[0];
    dnnl_memory_desc_t out_md;
    DNN_TRY(plain_md(&out_md, p.slots[out_]), "pooling descriptor");
    if (ErrorInfo e = define_output(out_md); e.code != Error::kOk) return e;
    st_->qpool_src = d_->buffers[x];
    if (is_plain(*d_, x)) return kOk;
    dnnl_memory_desc_t plain;
    DNN_TRY(plain_md(&plain, p.slots[x]), "pooling descriptor");
    return copy_before_run(x, plain, &st_->qpool_src);
  }

  // Every step of every direction of a recurrent layer, into a plain
  // output (rnn_layer.h).
  ErrorInfo rnn(const DnnParsedOp& op) {
    dnnl_memory_desc_t md;
    DNN_TRY(plain_md(&md, d_->program->slots[out_]), "rnn output descriptor");
    if (ErrorInfo e = define_output(md); e.code != Error::kOk) return e;
    const char* what = "rnn creation";
    DNN_TRY(rnn_layer_create(*d_->program, op, d_->buffers, d_->buffers[out_], d_->engine,
                             d_->stream, memory, &st_->rnn, &what),
            what);
    return kOk;
  }

  // A layer's final state, copied out of it (the parser checked that
  // operand 0 is a kRnn's output).
  ErrorInfo rnn_state(const DnnParsedOp& op) {
    dnnl_memory_desc_t md;
    DNN_TRY(plain_md(&md, d_->program->slots[out_]), "rnn state descriptor");
    if (ErrorInfo e = define_output(md); e.code != Error::kOk) return e;
    st_->rnn_state_of = d_->ops[op.operands[0] - d_->program->first_op_slot()].rnn;
    st_->rnn_state = op.ints[0];
    return kOk;
  }

  ErrorInfo reorder(const DnnParsedOp& op, std::uint32_t index) {
    const DnnParsedProgram& p = *d_->program;
    const DnnSlot& y = p.slots[out_];
    dnnl_memory_desc_t dst_md;
    DNN_TRY(plain_md(&dst_md, y), "reorder descriptor");
    if (op.ints[0] == static_cast<std::int64_t>(DnnReorderTarget::kConsumer)) {
      // The format the first convolution reading this slot prefers.
      for (std::uint32_t j = index + 1; j < p.num_ops; ++j) {
        const DnnParsedOp& reader = p.ops[j];
        if ((reader.kind != DnnOpKind::kConvolution && reader.kind != DnnOpKind::kQConvolution) ||
            reader.operands[0] != out_) {
          continue;
        }
        dnnl_primitive_desc_t pd = winograd_pd(reader);
        if (pd == nullptr) DNN_TRY(conv_pd(*d_, reader, nullptr, &pd), "convolution creation");
        dst_md = *dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
        dnnl_primitive_desc_destroy(pd);
        break;
      }
    }
    dnnl_primitive_attr_t attr = nullptr;
    DNN_TRY(make_attr(op, 0, false, &attr), "reorder attributes");
    const dnnl_status_t s = dnnl_reorder_primitive_desc_create(
        &st_->pd, &d_->mds[op.operands[0]], d_->engine, &dst_md, d_->engine, attr);
    dnnl_primitive_attr_destroy(attr);
    DNN_TRY(s, "reorder creation");
    if (ErrorInfo e = output_from_pd(); e.code != Error::kOk) return e;
    arg(DNNL_ARG_FROM, d_->mems[op.operands[0]]);
    arg(DNNL_ARG_TO, d_->mems[out_]);
    return create_primitive("reorder creation");
  }

  // The output is its input's plain bytes seen with its own dims (a
  // reshape; a transpose that moves only dims of size 1): it views the
  // input's buffer, and running it does nothing. A perturbed operator
  // (numeric debugging's deliberate fault) keeps a copy of its own, so
  // that the fault does not reach the input's other readers.
  bool can_view(std::uint32_t index) const { return !d_->perturbed[index]; }

  ErrorInfo plain_view(std::uint32_t from) {
    const DnnSlot& y = d_->program->slots[out_];
    dnnl_memory_desc_t md;
    DNN_TRY(plain_md(&md, y), "view descriptor");
    st_->view = true;
    return share_buffer(from, md);
  }

  // A reshape of plain data: a view (62 copies took 4.4 ms of vit_b_16's
  // 264 before), or a copy when perturbed.
  ErrorInfo reshape(const DnnParsedOp& op, std::uint32_t index) {
    const std::uint32_t from = op.operands[0];
    if (!is_plain(*d_, from)) {
      return make_error(Error::kCorruptData, "onednn program: reshape input not in plain order");
    }
    if (can_view(index)) return plain_view(from);
    const DnnSlot& y = d_->program->slots[out_];
    dnnl_memory_desc_t md;
    DNN_TRY(plain_md(&md, y), "reshape descriptor");
    return define_output(md);
  }

  DnnDelegate* d_;
  // Named like init's allocator so DNN_TRY reads the same in both.
  MemoryAllocator* memory;
  std::uint32_t out_ = 0;
  OpState* st_ = nullptr;
};

void release(DnnDelegate* d) {
  for (std::uint32_t i = 0; i < d->num_created; ++i) {
    OpState& st = d->ops[i];
    if (st.pd != nullptr) dnnl_primitive_desc_destroy(st.pd);
    if (st.primitive != nullptr) dnnl_primitive_destroy(st.primitive);
    if (st.sum_reorder != nullptr) dnnl_primitive_destroy(st.sum_reorder);
    if (st.src_reorder != nullptr) dnnl_primitive_destroy(st.src_reorder);
    if (st.log_reorder != nullptr) dnnl_primitive_destroy(st.log_reorder);
    if (st.rnn != nullptr) rnn_layer_destroy(st.rnn);
    for (std::uint32_t k = 0; k < st.num_steps; ++k) dnnl_primitive_destroy(st.steps[k]);
    for (int k = 0; k < st.num_owned; ++k) dnnl_memory_destroy(st.owned[k]);
    st = OpState{};
  }
  d->num_created = 0;
  if (d->mems != nullptr) {
    for (std::uint32_t s = 0; s < d->program->num_slots(); ++s) {
      if (d->mems[s] != nullptr) dnnl_memory_destroy(d->mems[s]);
      d->mems[s] = nullptr;
    }
  }
}

// Binds one scratchpad shared by every primitive (they run one at a time)
// and the plain copies of blocked outputs for logging; frees the
// primitive descriptors.
ErrorInfo bind_shared_buffers(DnnDelegate* d, MemoryAllocator* memory) {
  const DnnParsedProgram& p = *d->program;
  std::size_t scratch_bytes = 0, log_bytes = 0;
  for (std::uint32_t i = 0; i < p.num_ops; ++i) {
    const OpState& st = d->ops[i];
    if (st.pd != nullptr) {
      const std::size_t bytes = dnnl_memory_desc_get_size(
          dnnl_primitive_desc_query_md(st.pd, dnnl_query_scratchpad_md, 0));
      if (bytes > scratch_bytes) scratch_bytes = bytes;
    }
    const std::uint32_t slot = p.first_op_slot() + i;
    if (!is_plain(*d, slot)) {
      const std::size_t bytes = p.slots[slot].bytes();
      if (bytes > log_bytes) log_bytes = bytes;
    }
  }
  void* scratch = scratch_bytes == 0 ? nullptr : memory->allocate(scratch_bytes, kBufferAlignment);
  if (log_bytes > 0)
    d->log_buffer = static_cast<float*>(memory->allocate(log_bytes, kBufferAlignment));
  if ((scratch_bytes > 0 && scratch == nullptr) || (log_bytes > 0 && d->log_buffer == nullptr)) {
    return make_error(Error::kMemoryAllocationFailed, "onednn: out of memory for scratch");
  }
  for (std::uint32_t i = 0; i < p.num_ops; ++i) {
    OpState& st = d->ops[i];
    const std::uint32_t slot = p.first_op_slot() + i;
    if (st.pd != nullptr) {
      const dnnl_memory_desc_t* md =
          dnnl_primitive_desc_query_md(st.pd, dnnl_query_scratchpad_md, 0);
      if (dnnl_memory_desc_get_size(md) > 0) {
        if (st.num_owned == kMaxOwned)
          return make_error(Error::kInternal, "onednn: too many memories");
        dnnl_memory_t mem = nullptr;
        DNN_TRY(dnnl_memory_create(&mem, md, d->engine, scratch), "scratchpad creation");
        st.owned[st.num_owned++] = mem;
        st.args[st.num_args++] = {DNNL_ARG_SCRATCHPAD, mem};
      }
      dnnl_primitive_desc_destroy(st.pd);
      st.pd = nullptr;
    }
    if (!is_plain(*d, slot)) {
      dnnl_memory_desc_t plain;
      DNN_TRY(plain_md(&plain, p.slots[slot]), "log descriptor");
      if (st.num_owned == kMaxOwned)
        return make_error(Error::kInternal, "onednn: too many memories");
      dnnl_memory_t mem = nullptr;
      DNN_TRY(dnnl_memory_create(&mem, &plain, d->engine, d->log_buffer), "log memory creation");
      st.owned[st.num_owned++] = mem;
      dnnl_primitive_desc_t rpd = nullptr;
      DNN_TRY(dnnl_reorder_primitive_desc_create(&rpd, &d->mds[slot], d->engine, &plain, d->engine,
                                                 nullptr),
              "log reorder creation");
      const dnnl_status_t s = dnnl_primitive_create(&st.log_reorder, rpd);
      dnnl_primitive_desc_destroy(rpd);
      DNN_TRY(s, "log reorder creation");
      st.log_args[0] = {DNNL_ARG_FROM, d->mems[slot]};
      st.log_args[1] = {DNNL_ARG_TO, mem};
    }
  }
  return kOk;
}

bool matches(const Tensor& t, const DnnSlot& s) {
  if (t.dtype != scalar_type(s.type) || t.sizes.size() != s.rank || t.data == nullptr ||
      t.nbytes != s.bytes()) {
    return false;
  }
  for (std::size_t k = 0; k < s.rank; ++k) {
    if (t.sizes[k] != s.dims[k]) return false;
  }
  return true;
}

// Op `i`, a concatenation over NHWC channels, on our kernel.
void run_nhwc_concat(const DnnParsedProgram& p, std::uint32_t i, float* const* buffers) {
  const DnnParsedOp& op = p.ops[i];
  const float* inputs[kDnnMaxOperands];
  std::int64_t channels[kDnnMaxOperands];
  for (std::uint32_t k = 0; k < op.num_operands; ++k) {
    inputs[k] = buffers[op.operands[k]];
    channels[k] = p.slots[op.operands[k]].dims[1];
  }
  const DnnSlot& y = p.slots[p.first_op_slot() + i];
  nhwc_concat(y.dims[0] * y.dims[2] * y.dims[3], op.num_operands, inputs, channels,
              buffers[p.first_op_slot() + i]);
}

Error run_op(DnnDelegate& d, std::uint32_t i) {
  const OpState& st = d.ops[i];
  const DnnParsedProgram& p = *d.program;
  if (st.src_reorder != nullptr &&
      dnnl_primitive_execute(st.src_reorder, d.stream, 2, st.src_args) != dnnl_success) {
    return Error::kInternal;
  }
  if (st.sum_reorder != nullptr &&
      dnnl_primitive_execute(st.sum_reorder, d.stream, 2, st.sum_args) != dnnl_success) {
    return Error::kInternal;
  }
  if (st.view) return Error::kOk;
  if (st.rnn != nullptr) {
    return rnn_layer_run(*st.rnn, d.stream) == dnnl_success ? Error::kOk : Error::kInternal;
  }
  if (st.rnn_state_of != nullptr) {
    rnn_layer_copy_state(*st.rnn_state_of, st.rnn_state, d.buffers[p.first_op_slot() + i]);
    return Error::kOk;
  }
  if (st.nhwc_pool != nullptr) {
    nhwc_max_pool(*st.nhwc_pool, d.buffers[p.ops[i].operands[0]], d.buffers[p.first_op_slot() + i]);
    return Error::kOk;
  }
  if (st.nhwc_concat) {
    run_nhwc_concat(p, i, d.buffers);
    return Error::kOk;
  }
  if (p.ops[i].kind == DnnOpKind::kQBinary) {
    const DnnParsedOp& op = p.ops[i];
    const DnnSlot& a = p.slots[op.operands[0]];
    const DnnSlot& b = p.slots[op.operands[1]];
    const DnnSlot& y = p.slots[p.first_op_slot() + i];
    const runtime::kernels::QuantInput qa{d.buffers[op.operands[0]], scalar_type(a.type), a.scale,
                                          a.zero_point};
    const runtime::kernels::QuantInput qb{st.qbinary_b, scalar_type(b.type), b.scale, b.zero_point};
    const runtime::kernels::QuantOutput qy{
        d.buffers[p.first_op_slot() + i],
        scalar_type(y.type),
        y.scale,
        y.zero_point,
        {static_cast<std::int32_t>(op.ints[1]), static_cast<std::int32_t>(op.ints[2])}};
    if (op.ints[0] == static_cast<std::int64_t>(DnnBinary::kAdd) && a.type == b.type &&
        a.type == y.type) {
      // qlinear_add's arithmetic, vectorized and threaded (quantized_add.h).
      const QuantizedAddParams params{.is_signed = y.type == DnnDataType::kS8,
                                      .a_zero_point = a.zero_point,
                                      .b_zero_point = b.zero_point,
                                      .ratio_a = a.scale / y.scale,
                                      .ratio_b = b.scale / y.scale,
                                      .y_zero_point = y.zero_point,
                                      .y_min = qy.range.min,
                                      .y_max = qy.range.max};
      quantized_add(params, qa.data, qb.data, qy.data, st.qbinary_elements);
      return Error::kOk;
    }
    const Span<const std::int64_t> shape(&st.qbinary_elements, 1);
    const ErrorInfo e = op.ints[0] == static_cast<std::int64_t>(DnnBinary::kAdd)
                            ? runtime::kernels::qlinear_add(qa, shape, qb, shape, qy)
                            : runtime::kernels::qlinear_mul(qa, shape, qb, shape, qy);
    return e.code;
  }
  if (p.ops[i].kind == DnnOpKind::kQClamp) {
    const DnnParsedOp& op = p.ops[i];
    const void* x = d.buffers[op.operands[0]];
    void* y = d.buffers[p.first_op_slot() + i];
    if (st.qclamp_lut != nullptr) {
      return runtime::kernels::apply_quant_lut(x, st.qbinary_elements,
                                               Span<const std::uint8_t>(st.qclamp_lut, 256), y)
          .code;
    }
    const runtime::kernels::QuantRange range{static_cast<std::int32_t>(op.ints[0]),
                                             static_cast<std::int32_t>(op.ints[1])};
    return runtime::kernels::quantized_clamp(x, scalar_type(p.slots[op.operands[0]].type),
                                             st.qbinary_elements, range, y)
        .code;
  }
  if (p.ops[i].kind == DnnOpKind::kQGlobalAvgPool) {
    const DnnParsedOp& op = p.ops[i];
    const DnnSlot& x = p.slots[op.operands[0]];
    const DnnSlot& y = p.slots[p.first_op_slot() + i];
    const runtime::kernels::QuantInput qx{st.qpool_src, scalar_type(x.type), x.scale, x.zero_point};
    const runtime::kernels::QuantOutput qy{d.buffers[p.first_op_slot() + i], scalar_type(y.type),
                                           y.scale, y.zero_point};
    const runtime::kernels::Shape4 shape{x.dims[0], x.dims[1], x.dims[2], x.dims[3]};
    return runtime::kernels::qlinear_global_avg_pool2d(qx, shape, qy).code;
  }
  if (st.channel_block != 0) {
    const DnnParsedOp& op = p.ops[i];
    blocked_channel_binary(static_cast<DnnBinary>(op.ints[0]), p.slots[op.operands[0]].dims,
                           st.channel_block, d.buffers[op.operands[0]], d.buffers[op.operands[1]],
                           d.buffers[p.first_op_slot() + i]);
    return Error::kOk;
  }
  if (st.primitive == nullptr) {  // reshape: plain bytes, another shape
    const std::uint32_t slot = p.first_op_slot() + i;
    std::memcpy(d.buffers[slot], d.buffers[p.ops[i].operands[0]], p.slots[slot].bytes());
    return Error::kOk;
  }
  if (dnnl_primitive_execute(st.primitive, d.stream, st.num_args, st.args) != dnnl_success) {
    return Error::kInternal;
  }
  for (std::uint32_t k = 0; k < st.num_steps; ++k) {
    if (dnnl_primitive_execute(st.steps[k], d.stream, 2, st.step_args) != dnnl_success) {
      return Error::kInternal;
    }
  }
  if (dnnl_stream_wait(d.stream) != dnnl_success) return Error::kInternal;
  return Error::kOk;
}

// Whether it tried (then it took time of its own between operators).
bool log_output(EventTracer* tracer, DnnDelegate& d, std::uint32_t i) {
  if (!runtime::event_tracer_records_delegate_outputs(tracer)) return false;
  const DnnParsedProgram& p = *d.program;
  const DnnParsedOp& op = p.ops[i];
  // A layer's y_h and y_c are logged with y's source op, whose reference
  // is its output 0, y: the Inspector compares a source op's last logged
  // output, so only y is logged.
  if (op.kind == DnnOpKind::kRnnState) return false;
  const std::uint32_t slot = p.first_op_slot() + i;
  const float* data = d.buffers[slot];
  const OpState& st = d.ops[i];
  if (st.log_reorder != nullptr) {
    if (dnnl_primitive_execute(st.log_reorder, d.stream, 2, st.log_args) != dnnl_success ||
        dnnl_stream_wait(d.stream) != dnnl_success) {
      return true;  // the debug copy failed: skip it, the run goes on
    }
    data = d.log_buffer;
  }
  const DnnSlot& s = p.slots[slot];
  (void)runtime::event_tracer_log_output_delegate(
      tracer, op.name, op.int_id,
      TensorView{scalar_type(s.type), Span<const std::int64_t>(s.dims, s.rank), {}, data});
  return true;
}

}  // namespace

bool OnednnBackendRuntime::ensure_engine() {
  if (engine_ != nullptr) return true;
  dnnl_engine_t engine = nullptr;
  dnnl_stream_t stream = nullptr;
  if (dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success) return false;
  if (dnnl_stream_create(&stream, engine, dnnl_stream_default_flags) != dnnl_success) {
    dnnl_engine_destroy(engine);
    return false;
  }
  engine_ = engine;
  stream_ = stream;
  return true;
}

bool OnednnBackendRuntime::is_available() const { return dnnl_engine_get_count(dnnl_cpu) > 0; }

Result<runtime::DelegateHandle*> OnednnBackendRuntime::init(
    runtime::BackendInitContext& context, Span<const std::uint8_t> processed,
    Span<const runtime::CompileSpecView> specs) {
  if (!ensure_engine()) {
    return make_error(Error::kNotSupported, "onednn: cannot create a CPU engine");
  }
  MemoryAllocator* memory = context.allocator();
  Result<runtime::DelegateSpecs> common = runtime::parse_delegate_specs(specs);
  if (!common.ok()) return common.error_info();
  Result<DnnParsedProgram*> program = parse_dnn_program(processed, memory);
  if (!program.ok()) return program.error_info();
  const DnnParsedProgram& p = **program;

  auto* d = memory->allocate_array<DnnDelegate>(1);
  if (d == nullptr) return make_error(Error::kMemoryAllocationFailed, "onednn: out of memory");
  d->program = *program;
  d->engine = static_cast<dnnl_engine_t>(engine_);
  d->stream = static_cast<dnnl_stream_t>(stream_);
  d->mode = log_mode(*common);
  d->threads = threads(*common);
  d->winograd = winograd();
  const std::uint32_t num_slots = p.num_slots();
  d->mds = memory->allocate_array<dnnl_memory_desc_t>(num_slots);
  d->buffers = memory->allocate_array<float*>(num_slots);
  d->buffer_bytes = memory->allocate_array<std::size_t>(num_slots);
  d->mems = memory->allocate_array<dnnl_memory_t>(num_slots);
  d->ops = memory->allocate_array<OpState>(p.num_ops);
  d->perturbed = memory->allocate_array<bool>(p.num_ops);
  d->owner = memory->allocate_array<std::uint32_t>(num_slots);
  if (d->mds == nullptr || d->buffers == nullptr || d->buffer_bytes == nullptr ||
      d->mems == nullptr || d->ops == nullptr || d->perturbed == nullptr || d->owner == nullptr) {
    return make_error(Error::kMemoryAllocationFailed, "onednn: out of memory");
  }
  for (std::uint32_t i = 0; i < p.num_ops; ++i) {
    d->perturbed[i] = common->perturbs(p.ops[i].int_id, p.ops[i].name);
  }
  // Inputs and constants: plain buffers, constants filled once here.
  for (std::uint32_t s = 0; s < p.first_op_slot(); ++s) {
    const DnnSlot& slot = p.slots[s];
    const std::size_t bytes = slot.bytes();
    d->owner[s] = s;
    d->buffer_bytes[s] = bytes;
    d->buffers[s] = static_cast<float*>(memory->allocate(bytes, kBufferAlignment));
    if (d->buffers[s] == nullptr) {
      release(d);
      return make_error(Error::kMemoryAllocationFailed, "onednn: out of memory for tensors");
    }
    if (p.is_constant(s)) std::memcpy(d->buffers[s], p.constant_data[s - p.num_inputs], bytes);
    dnnl_status_t st = plain_md(&d->mds[s], slot);
    if (st == dnnl_success)
      st = dnnl_memory_create(&d->mems[s], &d->mds[s], d->engine, d->buffers[s]);
    if (st != dnnl_success) {
      release(d);
      return dnn_error(memory, "memory creation", st);
    }
  }
  // oneDNN plans each primitive's work split for the thread count in force
  // when it is created: the one execute will use.
  omp_set_num_threads(static_cast<int>(d->threads));
  OpBuilder builder(d, memory);
  for (std::uint32_t i = 0; i < p.num_ops; ++i) {
    d->num_created = i + 1;  // release() cleans up a half-built operator too
    const ErrorInfo e = builder.build(i);
    if (e.code != Error::kOk) {
      release(d);
      return e;
    }
  }
  ErrorInfo e = bind_shared_buffers(d, memory);
  if (e.code == Error::kOk && !d->events.init(*memory, p.num_ops)) {
    e = make_error(Error::kMemoryAllocationFailed, "onednn: out of memory for the event table");
  }
  for (std::uint32_t i = 0; e.code == Error::kOk && i < p.num_ops; ++i) {
    d->events.set(i, p.ops[i].name, p.ops[i].int_id, d->ops[i].metadata, d->ops[i].metadata_len);
  }
  for (std::uint32_t i = 0; e.code == Error::kOk && i < p.num_outputs; ++i) {
    if (!is_plain(*d, p.outputs[i])) {
      e = make_error(Error::kCorruptData, "onednn program: a delegate output is not plain");
    }
  }
  if (e.code != Error::kOk) {
    release(d);
    return e;
  }
  return static_cast<runtime::DelegateHandle*>(d);
}

ErrorInfo OnednnBackendRuntime::prepare(runtime::DelegateHandle* handle, Span<Tensor* const> inputs,
                                        Span<Tensor* const> outputs) const {
  const DnnParsedProgram& p = *static_cast<const DnnDelegate*>(handle)->program;
  if (inputs.size() != p.num_inputs || outputs.size() != p.num_outputs) {
    return make_error(Error::kInvalidArgument,
                      "onednn delegate: the call's input or output count differs from the blob's");
  }
  for (std::uint32_t i = 0; i < p.num_inputs; ++i) {
    if (!matches(*inputs[i], p.slots[i])) {
      return make_error(Error::kInvalidArgument,
                        "onednn delegate: an input differs from the blob's input shape");
    }
  }
  for (std::uint32_t i = 0; i < p.num_outputs; ++i) {
    if (!matches(*outputs[i], p.slots[p.outputs[i]])) {
      return make_error(Error::kInvalidArgument,
                        "onednn delegate: an output differs from the blob's output shape");
    }
  }
  return kOk;
}

Error OnednnBackendRuntime::execute(runtime::BackendExecutionContext& context,
                                    runtime::DelegateHandle* handle, Span<Tensor* const> inputs,
                                    Span<Tensor* const> outputs) {
  auto* d = static_cast<DnnDelegate*>(handle);
  const DnnParsedProgram& p = *d->program;
  if (inputs.size() != p.num_inputs || outputs.size() != p.num_outputs) {
    return Error::kInvalidArgument;
  }
  for (std::uint32_t i = 0; i < p.num_inputs; ++i) {
    const Tensor& t = *inputs[i];
    if (!matches(t, p.slots[i])) return Error::kInvalidArgument;
    std::memcpy(d->buffers[i], t.data, t.nbytes);
  }
  omp_set_num_threads(static_cast<int>(d->threads));
  EventTracer* tracer = context.event_tracer();
  backends::OperatorProfiler profiler(d->events, d->mode);
  if (const Error e = profiler.begin(context); e != Error::kOk) return e;
  for (std::uint32_t i = 0; i < p.num_ops; ++i) {
    const Error e = profiler.run(i, [&] { return run_op(*d, i); });
    if (e != Error::kOk) {
      profiler.finish(i);  // what ran is not lost
      return e;
    }
    const std::uint32_t slot = p.first_op_slot() + i;
    if (d->perturbed[i] && p.slots[slot].type == DnnDataType::kF32) {
      // Blocked formats' padding is perturbed too; no reader uses it.
      float* out = d->buffers[slot];
      const std::size_t n = d->buffer_bytes[slot] / sizeof(float);
      for (std::size_t k = 0; k < n; ++k) out[k] += runtime::kPerturbation;
      profiler.interrupt();
    }
    if (log_output(tracer, *d, i)) profiler.interrupt();
  }
  profiler.finish(p.num_ops);
  for (std::uint32_t i = 0; i < p.num_outputs; ++i) {
    const std::uint32_t slot = p.outputs[i];
    Tensor& out = *outputs[i];
    if (!matches(out, p.slots[slot])) return Error::kInvalidArgument;
    std::memcpy(out.data, d->buffers[slot], out.nbytes);
  }
  return Error::kOk;
}

void OnednnBackendRuntime::destroy(runtime::DelegateHandle* handle) {
  if (handle != nullptr) release(static_cast<DnnDelegate*>(handle));
}

OnednnBackendRuntime::~OnednnBackendRuntime() {
  if (stream_ != nullptr) dnnl_stream_destroy(static_cast<dnnl_stream_t>(stream_));
  if (engine_ != nullptr) dnnl_engine_destroy(static_cast<dnnl_engine_t>(engine_));
}

OnednnBackendRuntime& onednn_backend_runtime() {
  static OnednnBackendRuntime backend;
  return backend;
}

Error register_onednn_backend_runtime() {
  if (runtime::find_backend(kOnednnBackendName) == &onednn_backend_runtime()) return Error::kOk;
  return runtime::register_backend(kOnednnBackendName, &onednn_backend_runtime());
}

}  // namespace glassbox::backends::onednn
