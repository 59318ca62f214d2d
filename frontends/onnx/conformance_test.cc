// ONNX's own operator tests (Debian libonnx-testdata, data/node): every case
// whose model uses only op types the importer supports is imported,
// emitted with no delegate (every node a portable kernel), run, and
// compared with the case's reference outputs. Cases that cannot run by
// design are either detected by rule (non-float32 tensors, opsets outside
// 11..17) or listed in conformance_exclusions.cc with a reason; everything
// else must pass.
//
// Tolerance: |actual - expected| <= kAtol + kRtol * |expected| per element
// (NaN matches NaN), with kRtol = 1e-4 and kAtol = 1e-5: float32 kernels
// against numpy's float32 (sometimes float64-computed) references.

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "frontends/onnx/conformance_exclusions.h"
#include "frontends/onnx/importer.h"
#include "frontends/onnx/tensor_proto.h"
#include "glassbox/etrecord/program_manager.h"
#include "glassbox/runtime/method.h"
#include "glassbox/runtime/program.h"

namespace glassbox::frontends::onnx {
namespace {

namespace fs = std::filesystem;

constexpr double kRtol = 1e-4;
constexpr double kAtol = 1e-5;

template <typename Proto>
bool parse_file(const fs::path& path, Proto* proto) {
  std::ifstream in(path, std::ios::binary);
  return in && proto->ParseFromIstream(&in);
}

// Why a case cannot run by rule, or "" if it can.
std::string rule_exclusion(const ::onnx::ModelProto& model, const std::set<std::string>& supported) {
  for (const ::onnx::OperatorSetIdProto& set : model.opset_import()) {
    if ((set.domain().empty() || set.domain() == "ai.onnx") &&
        (set.version() < kMinOpset || set.version() > kMaxOpset)) {
      return "opset " + std::to_string(set.version()) + " (the importer reads 11 to 17)";
    }
  }
  auto non_float = [](const ::onnx::ValueInfoProto& v) {
    return v.type().tensor_type().elem_type() != ::onnx::TensorProto::FLOAT;
  };
  const auto& g = model.graph();
  if (std::any_of(g.input().begin(), g.input().end(), non_float) ||
      std::any_of(g.output().begin(), g.output().end(), non_float)) {
    return "non-float32 inputs or outputs (the portable kernels are float32 only)";
  }
  (void)supported;
  return "";
}

bool uses_only(const ::onnx::GraphProto& graph, const std::set<std::string>& supported) {
  return std::all_of(graph.node().begin(), graph.node().end(), [&](const ::onnx::NodeProto& n) {
    return (n.domain().empty() || n.domain() == "ai.onnx") && supported.contains(n.op_type());
  });
}

// Runs one case; "" on success, else what went wrong.
std::string run_case(const fs::path& dir) {
  StatusOr<aot::Graph> graph = import_onnx((dir / "model.onnx").string());
  if (!graph.ok()) return "import: " + graph.message();
  const std::size_t num_inputs = graph->inputs.size();
  StatusOr<etrecord::ExecutorchProgramManager> program = etrecord::export_model(*std::move(graph), {});
  if (!program.ok()) return "export: " + program.message();
  const std::vector<std::uint8_t> bytes = program->buffer();
  runtime::Diagnostics diag;
  Result<runtime::Program> loaded = runtime::Program::load(bytes, &diag);
  if (!loaded.ok()) return std::string("Program::load: ") + diag.message;

  std::vector<fs::path> data_sets;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_directory() && entry.path().filename().string().starts_with("test_data_set_")) {
      data_sets.push_back(entry.path());
    }
  }
  std::sort(data_sets.begin(), data_sets.end());
  for (const fs::path& set : data_sets) {
    runtime::MemoryAllocator method_memory, temp_memory;
    Result<runtime::Method> method =
        runtime::Method::load(*loaded, "forward", &method_memory, &temp_memory, nullptr, &diag);
    if (!method.ok()) return std::string("Method::load: ") + diag.message;
    if (method->num_inputs() != num_inputs) return "input count changed in emission";
    for (std::size_t i = 0; i < num_inputs; ++i) {
      ::onnx::TensorProto proto;
      if (!parse_file(set / ("input_" + std::to_string(i) + ".pb"), &proto)) return "cannot read input " + std::to_string(i);
      StatusOr<HostTensor> t = decode_tensor(proto, "input");
      if (!t.ok() || !t->is_float) return "input " + std::to_string(i) + " is not float";
      if (method->set_input(i, t->floats.data(), t->floats.size() * sizeof(float)) != Error::kOk) {
        return "set_input " + std::to_string(i) + " rejected " + std::to_string(t->floats.size()) + " floats";
      }
    }
    if (method->execute(&diag) != Error::kOk) return std::string("execute: ") + diag.message;
    for (std::size_t o = 0; o < method->num_outputs(); ++o) {
      ::onnx::TensorProto proto;
      if (!parse_file(set / ("output_" + std::to_string(o) + ".pb"), &proto)) return "cannot read output " + std::to_string(o);
      StatusOr<HostTensor> expected = decode_tensor(proto, "output");
      if (!expected.ok()) return expected.message();
      const runtime::Tensor& actual = method->output(o);
      if (actual.numel() != expected->numel()) return "output " + std::to_string(o) + " has the wrong size";
      const std::vector<std::int64_t> sizes(actual.sizes.begin(), actual.sizes.end());
      if (sizes != expected->shape) return "output " + std::to_string(o) + " has the wrong shape";
      for (std::size_t k = 0; k < static_cast<std::size_t>(actual.numel()); ++k) {
        const double a = actual.float_data()[k];
        const double e = expected->as_double(k);
        if (std::isnan(a) && std::isnan(e)) continue;
        if (!(std::abs(a - e) <= kAtol + kRtol * std::abs(e))) {
          std::ostringstream msg;
          msg << set.filename().string() << " output " << o << "[" << k << "] = " << a
              << ", expected " << e;
          return msg.str();
        }
      }
    }
  }
  return "";
}

