#include "frontends/onnx/varying_dims.h"

#include <algorithm>
#include <string>

namespace glassbox::frontends::onnx {
namespace {

using Shape = std::vector<std::int64_t>;

// The dims a dynamic op's own output varies along, whatever its inputs
// (none for any other op).
std::vector<bool> made_by(std::string_view op, const aot::AttributeMap& attrs, std::size_t rank) {
  std::vector<bool> dims(rank, false);
  std::int64_t axis = 0;
  if (op == aot::op::kNonZero) {
    axis = 1;  // [rank, count]
  } else if (op == aot::op::kTopK || op == aot::op::kUnique) {
    axis = op == aot::op::kTopK ? -1 : 0;  // the attribute's defaults
    auto it = attrs.find("axis");
    if (it != attrs.end()) {
      if (const auto* a = std::get_if<std::int64_t>(&it->second)) axis = *a;
    }
  } else if (op != aot::op::kNonMaxSuppression) {  // [selected, 3]: axis 0
    return dims;
  }
  if (axis < 0) axis += static_cast<std::int64_t>(rank);
  if (axis >= 0 && axis < static_cast<std::int64_t>(rank)) {
    dims[static_cast<std::size_t>(axis)] = true;
  }
  return dims;
}

// A bound shrunk to probe the rule: empty, so a broadcast against a fixed
// dim fails and a cap ([:k]) shows; or short of the bound but never 1, the
// size that broadcasts.
std::int64_t shrink(std::int64_t bound, bool to_empty) {
  if (to_empty) return 0;
  return bound > 2 ? bound - 1 : 0;
}

}  // namespace

const std::vector<bool>* VaryingDims::of(aot::ValueId id) const {
  auto it = dims_.find(id);
  return it == dims_.end() ? nullptr : &it->second;
}

Status VaryingDims::record(std::string_view op, const aot::AttributeMap& attrs,
                           std::span<const aot::ValueId> ins,
                           std::span<const aot::TensorType> in_types,
                           std::span<const aot::ValueId> outs,
                           std::span<const aot::TensorType> out_types) {
  bool fed = false;
  for (aot::ValueId id : ins) fed = fed || of(id) != nullptr;
  std::vector<std::vector<bool>> result;
  for (const aot::TensorType& t : out_types) result.emplace_back(t.shape.size(), false);
  if (fed) {
    bool any_probe = false;
    std::string failure;
    for (bool to_empty : {true, false}) {
      std::vector<aot::TensorType> probe(in_types.begin(), in_types.end());
      for (std::size_t i = 0; i < ins.size(); ++i) {
        const std::vector<bool>* v = of(ins[i]);
        if (v == nullptr) continue;
        for (std::size_t d = 0; d < v->size() && d < probe[i].shape.size(); ++d) {
          if ((*v)[d]) probe[i].shape[d] = shrink(probe[i].shape[d], to_empty);
        }
      }
      StatusOr<std::vector<aot::TensorType>> shrunk = aot::infer_output_types(op, probe, attrs);
      if (!shrunk.ok()) {
        failure = shrunk.message();
        continue;
      }
      any_probe = true;
      for (std::size_t o = 0; o < out_types.size() && o < shrunk->size(); ++o) {
        const Shape& bound = out_types[o].shape;
        const Shape& small = (*shrunk)[o].shape;
        for (std::size_t d = 0; d < bound.size() && d < small.size(); ++d) {
          if (bound[d] != small[d]) result[o][d] = true;
        }
      }
    }
    if (!any_probe) {
      return Status(Error::kNotSupported,
                    std::string(op) +
                        " cannot follow a size that depends on data: at smaller sizes " + failure);
    }
  }
  for (std::size_t o = 0; o < outs.size() && o < out_types.size(); ++o) {
    if (!out_types[o].dynamic) continue;
    // What the probe showed, and the dims a dynamic op makes itself.
    std::vector<bool> dims = made_by(op, attrs, out_types[o].shape.size());
    for (std::size_t d = 0; d < dims.size() && d < result[o].size(); ++d) {
      dims[d] = dims[d] || result[o][d];
    }
    dims_[outs[o]] = std::move(dims);
  }
  return Status();
}

StatusOr<Shape> VaryingDims::free_reshape_dim(aot::ValueId x, const Shape& from, Shape to) const {
  const std::vector<bool>* v = of(x);
  if (v == nullptr || std::find(to.begin(), to.end(), -1) != to.end()) return to;
  const auto count = std::count(v->begin(), v->end(), true);
  if (count == 0) return to;
  if (count > 1) {
    return Status(Error::kNotSupported, "a reshape of " + aot::shape_string(from) +
                                            " whose size depends on data in more than one dim");
  }
  const auto d = static_cast<std::size_t>(std::find(v->begin(), v->end(), true) - v->begin());
  std::int64_t before = 1;
  for (std::size_t i = 0; i < d; ++i) before *= from[i];
  // The last dim of `to` whose preceding sizes multiply to `before`: after
  // any inserted 1s, where the varying dim (and what follows it) lands.
  std::int64_t prefix = 1;
  std::size_t chosen = to.size();
  for (std::size_t j = 0; j < to.size(); ++j) {
    if (prefix == before && to[j] != 1) {
      chosen = j;
      break;
    }
    if (prefix == before) chosen = j;
    prefix *= to[j];
  }
  if (chosen == to.size()) {
    return Status(Error::kNotSupported, "a reshape of " + aot::shape_string(from) + " to " +
                                            aot::shape_string(to) +
                                            " splits the dim whose size depends on data");
  }
  to[chosen] = -1;
  return to;
}

}  // namespace glassbox::frontends::onnx
