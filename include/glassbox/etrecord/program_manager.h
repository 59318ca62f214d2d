#pragma once
/// @file
/// Moved: the program managers are the export layer's
/// (glassbox/export/program_manager.h, namespace glassbox::exporter, target
/// glassbox::export). This forwarding header keeps backends/xnnpack building
/// until it includes the new header; delete it then (nothing else uses it).

#include "glassbox/export/program_manager.h"

namespace glassbox::etrecord {

using exporter::EdgeOptions;
using exporter::EdgeProgramManager;
using exporter::ExecutorchProgramManager;
using exporter::export_model;
using exporter::LowerOptions;
using exporter::Recipe;
using exporter::to_edge;
using exporter::to_edge_transform_and_lower;

}  // namespace glassbox::etrecord
