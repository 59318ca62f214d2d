#pragma once
// Private: the page's own files (assets/report.{html,css,js}), embedded at
// build time by embed_assets.cmake into a generated report_assets.cc.

#include <string_view>

namespace glassbox::report::assets {

extern const std::string_view kHtml;
extern const std::string_view kCss;
extern const std::string_view kJs;

}  // namespace glassbox::report::assets
