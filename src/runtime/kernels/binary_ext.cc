#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "glassbox/runtime/kernels/elementwise_ext.h"
#include "glassbox/runtime/kernels/shape.h"

namespace glassbox::runtime::kernels {
namespace {

using Shape = Span<const std::int64_t>;

// The broadcast iteration space of an N-input op after merging dims: a dim
// where an input is broadcast has stride 0 for it, and adjacent dims that
// are contiguous (or broadcast) for every input merge. So same-shape inputs
// run as one flat loop, a scalar input as one flat loop with stride 0,
// [N,C,H,W] + [1,C,1,1] as [N,C,H*W] and [B,S,D] + [D] as [B*S,D].
// Size-1 output dims are dropped, which leaves every input's stride in the
// innermost dim at 1 (contiguous) or 0 (one value repeated).
template <std::size_t N>
struct Plan {
  std::int64_t size[kMaxDims] = {};
  std::int64_t stride[N][kMaxDims] = {};
  std::size_t rank = 0;
};

// Broadcasts `shapes` and plans the walk over the result. Sets *count to
// the output's element count; the plan is only built when it is nonzero.
// kInvalidArgument if the shapes do not broadcast, or the element count or
// its size in bytes (at `element_bytes` per element) does not fit.
template <std::size_t N>
Error make_plan(const std::array<Shape, N>& shapes, std::size_t element_bytes, Plan<N>* plan,
                std::int64_t* count) {
  Result<Dims> first = make_dims(shapes[0]);
  if (!first.ok()) return first.error();
  Dims out = *first;
  for (std::size_t k = 1; k < N; ++k) {
    Result<Dims> next = broadcast_shapes(out.span(), shapes[k]);
    if (!next.ok()) return next.error();
    out = *next;
  }
  // A zero anywhere makes the tensor empty however large the other sizes.
  *count = 1;
  for (std::size_t d = 0; d < out.rank; ++d)
    if (out.sizes[d] == 0) *count = 0;
  if (*count == 0) return Error::kOk;
  for (std::size_t d = 0; d < out.rank; ++d)
    if (__builtin_mul_overflow(*count, out.sizes[d], count)) return Error::kInvalidArgument;
  if (static_cast<std::uint64_t>(*count) >
      static_cast<std::uint64_t>(std::numeric_limits<std::ptrdiff_t>::max()) / element_bytes)
    return Error::kInvalidArgument;

  // Per-input strides in output dims. Every input has at most as many
  // elements as the output, so these products cannot overflow.
  std::int64_t strides[N][kMaxDims] = {};
  for (std::size_t k = 0; k < N; ++k) {
    const Shape s = shapes[k];
    std::int64_t running = 1;
    for (std::size_t back = 0; back < s.size(); ++back) {
      const std::int64_t size = s[s.size() - 1 - back];
      strides[k][out.rank - 1 - back] = size == 1 ? 0 : running;
      running *= size;
    }
  }
  plan->rank = 0;
  for (std::size_t d = 0; d < out.rank; ++d) {
    if (out.sizes[d] == 1) continue;  // contributes nothing to the walk
    if (plan->rank > 0) {
      const std::size_t last = plan->rank - 1;
      bool mergeable = true;
      for (std::size_t k = 0; k < N; ++k)
        mergeable = mergeable && plan->stride[k][last] == strides[k][d] * out.sizes[d];
      if (mergeable) {
        plan->size[last] *= out.sizes[d];
        for (std::size_t k = 0; k < N; ++k) plan->stride[k][last] = strides[k][d];
        continue;
      }
    }
    plan->size[plan->rank] = out.sizes[d];
    for (std::size_t k = 0; k < N; ++k) plan->stride[k][plan->rank] = strides[k][d];
    ++plan->rank;
  }
  if (plan->rank == 0) {  // a one-element result: all inputs are repeated
    plan->size[0] = 1;
    plan->rank = 1;
  }
  return Error::kOk;
}

// An element of `where` moved as raw bits. Loaded and stored with memcpy
// because the buffers hold objects of the caller's type (float, int64...),
// which must not be read through an unrelated type (strict aliasing).
template <typename Bits>
struct Raw {
  Bits bits;
};

template <typename T>
T load(const T* p) {
  return *p;
}
template <typename Bits>
Raw<Bits> load(const Raw<Bits>* p) {
  Raw<Bits> v;
  std::memcpy(&v.bits, p, sizeof(Bits));
  return v;
}
template <typename T>
void store(T* p, T v) {
  *p = v;
}
template <typename Bits>
void store(Raw<Bits>* p, Raw<Bits> v) {
  std::memcpy(p, &v.bits, sizeof(Bits));
}

// An input as the inner loop sees it: a contiguous run, or one value
// repeated (loaded once, so the loop needs no alias check for it).
template <typename T>
struct Contiguous {
  const T* p;
  T operator[](std::int64_t i) const { return load(p + i); }
};
template <typename T>
struct Repeated {
  T value;
  T operator[](std::int64_t) const { return value; }
};

template <bool kRepeated, typename T>
auto cursor(const T* p) {
  if constexpr (kRepeated) {
    return Repeated<T>{load(p)};
  } else {
    return Contiguous<T>{p};
  }
}

template <typename O, typename F, typename... C>
void run_row(O* out, std::int64_t n, const F& f, C... in) {
  for (std::int64_t i = 0; i < n; ++i) store(out + i, f(in[i]...));
}

// Walks the plan's outer dims with an odometer that keeps the input offsets
// incremental (no division per element), running the inner dim as one row.
// Bit k of kRepeatedMask says input k is repeated along the inner dim, so
// each stride pattern gets its own unit-stride loop.
template <unsigned kRepeatedMask, std::size_t N, typename O, typename F, std::size_t... K,
          typename... T>
void run_rows(const Plan<N>& plan, O* out, const F& f, std::index_sequence<K...>, const T*... in) {
  const std::size_t inner = plan.rank - 1;
  const std::int64_t n = plan.size[inner];
  std::int64_t rows = 1;
  for (std::size_t d = 0; d < inner; ++d) rows *= plan.size[d];
  std::int64_t index[kMaxDims] = {};
  std::int64_t offset[N] = {};
  for (std::int64_t r = 0; r < rows; ++r) {
    run_row(out + r * n, n, f, cursor<((kRepeatedMask >> K) & 1u) != 0>(in + offset[K])...);
    for (std::size_t d = inner; d-- > 0;) {
      if (++index[d] < plan.size[d]) {
        for (std::size_t k = 0; k < N; ++k) offset[k] += plan.stride[k][d];
        break;
      }
      for (std::size_t k = 0; k < N; ++k) offset[k] -= plan.stride[k][d] * (plan.size[d] - 1);
      index[d] = 0;
    }
  }
}

// Calls fn(std::integral_constant<unsigned, mask>) for a mask of N bits.
template <std::size_t N, unsigned kMask = 0, typename Fn>
void with_mask(unsigned mask, const Fn& fn) {
  if constexpr (kMask + 1 < (1u << N)) {
    if (mask != kMask) {
      with_mask<N, kMask + 1>(mask, fn);
      return;
    }
  }
  fn(std::integral_constant<unsigned, kMask>{});
}

// out[i] = f(in_0[i], ..., in_N-1[i]) over the broadcast of `shapes`.
template <typename O, typename F, typename... T>
Error apply(const std::array<Shape, sizeof...(T)>& shapes, O* out, const F& f, const T*... in) {
  constexpr std::size_t kN = sizeof...(T);
  constexpr std::size_t kWidest = std::max({sizeof(O), sizeof(T)...});
  Plan<kN> plan;
  std::int64_t count = 0;
  if (Error e = make_plan(shapes, kWidest, &plan, &count); e != Error::kOk) return e;
  if (count == 0) return Error::kOk;
  if (out == nullptr || ((in == nullptr) || ...)) return Error::kInvalidArgument;
  unsigned repeated = 0;
  for (std::size_t k = 0; k < kN; ++k)
    if (plan.stride[k][plan.rank - 1] == 0) repeated |= 1u << k;
  with_mask<kN>(repeated, [&](auto mask) {
    run_rows<decltype(mask)::value>(plan, out, f, std::index_sequence_for<T...>{}, in...);
  });
  return Error::kOk;
}

template <typename T, typename O, typename F>
Error apply2(const T* a, Shape a_shape, const T* b, Shape b_shape, O* out, const F& f) {
  return apply<O>({a_shape, b_shape}, out, f, a, b);
}

float floor_mod(float x, float y) {
  // fmod is exact and takes x's sign; floor modulo takes y's, which is one
  // addition of y away (and a zero takes y's sign, as in Python).
  const float r = std::fmod(x, y);
  if (r == 0.0f) return std::copysign(0.0f, y);
  return (r < 0.0f) != (y < 0.0f) ? r + y : r;
}

// Unsigned arithmetic wraps where signed overflow would be undefined; the
// conversion back is modular (C++20).
std::int64_t wrap(std::uint64_t v) { return static_cast<std::int64_t>(v); }
std::uint64_t bits(std::int64_t v) { return static_cast<std::uint64_t>(v); }

constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

}  // namespace

Error binary_float(ElementwiseOp op, const float* a, Shape a_shape, const float* b, Shape b_shape,
                   float* out) {
  switch (op) {
    case ElementwiseOp::kAdd:
      return apply2(a, a_shape, b, b_shape, out, [](float x, float y) { return x + y; });
    case ElementwiseOp::kSub:
      return apply2(a, a_shape, b, b_shape, out, [](float x, float y) { return x - y; });
    case ElementwiseOp::kMul:
      return apply2(a, a_shape, b, b_shape, out, [](float x, float y) { return x * y; });
    case ElementwiseOp::kDiv:
      return apply2(a, a_shape, b, b_shape, out, [](float x, float y) { return x / y; });
    case ElementwiseOp::kPow:
      return apply2(a, a_shape, b, b_shape, out, [](float x, float y) { return std::pow(x, y); });
    case ElementwiseOp::kMin:
      // x != x picks a NaN x; a NaN y fails x < y and is picked.
      return apply2(a, a_shape, b, b_shape, out,
                    [](float x, float y) { return (x < y || x != x) ? x : y; });
    case ElementwiseOp::kMax:
      return apply2(a, a_shape, b, b_shape, out,
                    [](float x, float y) { return (x > y || x != x) ? x : y; });
    case ElementwiseOp::kMod: return apply2(a, a_shape, b, b_shape, out, floor_mod);
    case ElementwiseOp::kFmod:
      return apply2(a, a_shape, b, b_shape, out, [](float x, float y) { return std::fmod(x, y); });
    case ElementwiseOp::kPrelu:
      return apply2(a, a_shape, b, b_shape, out,
                    [](float x, float y) { return x < 0.0f ? x * y : x; });
    default: return Error::kInvalidArgument;
  }
}

Error binary_int64(ElementwiseOp op, const std::int64_t* a, Shape a_shape, const std::int64_t* b,
                   Shape b_shape, std::int64_t* out) {
  using I = std::int64_t;
  // Set by the ops whose result is undefined for some inputs; they write 0
  // there and carry on, so one bad element does not hide the others.
  bool undefined = false;
  Error e = Error::kOk;
  switch (op) {
    case ElementwiseOp::kAdd:
      return apply2(a, a_shape, b, b_shape, out, [](I x, I y) { return wrap(bits(x) + bits(y)); });
    case ElementwiseOp::kSub:
      return apply2(a, a_shape, b, b_shape, out, [](I x, I y) { return wrap(bits(x) - bits(y)); });
    case ElementwiseOp::kMul:
      return apply2(a, a_shape, b, b_shape, out, [](I x, I y) { return wrap(bits(x) * bits(y)); });
    case ElementwiseOp::kMin:
      return apply2(a, a_shape, b, b_shape, out, [](I x, I y) { return x < y ? x : y; });
    case ElementwiseOp::kMax:
      return apply2(a, a_shape, b, b_shape, out, [](I x, I y) { return x > y ? x : y; });
    case ElementwiseOp::kDiv:
      e = apply2(a, a_shape, b, b_shape, out, [&undefined](I x, I y) -> I {
        if (y == 0 || (x == kInt64Min && y == -1)) {
          undefined = true;
          return 0;
        }
        return x / y;
      });
      break;
    case ElementwiseOp::kMod:
      e = apply2(a, a_shape, b, b_shape, out, [&undefined](I x, I y) -> I {
        if (y == 0) {
          undefined = true;
          return 0;
        }
        if (y == -1) return 0;  // INT64_MIN % -1 is undefined in C++
        const I r = x % y;
        return r != 0 && ((r < 0) != (y < 0)) ? r + y : r;
      });
      break;
    case ElementwiseOp::kFmod:
      e = apply2(a, a_shape, b, b_shape, out, [&undefined](I x, I y) -> I {
        if (y == 0) {
          undefined = true;
          return 0;
        }
        return y == -1 ? 0 : x % y;
      });
      break;
    default: return Error::kInvalidArgument;
  }
  if (e != Error::kOk) return e;
  return undefined ? Error::kInvalidArgument : Error::kOk;
}

namespace {

template <typename T>
Error compare(ElementwiseOp op, const T* a, Shape a_shape, const T* b, Shape b_shape,
              std::uint8_t* out) {
  using B = std::uint8_t;
  switch (op) {
    case ElementwiseOp::kEqual:
      return apply2(a, a_shape, b, b_shape, out, [](T x, T y) { return B{x == y}; });
    case ElementwiseOp::kLess:
      return apply2(a, a_shape, b, b_shape, out, [](T x, T y) { return B{x < y}; });
    case ElementwiseOp::kGreater:
      return apply2(a, a_shape, b, b_shape, out, [](T x, T y) { return B{x > y}; });
    case ElementwiseOp::kLessOrEqual:
      return apply2(a, a_shape, b, b_shape, out, [](T x, T y) { return B{x <= y}; });
    case ElementwiseOp::kGreaterOrEqual:
      return apply2(a, a_shape, b, b_shape, out, [](T x, T y) { return B{x >= y}; });
    default: return Error::kInvalidArgument;
  }
}

template <typename Bits>
Error where_as(const std::uint8_t* cond, Shape cond_shape, const void* x, Shape x_shape,
               const void* y, Shape y_shape, void* out) {
  using E = Raw<Bits>;
  return apply<E>(
      {cond_shape, x_shape, y_shape}, static_cast<E*>(out),
      [](std::uint8_t c, E xv, E yv) { return E{c != 0 ? xv.bits : yv.bits}; }, cond,
      static_cast<const E*>(x), static_cast<const E*>(y));
}

}  // namespace

Error compare_float(ElementwiseOp op, const float* a, Shape a_shape, const float* b, Shape b_shape,
                    std::uint8_t* out) {
  return compare(op, a, a_shape, b, b_shape, out);
}

Error compare_int64(ElementwiseOp op, const std::int64_t* a, Shape a_shape, const std::int64_t* b,
                    Shape b_shape, std::uint8_t* out) {
  return compare(op, a, a_shape, b, b_shape, out);
}

Error logical(ElementwiseOp op, const std::uint8_t* a, Shape a_shape, const std::uint8_t* b,
              Shape b_shape, std::uint8_t* out) {
  using B = std::uint8_t;
  switch (op) {
    case ElementwiseOp::kAnd:
      return apply2(a, a_shape, b, b_shape, out, [](B x, B y) { return B{x != 0 && y != 0}; });
    case ElementwiseOp::kOr:
      return apply2(a, a_shape, b, b_shape, out, [](B x, B y) { return B{x != 0 || y != 0}; });
    case ElementwiseOp::kXor:
      return apply2(a, a_shape, b, b_shape, out, [](B x, B y) { return B{(x != 0) != (y != 0)}; });
    default: return Error::kInvalidArgument;
  }
}

Error where(const std::uint8_t* cond, Shape cond_shape, const void* x, Shape x_shape, const void* y,
            Shape y_shape, std::size_t element_size, void* out) {
  switch (element_size) {
    case 1: return where_as<std::uint8_t>(cond, cond_shape, x, x_shape, y, y_shape, out);
    case 2: return where_as<std::uint16_t>(cond, cond_shape, x, x_shape, y, y_shape, out);
    case 4: return where_as<std::uint32_t>(cond, cond_shape, x, x_shape, y, y_shape, out);
    case 8: return where_as<std::uint64_t>(cond, cond_shape, x, x_shape, y, y_shape, out);
    default: return Error::kInvalidArgument;
  }
}

}  // namespace glassbox::runtime::kernels
