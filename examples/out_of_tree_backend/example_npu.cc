// example_npu: a simulated accelerator as a Glassbox backend plug-in, built
// out of tree against an installed Glassbox (docs/backend-authors.md walks
// through it). One file, in the order a vendor writes it:
//
//   1. the blob format both halves agree on (the NPU's "firmware program");
//   2. the AOT half: which ops the NPU takes (partitioner) and preprocess,
//      which compiles a partition into a blob and, with a
//      DelegateMappingBuilder, says which model operators each of the NPU's
//      event identifiers stands for;
//   3. the runtime half: init parses the blob, execute computes real
//      results while the NPU's own cycle counter runs at a declared clock,
//      and the events are logged after the work (post time), as an NPU that
//      keeps a trace buffer would;
//   4. the plug-in entry point Glassbox looks for;
//   5. deferred decoding: with the compile spec trace=deferred the runtime
//      logs its trace buffer whole, once per execution, and the plug-in's
//      decoder expands it into the same per-op events on the host, when
//      inspect/report read the dump.
//
// The NPU runs float conv2d (groups 1), linear, relu and add (same shapes).
// Its cost model: kOpOverheadCycles per op plus one cycle per kMacsPerCycle
// multiply-accumulates; the counter runs at kClockHz. Each op's event
// carries counters (cycles, MACs, DMA bytes: the floats it reads and
// writes), which the Inspector shows as columns of the ops view.

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "glassbox/aot/delegate_mapping_builder.h"
#include "glassbox/aot/ops.h"
#include "glassbox/backends/plugin.h"
#include "glassbox/runtime/backend.h"
#include "glassbox/runtime/delegate_hooks.h"
#include "glassbox/runtime/delegate_raw_trace.h"

