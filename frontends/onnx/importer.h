#pragma once
/// @file
/// The ONNX importer: an `.onnx` model (opset 11 to 20, static shapes) to
/// the graph IR, ready for `exporter::export_model` like any built graph.
///
///   StatusOr<aot::Graph> graph = frontends::onnx::import_onnx("resnet18.onnx");
///   if (!graph.ok()) fail(graph.message());   // names the file and node
///   auto program = exporter::export_model(*std::move(graph), recipe);
///
///      model.onnx --parse--> ModelProto --check--> opset, inputs, op types
///           --convert node by node--> aot::Graph (verified, debug handles)
///
/// What it does:
/// - Initializers and Constant nodes become host tensors. Float ones become
///   graph constants where an operator reads them; int64 ones feed the
///   static shape arithmetic PyTorch's exporter emits (Shape, Gather,
///   Unsqueeze, Concat, Slice, Cast, ... on constants), which is folded at
///   import and leaves no node behind.
/// - Every node must be supported (`supported_op_types()`), otherwise one
///   error lists every unsupported op type with the nodes using it.
/// - Node names become the IR nodes' names; PyTorch's module scopes in them
///   ("/layer1/layer1.0/conv1/Conv") become the module hierarchy
///   (module_path.h). An ONNX node lowered to several IR nodes (Gemm with
///   alpha, Softmax-11 on a middle axis) gives them all its debug handle;
///   handles count ONNX nodes from 1 in order, skipping folded ones.
///
/// Errors are Status values whose message starts with the model's name and,
/// for a node's problem, names the node and its op type.

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "glassbox/aot/graph.h"
#include "glassbox/core/status.h"

namespace glassbox::frontends::onnx {

/// The ONNX default-domain opsets the importer reads.
inline constexpr std::int64_t kMinOpset = 10;
inline constexpr std::int64_t kMaxOpset = 21;

/// What an import did, for the user.
struct ImportStats {
  /// IR nodes whose inputs were all known at import, evaluated then on the
  /// portable kernels instead of emitted.
  std::size_t folded_nodes = 0;
};

struct ImportOptions {
  /// Static shapes for graph inputs by name, replacing the model's (which
  /// may then have symbolic or unknown dims). The rank must match.
  std::map<std::string, std::vector<std::int64_t>, std::less<>> input_shapes;
  /// When set, filled in by a successful import.
  ImportStats* stats = nullptr;
};

/// Reads and imports the model at `path`.
StatusOr<aot::Graph> import_onnx(const std::string& path, const ImportOptions& options = {});

/// Imports a serialized ModelProto. `bytes` is only read during the call;
/// `source` names the model in error messages.
StatusOr<aot::Graph> import_onnx_from_memory(std::span<const std::uint8_t> bytes,
                                             const ImportOptions& options = {},
                                             const std::string& source = "<memory>");

/// The ONNX op types (default domain) the importer converts, sorted.
std::vector<std::string> supported_op_types();

}  // namespace glassbox::frontends::onnx
