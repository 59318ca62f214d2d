#include "src/cli/synthetic_run.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "glassbox/etdump/data_sink.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/runtime/delegate_hooks.h"
#include "glassbox/runtime/event_tracer_hooks.h"

namespace glassbox::cli {
namespace {

using runtime::EventTracer;
using runtime::EventTracerEntry;

constexpr std::int64_t kChannels = 4;
constexpr std::int64_t kSide = 16;
constexpr std::int64_t kPlane = kSide * kSide;

// The delegate's debug handle map, as its AOT half would have built it:
// conv+relu fused under one identifier, tan decomposed into three.
struct DemoOp {
  const char* name;
  std::int32_t int_id;
};
constexpr DemoOp kConvRelu{"conv_relu", 0};
constexpr DemoOp kSin{"tan.sin", 1};
constexpr DemoOp kCos{"tan.cos", 2};
constexpr DemoOp kDiv{"tan.div", 3};

class DemoDelegate {
 public:
  DemoDelegate(EventTracer* tracer, bool string_ids)
      : tracer_(tracer), string_ids_(string_ids) {}

  // 3x3 depthwise-style conv (same padding) + relu, timed in real time.
  void conv_relu(const std::vector<float>& in, std::vector<float>* out) {
    EventTracerEntry e = start(kConvRelu);
    out->assign(in.size(), 0.f);
    for (std::int64_t c = 0; c < kChannels; ++c) {
      for (std::int64_t y = 0; y < kSide; ++y) {
        for (std::int64_t x = 0; x < kSide; ++x) {
          float acc = 0.f;
          for (std::int64_t dy = -1; dy <= 1; ++dy) {
            for (std::int64_t dx = -1; dx <= 1; ++dx) {
              const std::int64_t yy = y + dy, xx = x + dx;
              if (yy < 0 || yy >= kSide || xx < 0 || xx >= kSide) continue;
              acc += 0.1f * in[static_cast<std::size_t>(c * kPlane + yy * kSide + xx)];
            }
          }
          (*out)[static_cast<std::size_t>(c * kPlane + y * kSide + x)] =
              acc > 0.f ? acc : 0.f;
        }
      }
    }
    (void)runtime::event_tracer_end_profiling_delegate(tracer_, e, "conv_relu");
    log_output(kConvRelu, *out);
  }

  // tan = sin / cos. sin runs on two worker threads (as a thread-pool
  // backend would) that log their own real-time events; cos and div take
  // timestamps while running and log them afterwards (post-time).
  void tan(const std::vector<float>& in, std::vector<float>* out) {
    std::vector<float> s(in.size()), c(in.size());
    const std::size_t half = in.size() / 2;
    auto sin_part = [&](std::size_t begin, std::size_t end) {
      EventTracerEntry e = start(kSin);
      for (std::size_t i = begin; i < end; ++i) s[i] = std::sin(in[i]);
      (void)runtime::event_tracer_end_profiling_delegate(tracer_, e, "sin");
    };
    std::thread worker(sin_part, 0, half);
    sin_part(half, in.size());
    worker.join();
    log_output(kSin, s);

    const Clock& clock = tracer_->clock();
    const Ticks cos_start = clock.now();
    for (std::size_t i = 0; i < in.size(); ++i) c[i] = std::cos(in[i]);
    const Ticks cos_end = clock.now();
    out->resize(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) (*out)[i] = s[i] / c[i];
    const Ticks div_end = clock.now();
    log_post_time(kCos, cos_start, cos_end);
    log_post_time(kDiv, cos_end, div_end);
    log_output(kCos, c);
    log_output(kDiv, *out);
  }

 private:
  EventTracerEntry start(const DemoOp& op) {
    return string_ids_ ? runtime::event_tracer_start_profiling_delegate(
                             tracer_, op.name, kUnsetDelegateDebugIntId)
                       : runtime::event_tracer_start_profiling_delegate(
                             tracer_, nullptr, DelegateDebugIntId(op.int_id));
  }
  void log_post_time(const DemoOp& op, Ticks begin, Ticks end) {
    if (string_ids_) {
      (void)runtime::event_tracer_log_profiling_delegate(
          tracer_, op.name, kUnsetDelegateDebugIntId, begin, end);
    } else {
      (void)runtime::event_tracer_log_profiling_delegate(
          tracer_, nullptr, DelegateDebugIntId(op.int_id), begin, end);
    }
  }
  void log_output(const DemoOp& op, const std::vector<float>& values) {
    static constexpr std::int64_t kSizes[] = {1, kChannels, kSide, kSide};
    const TensorView t{ScalarType::kFloat, kSizes, {}, values.data()};
    if (string_ids_) {
      (void)runtime::event_tracer_log_output_delegate(
          tracer_, op.name, kUnsetDelegateDebugIntId, t);
    } else {
      (void)runtime::event_tracer_log_output_delegate(
          tracer_, nullptr, DelegateDebugIntId(op.int_id), t);
    }
  }