namespace example_npu {
namespace {

using glassbox::Error;
using glassbox::Status;
using glassbox::StatusOr;
namespace aot = glassbox::aot;
namespace runtime = glassbox::runtime;

// The name `--backend` takes, of the AOT half and of the runtime half.
constexpr char kName[] = "example_npu";
constexpr std::uint64_t kClockHz = 500'000'000;  // the declared clock
constexpr std::uint64_t kMacsPerCycle = 64;
constexpr std::uint64_t kOpOverheadCycles = 100;
// The compile spec choosing how execute logs: "direct" (one event per op,
// the default) or "deferred" (one raw trace per execution, section 5).
constexpr char kTraceSpecKey[] = "trace";

// ---- 1. The blob ----------------------------------------------------------
// "XNPU", version, then slots (every tensor of the partition: its shape),
// the partition's input and output slots, and the ops. Little-endian, as
// the host; a real NPU format would fix it.
constexpr char kMagic[4] = {'X', 'N', 'P', 'U'};
constexpr std::uint32_t kFormatVersion = 1;
enum class OpKind : std::uint8_t { kConv2d = 1, kLinear = 2, kRelu = 3, kAdd = 4 };

const char* kind_name(OpKind kind) {
  switch (kind) {
    case OpKind::kConv2d: return "conv2d";
    case OpKind::kLinear: return "linear";
    case OpKind::kRelu: return "relu";
    case OpKind::kAdd: return "add";
  }
  return nullptr;  // not an op kind: a corrupt blob
}

struct Writer {
  std::vector<std::uint8_t> bytes;
  template <typename T>
  void put(const T& value) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(&value);
    bytes.insert(bytes.end(), p, p + sizeof(T));
  }
  void put_floats(const std::vector<float>& values) {
    put<std::uint64_t>(values.size());
    for (float v : values) put(v);
  }
};

// Reads with bounds checks: a corrupt blob must fail init, never crash.
struct Reader {
  const std::uint8_t* at;
  const std::uint8_t* end;
  template <typename T>
  bool get(T* value) {
    if (static_cast<std::size_t>(end - at) < sizeof(T)) return false;
    std::memcpy(value, at, sizeof(T));
    at += sizeof(T);
    return true;
  }
  bool get_floats(std::vector<float>* values) {
    std::uint64_t count = 0;
    if (!get(&count) || count > static_cast<std::size_t>(end - at) / sizeof(float)) return false;
    values->resize(count);
    std::memcpy(values->data(), at, count * sizeof(float));
    at += count * sizeof(float);
    return true;
  }
};

// The trace buffer of one execution in deferred mode ("XNTR"): what a real
// NPU's trace unit would write, and what the decoder (section 5) reads.
// Header: magic, version, op count; then one 40-byte entry per op.
constexpr char kTraceMagic[4] = {'X', 'N', 'T', 'R'};
constexpr std::uint32_t kTraceVersion = 1;
struct TraceEntry {
  std::int32_t id;  // the op's identifier (its AOT map entry)
  OpKind kind;
  std::uint8_t reserved[3];
  std::uint64_t start;  // cycles
  std::uint64_t end;
  std::uint64_t macs;
  std::uint64_t dma_bytes;
};
static_assert(sizeof(TraceEntry) == 40);
constexpr std::size_t kTraceHeaderBytes = 12;

// What direct logging attaches to an op's event, and the decoder too.
std::string op_metadata(OpKind kind, std::uint64_t macs) {
  return std::string(kind_name(kind)) + " macs=" + std::to_string(macs);
}

// ---- 2. The AOT half -------------------------------------------------------

bool is_constant(const aot::Graph& graph, aot::ValueId id) {
  const aot::Value* value = graph.find_value(id);
  return value != nullptr && value->kind == aot::ValueKind::kConstant && !value->data.empty();
}

// Why the NPU leaves `node` on the portable kernels, or "" if it takes it.
std::string reason_not_taken(const aot::Graph& graph, const aot::Node& node) {
  for (aot::ValueId out : node.outputs) {
    const aot::Value* value = graph.find_value(out);
    if (value == nullptr || value->dtype != glassbox::ScalarType::kFloat) return "not float";
  }
  if (node.op == aot::op::kConv2d) {
    const auto groups = node.attributes.find("groups");
    if (groups != node.attributes.end() && std::get<std::int64_t>(groups->second) != 1) {
      return "grouped convolution";
    }
    for (std::size_t i = 1; i < node.inputs.size(); ++i) {
      if (!is_constant(graph, node.inputs[i])) return "weights not constant";
    }
    return "";
  }
  if (node.op == aot::op::kLinear) {
    for (std::size_t i = 1; i < node.inputs.size(); ++i) {
      if (!is_constant(graph, node.inputs[i])) return "weights not constant";
    }
    return "";
  }
  if (node.op == aot::op::kRelu) return "";
  if (node.op == aot::op::kAdd) {
    const aot::Value* a = graph.find_value(node.inputs[0]);
    const aot::Value* b = graph.find_value(node.inputs[1]);
    if (a == nullptr || b == nullptr || a->shape != b->shape) return "broadcasting add";
    if (is_constant(graph, node.inputs[0]) || is_constant(graph, node.inputs[1])) {
      return "add of a constant";
    }
    return "";
  }
  return "op not supported by example_npu";
}

class NpuCompiler final : public aot::BackendDetails {
 public:
  std::string name() const override { return kName; }

