#pragma once
// Private: the page's own files (assets/report.{html,css,js}, report_graph.js) and its graph
// layout library (npm's dagre, "" when the build had none), embedded at
// build time by embed_assets.cmake into a generated report_assets.cc.

#include <string_view>

namespace glassbox::report::assets {

extern const std::string_view kHtml;
extern const std::string_view kCss;
extern const std::string_view kJs;
extern const std::string_view kGraphJs;
extern const std::string_view kLayoutJs;

}  // namespace glassbox::report::assets
