// The oneDNN delegate on int8 (QDQ) models: the test models of
// testdata/onnx/quant lowered whole to oneDNN are one delegate that runs
// int8 primitives from the input's quantize to the last dequantize, and
// match the portable run of the same file within one quantization step of
// the output (a rounding tie decided the other way after a differently
// ordered sum; quantization.h).

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "backends/common/graph_uses.h"
#include "backends/onednn/aot/onednn_backend.h"
#include "backends/onednn/aot/onednn_partitioner.h"
#include "backends/onednn/runtime/onednn_runtime.h"
#include "frontends/onnx/importer.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/export/program_manager.h"
#include "glassbox/npy/npy.h"
#include "glassbox/runtime/method.h"
#include "glassbox/runtime/program.h"

namespace glassbox::backends::onednn {
namespace {

const std::string kDir = std::string(GLASSBOX_TESTDATA_DIR) + "/onnx/quant/";

StatusOr<exporter::ExecutorchProgramManager> export_graph(aot::Graph graph, bool delegated) {
  static OnednnBackend backend;
  exporter::Recipe recipe;
  if (delegated) recipe.partitioners.push_back(make_onednn_partitioner(backend));
  return exporter::export_model(std::move(graph), recipe);
}

// Output 0 of `bytes` run once on `x`; empty with `*error` set on failure.
std::vector<float> run(const std::vector<std::uint8_t>& bytes, const std::vector<float>& x,
                       runtime::EventTracer* tracer, std::string* error) {
  if (register_onednn_backend_runtime() != Error::kOk) {
    *error = "cannot register the runtime half";
    return {};
  }
  runtime::Diagnostics diag;
  Result<runtime::Program> program = runtime::Program::load(bytes, &diag);
  if (!program.ok()) {
    *error = std::string("Program::load: ") + diag.message;
    return {};
  }
  runtime::MemoryAllocator memory, temp;
  Result<runtime::Method> method =
      runtime::Method::load(*program, "forward", &memory, &temp, tracer, &diag);
  if (!method.ok()) {
    *error = std::string("Method::load: ") + diag.message;
    return {};
  }
  if (method->set_input(0, x.data(), x.size() * sizeof(float)) != Error::kOk ||
      method->execute(&diag) != Error::kOk) {
    *error = std::string("execute: ") + diag.message;
    return {};
  }
  const runtime::Tensor& y = method->output(0);
  return std::vector<float>(y.float_data(), y.float_data() + y.numel());
}

// The scale of the dequantize writing the graph's output.
float output_scale(const aot::Graph& graph) {
  const aot::Node* dq = producer_of(graph, graph.outputs[0]);
  if (dq == nullptr) return 0;
  const std::optional<TensorQuant> q = per_tensor_quant(graph, *dq);
  return q ? q->scale : 0;
}

struct Lowered {
  std::size_t delegates = 0;
  double max_steps = 0;
  std::vector<std::string> metadata;
  std::size_t int8_outputs = 0;  // intermediate outputs logged as int8
};

// `name` lowered to oneDNN and to portable, both run on its input.
Lowered lower_and_compare(const std::string& name) {
  Lowered result;
  StatusOr<aot::Graph> graph = frontends::onnx::import_onnx(kDir + name + ".onnx");
  EXPECT_TRUE(graph.ok()) << graph.message();
  StatusOr<npy::Array> x = npy::read_file(kDir + name + ".input.npy");
  EXPECT_TRUE(x.ok());
  if (!graph.ok() || !x.ok()) return result;
  StatusOr<exporter::ExecutorchProgramManager> delegated = export_graph(*graph, true);
  StatusOr<exporter::ExecutorchProgramManager> portable = export_graph(*graph, false);
  EXPECT_TRUE(delegated.ok()) << delegated.message();
  EXPECT_TRUE(portable.ok()) << portable.message();
  if (!delegated.ok() || !portable.ok()) return result;
  result.delegates = delegated->delegate_map().at("forward").size();
  EXPECT_EQ(delegated->instruction_id_to_num_outs_map().at("forward").size(), 1u)
      << "one instruction: the delegate call";

  std::string error;
  etdump::ETDumpGen tracer;
  tracer.set_debug_level(runtime::DebugLevel::kIntermediateOutputs);
  const std::vector<float> y = run(delegated->buffer(), x->data, &tracer, &error);
  EXPECT_TRUE(error.empty()) << error;
  const std::vector<float> want = run(portable->buffer(), x->data, nullptr, &error);
  EXPECT_TRUE(error.empty()) << error;
  EXPECT_EQ(y.size(), want.size());
  if (y.size() != want.size() || y.empty()) return result;
  const float step = output_scale(*graph);
  EXPECT_GT(step, 0.f);
  for (std::size_t i = 0; i < y.size(); ++i) {
    result.max_steps = std::max(result.max_steps, std::abs(double(y[i]) - want[i]) / step);
  }
  StatusOr<etdump::ETDumpFile> dump = etdump::parse_etdump(*tracer.get_etdump_data(), name);
  EXPECT_TRUE(dump.ok()) << dump.message();
  if (!dump.ok()) return result;
  for (const etdump::Event& e : dump->runs.back().events) {
    if (const etdump::ProfileEvent* pe = e.profile();
        pe != nullptr && pe->delegate_debug_metadata.has_value()) {
      result.metadata.emplace_back(pe->delegate_debug_metadata->begin(),
                                   pe->delegate_debug_metadata->end());
    }
    if (const etdump::DebugEvent* de = e.debug(); de != nullptr && de->value.tensor.has_value()) {
      const std::optional<ScalarType> t = de->value.tensor->known_scalar_type();
      if (t == ScalarType::kChar || t == ScalarType::kByte) ++result.int8_outputs;
    }
  }
  return result;
}

bool any_starts_with(const std::vector<std::string>& all, std::string_view prefix) {
  for (const std::string& s : all) {
    if (s.starts_with(prefix)) return true;
  }
  return false;
}

TEST(OnednnQuantTest, ConvReluIsOneDelegateInInt8) {
  const Lowered l = lower_and_compare("qdq_conv_relu");
  EXPECT_EQ(l.delegates, 1u);
  EXPECT_LE(l.max_steps, 1.0);
  // quantize, int8 convolution (with its relu), dequantize: the QDQ pair
  // between them is never float.
  EXPECT_TRUE(any_starts_with(l.metadata, "quantize: "));
  EXPECT_TRUE(any_starts_with(l.metadata, "convolution: "));
  EXPECT_TRUE(any_starts_with(l.metadata, "dequantize: "));
  EXPECT_FALSE(any_starts_with(l.metadata, "convolution: ref"))
      << ::testing::PrintToString(l.metadata);
  EXPECT_GT(l.int8_outputs, 0u) << "intermediate outputs are logged as int8 tensors";
}

TEST(OnednnQuantTest, TestdataModelsAreOneDelegateWithinOneStep) {
  for (const char* name : {"qdq_conv_relu", "qdq_cnn_small", "qdq_opset10", "qdq_opset21"}) {
    SCOPED_TRACE(name);
    const Lowered l = lower_and_compare(name);
    EXPECT_EQ(l.delegates, 1u);
    EXPECT_LE(l.max_steps, 1.0);
    std::printf("%s: %zu delegate(s), max error %.3f output steps\n", name, l.delegates,
                l.max_steps);
    for (const std::string& m : l.metadata) std::printf("  %s\n", m.c_str());
    for (const std::string& m : l.metadata) {
      EXPECT_FALSE(m.find(": ref") != std::string::npos && m.find("int8") != std::string::npos)
          << m;
    }
  }
}

}  // namespace
}  // namespace glassbox::backends::onednn