  StatusOr<aot::PreprocessResult> preprocess(const aot::Graph& graph,
                                             std::span<const aot::CompileSpec> specs) override {
    for (const aot::CompileSpec& spec : specs) {
      if (spec.key == "identifiers" && spec.value_as_string() != "generated") {
        return Status(Error::kNotSupported,
                      "example_npu numbers its event identifiers itself (--ids generated)");
      }
      if (spec.key == kTraceSpecKey && spec.value_as_string() != "direct" &&
          spec.value_as_string() != "deferred") {
        return Status(
            Error::kInvalidArgument,
            "example_npu: compile spec trace=" + spec.value_as_string() + " (direct or deferred)");
      }
    }
    // Slots: the partition's inputs, then each node's output.
    std::map<std::int32_t, std::uint32_t> slot_of;  // value id -> slot
    std::vector<const aot::Value*> slots;
    auto add_slot = [&](aot::ValueId id) {
      slot_of[id.value] = static_cast<std::uint32_t>(slots.size());
      slots.push_back(graph.find_value(id));
    };
    for (aot::ValueId in : graph.inputs) add_slot(in);
    for (const aot::Node& node : graph.nodes) add_slot(node.outputs[0]);

    Writer ops;
    // One map entry per NPU op; generated identifiers 0, 1, 2, ...: the
    // runtime logs each op's events under its entry's identifier.
    aot::DelegateMappingBuilder builder(/*generated_identifiers=*/true);
    for (const aot::Node& node : graph.nodes) {
      GLASSBOX_ASSIGN_OR_RETURN(aot::DelegateDebugIdentifier id,
                                builder.insert_delegate_mapping_entry(node));
      const OpKind kind = node.op == aot::op::kConv2d   ? OpKind::kConv2d
                          : node.op == aot::op::kLinear ? OpKind::kLinear
                          : node.op == aot::op::kRelu   ? OpKind::kRelu
                                                        : OpKind::kAdd;
      ops.put(kind);
      ops.put(static_cast<std::int32_t>(std::get<std::int64_t>(id)));
      const std::size_t activations = kind == OpKind::kAdd ? 2 : 1;
      for (std::size_t i = 0; i < activations; ++i) ops.put(slot_of.at(node.inputs[i].value));
      ops.put(slot_of.at(node.outputs[0].value));
      if (kind == OpKind::kConv2d) {
        const auto ints = [&](const char* key) {
          return std::get<std::vector<std::int64_t>>(node.attributes.at(key));
        };
        const std::vector<std::int64_t> stride = ints("stride"), dilation = ints("dilation");
        std::vector<std::int64_t> pad = ints("padding");  // [h, w] or [t, l, b, r]
        if (pad.size() == 2) pad = {pad[0], pad[1], pad[0], pad[1]};
        for (std::int64_t v : {stride[0], stride[1], dilation[0], dilation[1], pad[0], pad[1]}) {
          ops.put(v);
        }
      }
      if (kind == OpKind::kConv2d || kind == OpKind::kLinear) {
        const aot::Value* weight = graph.find_value(node.inputs[1]);
        for (std::size_t d = 0; d < 4; ++d) {
          ops.put<std::int64_t>(d < weight->shape.size() ? weight->shape[d] : 1);
        }
        ops.put_floats(weight->data);
        const bool has_bias = node.inputs.size() > 2;
        ops.put_floats(has_bias ? graph.find_value(node.inputs[2])->data : std::vector<float>{});
      }
    }

    Writer blob;
    for (char c : kMagic) blob.put(c);
    blob.put(kFormatVersion);
    blob.put(static_cast<std::uint32_t>(slots.size()));
    for (const aot::Value* value : slots) {
      blob.put(static_cast<std::uint32_t>(value->shape.size()));
      for (std::int64_t d : value->shape) blob.put(d);
    }
    blob.put(static_cast<std::uint32_t>(graph.inputs.size()));
    blob.put(static_cast<std::uint32_t>(graph.outputs.size()));
    for (aot::ValueId out : graph.outputs) blob.put(slot_of.at(out.value));
    blob.put(static_cast<std::uint32_t>(graph.nodes.size()));
    blob.bytes.insert(blob.bytes.end(), ops.bytes.begin(), ops.bytes.end());
    return aot::PreprocessResult{std::move(blob.bytes), builder.get_delegate_mapping()};
  }
};

Status register_compiler(aot::BackendRegistry& registry) {
  return registry.register_backend(std::make_unique<NpuCompiler>());
}

StatusOr<aot::Partitioner> make_partitioner() {
  // The host's registry owns the compiler (registered on first use).
  GLASSBOX_ASSIGN_OR_RETURN(
      NpuCompiler * compiler,
      glassbox::backends::registered_backend<NpuCompiler>(kName, &register_compiler));
  return aot::Partitioner(*compiler,
                          {std::string(aot::op::kConv2d), std::string(aot::op::kLinear),
                           std::string(aot::op::kRelu), std::string(aot::op::kAdd)},
                          [](const aot::Graph& graph, const aot::Node& node) {
                            return reason_not_taken(graph, node).empty();
                          });
}

StatusOr<std::vector<std::string>> partition_report(const aot::Graph& graph) {
  std::vector<std::string> reasons;
  for (const aot::Node& node : graph.nodes) reasons.push_back(reason_not_taken(graph, node));
  return reasons;
}

// ---- 3. The runtime half ---------------------------------------------------

struct Op {
  OpKind kind;
  std::int32_t id;  // the identifier of its DelegateMappingBuilder entry
  std::uint32_t in[2] = {0, 0};
  std::uint32_t out = 0;
  std::int64_t stride[2] = {1, 1}, dilation[2] = {1, 1}, pad[2] = {0, 0};
  std::int64_t weight_shape[4] = {1, 1, 1, 1};
  std::vector<float> weight, bias;
  std::uint64_t macs = 0;       // counted at init from the shapes
  std::uint64_t dma_bytes = 0;  // bytes read (inputs, weights) and written
  std::string metadata;         // logged with its events: "conv2d macs=6912"
};

// One delegate call's state. A device build would carve it from
// context.allocator(); on the host, the heap is simpler to read.
struct Program {
  std::vector<std::vector<std::int64_t>> shapes;  // per slot
  std::vector<std::vector<float>> buffers;        // per slot, planned at init
  std::uint32_t num_inputs = 0;
  std::vector<std::uint32_t> outputs;
  std::vector<Op> ops;
  // Per execute, sized at init: each slot's data, and the NPU's trace
  // buffer (each op's start and end in its own cycles).
  std::vector<const float*> data;
  std::vector<std::uint64_t> start, end;
  // Deferred mode (compile spec trace=deferred): the XNTR buffer, sized at
  // init, logged whole after each execution.
  bool deferred = false;
  std::vector<std::uint8_t> trace;
};

std::int64_t numel(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

// Checks one op against the slot shapes and counts its MACs; false when
// the blob is inconsistent.
bool check_op(Program& p, Op& op) {
  const std::uint32_t n = static_cast<std::uint32_t>(p.shapes.size());
  if (op.in[0] >= n || op.in[1] >= n || op.out >= n || op.out < p.num_inputs) return false;
  const auto& x = p.shapes[op.in[0]];
  const auto& y = p.shapes[op.out];
  const auto* w = op.weight_shape;
  switch (op.kind) {
    case OpKind::kRelu: return x == y;
    case OpKind::kAdd: return x == y && p.shapes[op.in[1]] == y;
    case OpKind::kLinear:
      if (x.empty() || y.empty() || x.back() != w[1] || y.back() != w[0] ||
          static_cast<std::int64_t>(op.weight.size()) != w[0] * w[1] ||
          (!op.bias.empty() && static_cast<std::int64_t>(op.bias.size()) != w[0]) ||
          numel(x) / x.back() != numel(y) / y.back()) {
        return false;
      }
      op.macs = static_cast<std::uint64_t>(numel(y) * w[1]);
      return true;
    case OpKind::kConv2d:
      if (x.size() != 4 || y.size() != 4 || x[1] != w[1] || y[1] != w[0] || x[0] != y[0] ||
          static_cast<std::int64_t>(op.weight.size()) != w[0] * w[1] * w[2] * w[3] ||
          (!op.bias.empty() && static_cast<std::int64_t>(op.bias.size()) != w[0])) {
        return false;
      }
      for (int d = 0; d < 2; ++d) {
        if (op.stride[d] < 1 || op.dilation[d] < 1 || op.pad[d] < 0) return false;
        const std::int64_t span = op.dilation[d] * (w[2 + d] - 1) + 1;
        if ((x[2 + d] + 2 * op.pad[d] - span) / op.stride[d] + 1 != y[2 + d]) return false;
      }
      op.macs = static_cast<std::uint64_t>(numel(y) * w[1] * w[2] * w[3]);
      return true;
  }
  return false;
}

// The NPU's arithmetic (plain loops: it is a simulation).
void compute(const Op& op, const std::vector<const float*>& in_data, const Program& p, float* y) {
  const float* x = in_data[op.in[0]];
  const std::int64_t count = numel(p.shapes[op.out]);
  if (op.kind == OpKind::kRelu) {
    for (std::int64_t i = 0; i < count; ++i) y[i] = x[i] > 0 ? x[i] : 0;
  } else if (op.kind == OpKind::kAdd) {
    const float* b = in_data[op.in[1]];
    for (std::int64_t i = 0; i < count; ++i) y[i] = x[i] + b[i];
  } else if (op.kind == OpKind::kLinear) {
    const std::int64_t out = op.weight_shape[0], in = op.weight_shape[1];
    for (std::int64_t r = 0; r < count / out; ++r) {
      for (std::int64_t o = 0; o < out; ++o) {
        float sum = op.bias.empty() ? 0 : op.bias[o];
        for (std::int64_t k = 0; k < in; ++k) sum += x[r * in + k] * op.weight[o * in + k];
        y[r * out + o] = sum;
      }
    }
  } else {
    const auto& xs = p.shapes[op.in[0]];
    const auto& ys = p.shapes[op.out];
    const std::int64_t* w = op.weight_shape;
    for (std::int64_t n = 0; n < ys[0]; ++n)
      for (std::int64_t o = 0; o < ys[1]; ++o)
        for (std::int64_t i = 0; i < ys[2]; ++i)
          for (std::int64_t j = 0; j < ys[3]; ++j) {
            float sum = op.bias.empty() ? 0 : op.bias[o];
            for (std::int64_t c = 0; c < w[1]; ++c)
              for (std::int64_t ki = 0; ki < w[2]; ++ki)
                for (std::int64_t kj = 0; kj < w[3]; ++kj) {
                  const std::int64_t h = i * op.stride[0] - op.pad[0] + ki * op.dilation[0];
                  const std::int64_t v = j * op.stride[1] - op.pad[1] + kj * op.dilation[1];
                  if (h < 0 || h >= xs[2] || v < 0 || v >= xs[3]) continue;
                  sum += x[((n * xs[1] + c) * xs[2] + h) * xs[3] + v] *
                         op.weight[((o * w[1] + c) * w[2] + ki) * w[3] + kj];
                }
            y[((n * ys[1] + o) * ys[2] + i) * ys[3] + j] = sum;
          }
  }
}

glassbox::ErrorInfo corrupt(const char* what) {
  return glassbox::make_error(Error::kCorruptData, what);
}

class NpuRuntime final : public runtime::BackendInterface {
 public:
  bool is_available() const override { return true; }

  glassbox::Result<runtime::DelegateHandle*> init(
      runtime::BackendInitContext& context, glassbox::Span<const std::uint8_t> blob,
      glassbox::Span<const runtime::CompileSpecView> specs) override {
    // The events carry the NPU's cycles: declare its clock once, and the
    // ETDump records it so the Inspector converts cycles to nanoseconds.
    runtime::EventTracer* tracer = context.event_tracer();
    (void)runtime::event_tracer_set_delegate_ticks_per_second(tracer, kName, kClockHz);
    // The counter started at host time origin_ns_ (the first init that had
    // a tracer): declaring that offset puts the NPU's events on the host
    // timeline where they ran, not merely at the start of their call.
    if (tracer != nullptr) {
      if (!synchronised_) {
        origin_ns_ = host_ns(*tracer);
        synchronised_ = true;
      }
      (void)runtime::event_tracer_set_delegate_clock_offset(tracer, kName, origin_ns_);
    }
    auto program = std::make_unique<Program>();
    Reader in{blob.data(), blob.data() + blob.size()};
    char magic[4];
    std::uint32_t version = 0, num_slots = 0, num_outputs = 0, num_ops = 0;
    for (char& c : magic) {
      if (!in.get(&c)) return corrupt("example_npu: truncated blob");
    }
    if (std::memcmp(magic, kMagic, 4) != 0) return corrupt("example_npu: not an XNPU blob");
    if (!in.get(&version) || version != kFormatVersion) {
      return glassbox::make_error(Error::kVersionMismatch, "example_npu: unknown blob version");
    }
    // Counts are bounded by the bytes left, so a corrupt count cannot make
    // us reserve gigabytes.
    if (!in.get(&num_slots) || num_slots > blob.size()) return corrupt("example_npu: bad slots");
    program->shapes.resize(num_slots);
    for (auto& shape : program->shapes) {
      std::uint32_t rank = 0;
      if (!in.get(&rank) || rank > 8) return corrupt("example_npu: bad rank");
      shape.resize(rank);
      for (auto& d : shape) {
        if (!in.get(&d) || d < 1 || d > (1 << 24)) return corrupt("example_npu: bad dim");
      }
      if (numel(shape) > (std::int64_t{1} << 28)) return corrupt("example_npu: tensor too large");
    }
    if (!in.get(&program->num_inputs) || program->num_inputs > num_slots || !in.get(&num_outputs) ||
        num_outputs > num_slots) {
      return corrupt("example_npu: bad input or output count");
    }
    program->outputs.resize(num_outputs);
    for (auto& slot : program->outputs) {
      if (!in.get(&slot) || slot >= num_slots) return corrupt("example_npu: bad output slot");
    }
    if (!in.get(&num_ops) || num_ops > blob.size()) return corrupt("example_npu: bad op count");
    program->ops.resize(num_ops);
    for (Op& op : program->ops) {
      if (!in.get(&op.kind) || kind_name(op.kind) == nullptr || !in.get(&op.id) || op.id < 0 ||
          !in.get(&op.in[0]) || (op.kind == OpKind::kAdd && !in.get(&op.in[1])) ||
          !in.get(&op.out)) {
        return corrupt("example_npu: bad op");
      }
      if (op.kind == OpKind::kConv2d &&
          !(in.get(&op.stride[0]) && in.get(&op.stride[1]) && in.get(&op.dilation[0]) &&
            in.get(&op.dilation[1]) && in.get(&op.pad[0]) && in.get(&op.pad[1]))) {
        return corrupt("example_npu: truncated conv2d");
      }
      if ((op.kind == OpKind::kConv2d || op.kind == OpKind::kLinear) &&
          !(in.get(&op.weight_shape[0]) && in.get(&op.weight_shape[1]) &&
            in.get(&op.weight_shape[2]) && in.get(&op.weight_shape[3]) &&
            in.get_floats(&op.weight) && in.get_floats(&op.bias))) {
        return corrupt("example_npu: truncated weights");
      }
      if (!check_op(*program, op)) return corrupt("example_npu: op inconsistent with its shapes");
    }
    if (in.at != in.end) return corrupt("example_npu: trailing bytes");
    // Every slot but the inputs gets its buffer now: execute allocates
    // nothing.
    program->buffers.resize(num_slots);
    program->data.resize(num_slots);
    for (std::uint32_t s = program->num_inputs; s < num_slots; ++s) {
      program->buffers[s].resize(static_cast<std::size_t>(numel(program->shapes[s])));
      program->data[s] = program->buffers[s].data();
    }
    program->start.resize(num_ops);
    program->end.resize(num_ops);
    for (Op& op : program->ops) {
      op.metadata = op_metadata(op.kind, op.macs);
      // The NPU moves every float it reads and writes once, over DMA.
      std::int64_t floats = numel(program->shapes[op.in[0]]) + numel(program->shapes[op.out]);
      if (op.kind == OpKind::kAdd) floats += numel(program->shapes[op.in[1]]);
      op.dma_bytes = static_cast<std::uint64_t>(floats) * sizeof(float) +
                     (op.weight.size() + op.bias.size()) * sizeof(float);
    }
    for (const runtime::CompileSpecView& spec : specs) {
      const std::string value(spec.value.begin(), spec.value.end());
      if (std::strcmp(spec.key, kTraceSpecKey) == 0) program->deferred = value == "deferred";
    }
    if (program->deferred) {
      program->trace.resize(kTraceHeaderBytes + num_ops * sizeof(TraceEntry));
      std::memcpy(program->trace.data(), kTraceMagic, 4);
      std::memcpy(program->trace.data() + 4, &kTraceVersion, 4);
      std::memcpy(program->trace.data() + 8, &num_ops, 4);
    }
    return static_cast<runtime::DelegateHandle*>(program.release());
  }

  glassbox::ErrorInfo prepare(runtime::DelegateHandle* handle,
                              glassbox::Span<runtime::Tensor* const> inputs,
                              glassbox::Span<runtime::Tensor* const> outputs) const override {
    const auto* p = static_cast<const Program*>(handle);
    if (inputs.size() != p->num_inputs || outputs.size() != p->outputs.size()) {
      return glassbox::make_error(Error::kInvalidArgument, "example_npu: wrong tensor count");
    }
    auto fits = [](const runtime::Tensor& t, const std::vector<std::int64_t>& shape) {
      return t.dtype == glassbox::ScalarType::kFloat &&
             std::vector<std::int64_t>(t.sizes.begin(), t.sizes.end()) == shape &&
             t.nbytes == static_cast<std::size_t>(numel(shape)) * sizeof(float);
    };
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (!fits(*inputs[i], p->shapes[i])) {
        return glassbox::make_error(Error::kInvalidArgument, "example_npu: input shape differs");
      }
    }
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      if (!fits(*outputs[i], p->shapes[p->outputs[i]])) {
        return glassbox::make_error(Error::kInvalidArgument, "example_npu: output shape differs");
      }
    }
    return glassbox::kOk;
  }

