#pragma once
// PyTorch's exporter (torch.onnx, 1.13) names each node after the module
// scopes it was traced in: "/layer1/layer1.0/conv1/Conv" is the Conv of
// module layer1 > layer1.0 > conv1. This turns such a name into the
// module hierarchy of the graph IR.

#include <string_view>
#include <vector>

#include "glassbox/aot/graph.h"

namespace glassbox::frontends::onnx {

/// The module frames of a node named `node_name`, outermost first, each
/// with the module's qualified path as `named_modules()` spells it and an
/// empty type (ONNX does not record module classes).
///
/// The segments between '/' are the scopes; the last one is the op's own
/// name and is dropped. A segment that already starts with its parent's
/// path and a '.' is a qualified name (the exporter writes the children of
/// containers that way: "layer1.0" under "layer1"); any other segment is an
/// attribute of its parent and is appended with a '.':
///   "/layer1/layer1.0/conv1/Conv" -> "layer1", "layer1.0", "layer1.0.conv1"
///   "/features/features.0/features.0.0/Conv" -> "features", "features.0",
///                                              "features.0.0"
/// Names that do not start with '/' (hand-written models, "Conv_0") and
/// top-level nodes ("/Flatten") have no frames; empty segments are skipped.
std::vector<aot::ModuleFrame> module_hierarchy_of(std::string_view node_name);

}  // namespace glassbox::frontends::onnx