TEST(OnnxConformanceTest, EverySupportedNodeCasePasses) {
  const fs::path root = GLASSBOX_ONNX_NODE_TESTS;
  if (!fs::is_directory(root)) GTEST_SKIP() << root << " is missing (install libonnx-testdata)";
  const std::vector<std::string> ops = supported_op_types();
  const std::set<std::string> supported(ops.begin(), ops.end());
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (fs::exists(entry.path() / "model.onnx")) cases.push_back(entry.path());
  }
  std::sort(cases.begin(), cases.end());

  int passed = 0, excluded = 0, not_applicable = 0;
  std::map<std::string, int> exclusion_counts;
  for (const fs::path& dir : cases) {
    const std::string name = dir.filename().string();
    ::onnx::ModelProto model;
    ASSERT_TRUE(parse_file(dir / "model.onnx", &model)) << name;
    if (!uses_only(model.graph(), supported)) {
      ++not_applicable;
      continue;
    }
    std::string reason = rule_exclusion(model, supported);
    if (reason.empty()) reason = std::string(exclusion_reason(name));
    if (!reason.empty()) {
      ++excluded;
      ++exclusion_counts[reason];
      continue;
    }
    const std::string failure = run_case(dir);
    EXPECT_EQ(failure, "") << name;
    if (failure.empty()) ++passed;
  }
  std::cout << "onnx conformance: " << passed << " passed, " << excluded << " excluded ("
            << not_applicable << " of " << cases.size() << " cases use unsupported op types)\n";
  for (const auto& [reason, count] : exclusion_counts) {
    std::cout << "  excluded " << count << ": " << reason << "\n";
  }
  EXPECT_GT(passed, 0);
}

}  // namespace
}  // namespace glassbox::frontends::onnx