  Error execute(runtime::BackendExecutionContext& context, runtime::DelegateHandle* handle,
                glassbox::Span<runtime::Tensor* const> inputs,
                glassbox::Span<runtime::Tensor* const> outputs) override {
    auto* p = static_cast<Program*>(handle);
    // prepare() checked the planned tensors at load; the counts again here.
    if (inputs.size() != p->num_inputs || outputs.size() != p->outputs.size()) {
      return Error::kInvalidArgument;
    }
    std::vector<const float*>& data = p->data;
    for (std::uint32_t s = 0; s < p->num_inputs; ++s) data[s] = inputs[s]->float_data();
    runtime::EventTracer* tracer = context.event_tracer();
    if (tracer != nullptr && synchronised_) {
      // The counter free-runs between executions: catch the simulated one
      // up with the host time elapsed since the origin.
      const std::int64_t elapsed_ns = host_ns(*tracer) - origin_ns_;
      const auto now_cycles = static_cast<std::uint64_t>(static_cast<double>(elapsed_ns) *
                                                         (static_cast<double>(kClockHz) / 1e9));
      if (now_cycles > cycles_) cycles_ = now_cycles;
    }
    for (std::size_t i = 0; i < p->ops.size(); ++i) {
      const Op& op = p->ops[i];
      p->start[i] = cycles_;
      compute(op, data, *p, p->buffers[op.out].data());
      cycles_ += kOpOverheadCycles + (op.macs + kMacsPerCycle - 1) / kMacsPerCycle;
      p->end[i] = cycles_;
      const glassbox::TensorView view{
          glassbox::ScalarType::kFloat,
          glassbox::Span<const std::int64_t>(p->shapes[op.out].data(), p->shapes[op.out].size()),
          {},
          p->buffers[op.out].data()};
      (void)runtime::event_tracer_log_output_delegate(tracer, nullptr,
                                                      glassbox::DelegateDebugIntId(op.id), view);
    }
    if (p->deferred) {
      // Deferred: the trace buffer goes into the dump as it is; the
      // decoder (section 5) makes the per-op events of it at inspect time.
      for (std::size_t i = 0; i < p->ops.size(); ++i) {
        const Op& op = p->ops[i];
        const TraceEntry entry{op.id,     op.kind, {0, 0, 0},   p->start[i],
                               p->end[i], op.macs, op.dma_bytes};
        std::memcpy(p->trace.data() + kTraceHeaderBytes + i * sizeof(TraceEntry), &entry,
                    sizeof(entry));
      }
      (void)runtime::event_tracer_log_delegate_raw_trace(tracer, kName, p->trace.data(),
                                                         p->trace.size());
    }
    // Post time: at the end of the execution the host reads the trace
    // buffer and logs one event per op, under the identifier its AOT map
    // gave it, with its MAC count as metadata and what the NPU counted
    // (its cycles, MACs and DMA bytes) as counters.
    for (std::size_t i = 0; i < p->ops.size() && !p->deferred; ++i) {
      const Op& op = p->ops[i];
      const runtime::DelegateCounter counters[] = {
          {"cycles", static_cast<std::int64_t>(p->end[i] - p->start[i])},
          {"macs", static_cast<std::int64_t>(op.macs)},
          {"dma_bytes", static_cast<std::int64_t>(op.dma_bytes)}};
      (void)runtime::event_tracer_log_profiling_delegate_with_counters(
          tracer, nullptr, glassbox::DelegateDebugIntId(op.id), p->start[i], p->end[i], counters,
          op.metadata.data(), op.metadata.size());
    }
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      const std::vector<float>& result = p->buffers[p->outputs[i]];
      std::memcpy(outputs[i]->data, result.data(), result.size() * sizeof(float));
    }
    if (tracer != nullptr && synchronised_) {
      // The simulated NPU takes the time its cost model says: when the host
      // computed the ops faster than that, wait until the host clock has
      // reached the counter, as a caller of a real NPU waits for it to
      // finish. Otherwise the last op's event, placed on the host timeline
      // with the declared offset, could end after its DELEGATE_CALL.
      const auto busy_until_ns = origin_ns_ +
                                 static_cast<std::int64_t>(static_cast<double>(cycles_) *
                                                           (1e9 / static_cast<double>(kClockHz))) +
                                 1;
      while (host_ns(*tracer) < busy_until_ns) {
      }
    }
    return Error::kOk;
  }

  void destroy(runtime::DelegateHandle* handle) override { delete static_cast<Program*>(handle); }

 private:
  // The host clock's time in nanoseconds.
  static std::int64_t host_ns(const runtime::EventTracer& tracer) {
    const glassbox::Clock& clock = tracer.clock();
    return static_cast<std::int64_t>(clock.ratio().to_ns(clock.now()));
  }

  std::uint64_t cycles_ = 0;  // the NPU's free-running cycle counter
  bool synchronised_ = false;
  std::int64_t origin_ns_ = 0;  // host ns at which cycles_ was 0
};

