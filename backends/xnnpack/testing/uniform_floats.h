#pragma once
/// @file
/// Random test data for the delegate's own kernels' tests and benchmark.

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace glassbox::backends::xnnpack {

/// `count` floats uniform in [-0.5, 0.5) from `seed`.
inline std::vector<float> uniform_floats(std::size_t count, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
  std::vector<float> v(count);
  for (float& x : v) x = dist(rng);
  return v;
}

}  // namespace glassbox::backends::xnnpack
