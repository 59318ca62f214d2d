#include "frontends/onnx/module_path.h"

#include <string>

namespace glassbox::frontends::onnx {

std::vector<aot::ModuleFrame> module_hierarchy_of(std::string_view node_name) {
  std::vector<aot::ModuleFrame> frames;
  if (node_name.empty() || node_name.front() != '/') return frames;
  std::vector<std::string_view> segments;
  std::size_t start = 1;
  while (start <= node_name.size()) {
    std::size_t end = node_name.find('/', start);
    if (end == std::string_view::npos) end = node_name.size();
    if (end > start) segments.push_back(node_name.substr(start, end - start));
    start = end + 1;
  }
  if (!segments.empty()) segments.pop_back();  // The op's own name.
  std::string path;
  for (std::string_view segment : segments) {
    const bool qualified = !path.empty() && segment.size() > path.size() + 1 &&
                           segment.substr(0, path.size()) == path && segment[path.size()] == '.';
    if (qualified || path.empty()) {
      path = std::string(segment);
    } else {
      path += "." + std::string(segment);
    }
    frames.push_back(aot::ModuleFrame{path, ""});
  }
  return frames;
}

}  // namespace glassbox::frontends::onnx