Status prepare_runtime(const glassbox::backends::RunSettings&) {
  // Its events are the NPU's own cycles, so it always logs post time and
  // ignores --delegate-log-mode. Registered once, in the host's registry.
  static NpuRuntime npu;
  if (runtime::find_backend(kName) == &npu) return Status();
  const Error e = runtime::register_backend(kName, &npu);
  if (e != Error::kOk) return Status(e, "example_npu: cannot register the runtime half");
  return Status();
}

// ---- 5. Deferred decoding ---------------------------------------------------
// The decoder Glassbox calls on the host for each raw trace of this backend
// (a C function: bytes in, events out through `sink`). The bytes come from
// a file: every count and field is checked, and a bad trace is an error
// message, never a crash. The events are what direct logging writes: the
// op's identifier, its start and end cycles, its metadata.
extern "C" int decode_trace(const std::uint8_t* bytes, std::size_t size,
                            const GlassboxRawTraceClock* /*clock: cycles are the declared ticks*/,
                            GlassboxDecodedEventSink sink, void* sink_context, char* error,
                            std::size_t error_size) {
  auto fail = [&](const char* why) {
    std::snprintf(error, error_size, "example_npu trace: %s", why);
    return 1;
  };
  std::uint32_t version = 0, count = 0;
  if (size < kTraceHeaderBytes || std::memcmp(bytes, kTraceMagic, 4) != 0) {
    return fail("not an XNTR trace");
  }
  std::memcpy(&version, bytes + 4, 4);
  std::memcpy(&count, bytes + 8, 4);
  if (version != kTraceVersion) return fail("unknown version");
  if ((size - kTraceHeaderBytes) / sizeof(TraceEntry) != count ||
      (size - kTraceHeaderBytes) % sizeof(TraceEntry) != 0) {
    return fail("op count does not match its size");
  }
  for (std::uint32_t i = 0; i < count; ++i) {
    TraceEntry entry;
    std::memcpy(&entry, bytes + kTraceHeaderBytes + i * sizeof(TraceEntry), sizeof(entry));
    if (kind_name(entry.kind) == nullptr || entry.id < 0) return fail("bad op entry");
    if (entry.end < entry.start) return fail("op ends before it starts");
    const std::string metadata = op_metadata(entry.kind, entry.macs);
    // The counters direct logging attaches (section 3).
    const GlassboxDecodedCounter counters[] = {
        {"cycles", static_cast<std::int64_t>(entry.end - entry.start)},
        {"macs", static_cast<std::int64_t>(entry.macs)},
        {"dma_bytes", static_cast<std::int64_t>(entry.dma_bytes)}};
    GlassboxDecodedEvent event{};
    event.delegate_debug_id_int = entry.id;
    event.start_ticks = entry.start;
    event.end_ticks = entry.end;
    event.metadata = reinterpret_cast<const std::uint8_t*>(metadata.data());
    event.metadata_size = metadata.size();
    event.counters = counters;
    event.num_counters = 3;
    if (sink(sink_context, &event) != 0) return 1;  // refused: the host says why
  }
  return 0;
}

// ---- 4. The entry point ----------------------------------------------------

const glassbox::backends::BackendPlugin kPlugin{
    .name = kName,
    .summary = "a simulated NPU (conv2d, linear, relu, add; 500 MHz cycles)",
    .make_partitioner = &make_partitioner,
    .partition_report = &partition_report,
    .prepare_runtime = &prepare_runtime,
    .decode_raw_trace = &decode_trace,
};

// The first field is the ABI version, read before anything else; the tag
// is expanded here, by this compiler, and compared with glassbox's own.
const glassbox::backends::PluginEntry kEntry{glassbox::backends::kPluginAbiVersion,
                                             GLASSBOX_PLUGIN_BUILD_TAG, &kPlugin};

}  // namespace
}  // namespace example_npu

extern "C" GLASSBOX_PLUGIN_EXPORT const void* glassbox_plugin_entry(void) {
  return &example_npu::kEntry;
}
