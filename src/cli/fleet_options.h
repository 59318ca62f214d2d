#pragma once
// The many-dump options `inspect` and `export` share, defined once so their
// names and meanings cannot drift apart.

#include <string>

#include "CLI/CLI.hpp"
#include "src/cli/fleet_reader.h"

namespace glassbox::cli {

/// Adds --jobs, --strict and --tag-from-path to `command`, filling `fleet`.
/// `when` prefixes each help text ("with several dumps: " for inspect,
/// which also reads one dump).
inline void add_fleet_options(CLI::App& command, FleetOptions& fleet, const std::string& when) {
  command.add_option("--jobs", fleet.jobs,
                     when +
                         "decoding threads (default: every core; fewer when the system cannot "
                         "start that many)");
  command.add_flag("--strict", fleet.strict,
                   when +
                       "a damaged dump or one of another program is fatal (default: reported and "
                       "skipped)");
  command
      .add_option("--tag-from-path", fleet.tag_from_path,
                  "tag each dump from its path, e.g. 'runs/{device}/{app_version}/*.etdp' "
                  "(a sidecar <dump>.json of strings adds tags too)")
      ->check(CLI::Validator(
          [](std::string& pattern) {
            // A malformed pattern is the command line's mistake: exit code 2.
            const StatusOr<PathTagPattern> parsed = PathTagPattern::parse(pattern);
            return parsed.ok() ? std::string() : parsed.status().message();
          },
          "PATTERN"));
}

}  // namespace glassbox::cli