  EventTracer* tracer_;
  bool string_ids_;
};

Status write_bytes(const std::string& path, Span<const std::uint8_t> bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) return Status(Error::kAccessFailed, "cannot write " + path);
  return Status();
}

}  // namespace

StatusOr<SyntheticRunFiles> record_synthetic_run(
    const SyntheticRunOptions& options, const std::string& out_dir) {
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) {
    return Status(Error::kAccessFailed,
                  "cannot create " + out_dir + ": " + ec.message());
  }
  SyntheticRunFiles files;
  files.etdump_path = out_dir + "/demo.etdp";
  files.debug_data_path = out_dir + "/demo.bin";

  Result<etdump::FileDataSink> sink =
      etdump::FileDataSink::create(files.debug_data_path.c_str());
  if (!sink.ok()) {
    return Status(sink.error(), "cannot create " + files.debug_data_path);
  }
  etdump::ETDumpGenOptions gen_options;
  gen_options.clock = options.use_tsc ? Clock::tsc() : Clock::steady();
  etdump::ETDumpGen gen(gen_options);
  gen.set_data_sink(&*sink);
  gen.set_program_fingerprint("synthetic-demo-v1");
  if (options.log_intermediates) {
    gen.set_debug_level(runtime::DebugLevel::kIntermediateOutputs);
  }
  EventTracer* tracer = &gen;

  {  // Load time, as ExecuTorch's runtime logs it into a "Default" block.
    runtime::event_tracer_create_event_block(tracer, "Default");
    runtime::EventTracerProfileMethodScope load(tracer, "Program::load_method");
    runtime::EventTracerProfileMethodScope init(tracer, "Method::init");
  }

  std::vector<float> input(static_cast<std::size_t>(kChannels * kPlane));
  for (std::size_t i = 0; i < input.size(); ++i) {
    input[i] = std::sin(0.37f * static_cast<float>(i));
  }
  std::vector<float> shifted, fused, output;
  DemoDelegate delegate(tracer, options.string_ids);
  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    runtime::event_tracer_create_event_block(tracer, "Execute");
    runtime::EventTracerProfileMethodScope method(tracer, "Method::execute");
    {  // Instruction 0: a portable operator.
      runtime::EventTracerProfileInstructionScope instr(tracer, ChainId(0),
                                                        InstructionId(0));
      runtime::EventTracerProfileOpScope op(tracer, "OPERATOR_CALL");
      runtime::EventTracerProfileOpScope kernel(tracer, "native_call_add.out");
      shifted.resize(input.size());
      for (std::size_t i = 0; i < input.size(); ++i) shifted[i] = input[i] + 0.5f;
    }
    {  // Instruction 1: the delegate.
      runtime::EventTracerProfileInstructionScope instr(tracer, ChainId(0),
                                                        InstructionId(1));
      runtime::EventTracerProfileOpScope call(tracer, "DELEGATE_CALL");
      delegate.conv_relu(shifted, &fused);
      delegate.tan(fused, &output);
    }
    static constexpr std::int64_t kSizes[] = {1, kChannels, kSide, kSide};
    runtime::event_tracer_log_value_output(
        tracer, runtime::ValueView::of_tensor(
                    {ScalarType::kFloat, kSizes, {}, output.data()}));
  }

  Result<Span<const std::uint8_t>> dump = gen.get_etdump_data();
  if (!dump.ok()) return Status(dump.error_info());
  files.events = gen.num_events();
  GLASSBOX_RETURN_IF_ERROR(write_bytes(files.etdump_path, *dump));
  if (sink->close() != Error::kOk) {
    return Status(Error::kAccessFailed, "cannot write " + files.debug_data_path);
  }
  return files;
}

}  // namespace glassbox::cli
