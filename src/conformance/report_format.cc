// The two renderings of a conformance report (conformance.h).

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "glassbox/conformance/conformance.h"

namespace glassbox::conformance {

std::string render_table(std::span<const RuleResult> results) {
  std::size_t width = 0;
  for (const RuleResult& r : results) width = std::max(width, r.rule.size());
  std::string out;
  std::size_t failed = 0;
  for (const RuleResult& r : results) {
    failed += !r.pass();
    out += std::string(to_string(r.outcome)) + "  " + r.rule +
           std::string(width - r.rule.size() + 2, ' ') + r.detail + "\n";
  }
  out += failed == 0 ? "conformance: every rule passed\n"
                     : "conformance: " + std::to_string(failed) + " rule(s) failed\n";
  return out;
}

std::string render_json(std::span<const RuleResult> results) {
  nlohmann::ordered_json rules = nlohmann::ordered_json::array();
  for (const RuleResult& r : results) {
    rules.push_back({{"rule", r.rule}, {"outcome", to_string(r.outcome)}, {"detail", r.detail}});
  }
  const nlohmann::ordered_json report = {{"passed", all_passed(results)}, {"rules", rules}};
  // Replace: a model path or identifier may hold bytes that are not UTF-8.
  return report.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace glassbox::conformance
