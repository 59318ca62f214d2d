// The op -> kernel table: each kernel's prepare accepts exactly the calls
// its kernel can run (reporting why not), and run computes what a direct
// call of the portable kernel does.

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "glassbox/aot/ops.h"
#include "glassbox/runtime/kernel_registry.h"
#include "glassbox/runtime/kernels/conv.h"
#include "glassbox/runtime/kernels/conv_pool3d.h"
#include "glassbox/runtime/kernels/elementwise.h"
#include "glassbox/runtime/kernels/gemm.h"
#include "glassbox/runtime/kernels/normalization.h"
#include "glassbox/runtime/kernels/pooling.h"
#include "glassbox/runtime/kernels/shape_ops.h"
#include "program_generated.h"
#include "src/testing/status_matchers.h"

namespace glassbox::runtime {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;

using Sizes = std::vector<std::int64_t>;

// Deterministic, varied, non-symmetric values (no RNG needed: the kernels
// are compared with themselves, not with a tolerance).
std::vector<float> ramp(std::size_t n, float scale = 0.25f) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = scale * static_cast<float>(static_cast<int>(i % 7) - 3) + 0.01f * static_cast<float>(i);
  return v;
}

std::size_t count(const Sizes& sizes) {
  std::size_t n = 1;
  for (std::int64_t s : sizes) n *= static_cast<std::size_t>(s);
  return n;
}

// A float tensor over its own buffer. Not copyable: the Tensor points into
// the members.
class TestTensor {
 public:
  explicit TestTensor(Sizes sizes) : TestTensor(sizes, ramp(count(sizes))) {}
  TestTensor(Sizes sizes, std::vector<float> values)
      : sizes_(std::move(sizes)), values_(std::move(values)) {
    tensor_.dtype = ScalarType::kFloat;
    tensor_.sizes = sizes_;
    tensor_.data = values_.empty() ? nullptr : values_.data();
    tensor_.nbytes = values_.size() * sizeof(float);
  }
  TestTensor(const TestTensor&) = delete;
  TestTensor& operator=(const TestTensor&) = delete;

  Tensor* get() { return &tensor_; }
  Tensor& tensor() { return tensor_; }
  const std::vector<float>& values() const { return values_; }
  float* data() { return values_.data(); }
  const Sizes& sizes() const { return sizes_; }

 private:
  Sizes sizes_;
  std::vector<float> values_;
  Tensor tensor_;
};

// One kernel call: tensors, attributes in a real KernelCall FlatBuffer, and
// the scratch prepare asked for (64-byte aligned, as the runtime gives it).
class Call {
 public:
  explicit Call(const char* op) : op_(op) {}

  Call& in(TestTensor& t) { return in(t.get()); }
  Call& in(Tensor* t) {
    inputs_.push_back(t);
    return *this;
  }
  Call& out(TestTensor& t) {
    outputs_.push_back(t.get());
    return *this;
  }
  Call& attr_int(const char* name, std::int64_t v) {
    attrs_.push_back(gbx::CreateAttributeDirect(fbb_, name, gbx::AttributeKind::Int, v));
    return *this;
  }
  Call& attr_float(const char* name, double v) {
    attrs_.push_back(gbx::CreateAttributeDirect(fbb_, name, gbx::AttributeKind::Float, 0, v));
    return *this;
  }
  Call& attr_ints(const char* name, const Sizes& v) {
    attrs_.push_back(gbx::CreateAttributeDirect(fbb_, name, gbx::AttributeKind::Ints, 0, 0.0, &v));
    return *this;
  }
  Call& attr_string(const char* name, const char* v) {
    attrs_.push_back(
        gbx::CreateAttributeDirect(fbb_, name, gbx::AttributeKind::String, 0, 0.0, nullptr, v));
    return *this;
  }

  // Validates the call; message() says why it failed.
  Result<std::size_t> prepare() {
    finish();
    const Kernel* kernel = find_kernel(op_);
    if (kernel == nullptr) return make_error(Error::kNotFound, "no kernel");
    diagnostics_ = Diagnostics{};
    Result<std::size_t> r = kernel->prepare(args(), &diagnostics_);
    if (r.ok()) scratch_.assign((*r + sizeof(Block) - 1) / sizeof(Block), {});
    return r;
  }

  // prepare(), which must succeed, then run.
  Error run() {
    Result<std::size_t> r = prepare();
    EXPECT_THAT(r, IsOk()) << message();
    if (!r.ok()) return r.error();
    return find_kernel(op_)->run(
        args(), Span<std::uint8_t>(reinterpret_cast<std::uint8_t*>(scratch_.data()), *r));
  }

  std::string message() const { return diagnostics_.message; }
  const KernelAttributes& attributes() {
    finish();
    return attributes_;
  }

 private:
  struct alignas(64) Block {
    std::uint8_t bytes[64];
  };

  void finish() {
    if (finished_) return;
    finished_ = true;
    fbb_.Finish(
        gbx::CreateKernelCall(fbb_, fbb_.CreateString(op_), 0, 0, fbb_.CreateVector(attrs_)));
    attributes_ = KernelAttributes(
        flatbuffers::GetRoot<gbx::KernelCall>(fbb_.GetBufferPointer())->attributes());
  }
  KernelArgs args() { return KernelArgs{inputs_, outputs_, &attributes_}; }

  const char* op_;
  flatbuffers::FlatBufferBuilder fbb_;
  std::vector<flatbuffers::Offset<gbx::Attribute>> attrs_;
  bool finished_ = false;
  KernelAttributes attributes_{nullptr};
  std::vector<Tensor*> inputs_;
  std::vector<Tensor*> outputs_;
  Diagnostics diagnostics_;
  std::vector<Block> scratch_;
};

// prepare() fails with kInvalidArgument and exactly `message`.
void expect_rejected(Call& call, const std::string& message) {
  Result<std::size_t> r = call.prepare();
  EXPECT_THAT(r, ErrorIs(Error::kInvalidArgument));
  EXPECT_EQ(call.message(), message);
}

kernels::Shape4 shape4(const TestTensor& t) {
  return {t.sizes()[0], t.sizes()[1], t.sizes()[2], t.sizes()[3]};
}

// Scratch for direct kernel calls.
std::vector<float> scratch_floats(std::size_t bytes) {
  return std::vector<float>(bytes / sizeof(float) + 1);
}

// ---- The table ------------------------------------------------------------

TEST(KernelRegistryTest, EveryAotOpHasAKernel) {
  namespace op = aot::op;
  for (std::string_view name : {op::kConv2d,
                                op::kRelu,
                                op::kClamp,
                                op::kSigmoid,
                                op::kHardswish,
                                op::kTan,
                                op::kSin,
                                op::kCos,
                                op::kAdd,
                                op::kSub,
                                op::kMul,
                                op::kDiv,
                                op::kLinear,
                                op::kMatmul,
                                op::kMaxPool2d,
                                op::kAvgPool2d,
                                op::kGlobalAvgPool2d,
                                op::kBatchNorm,
                                op::kFlatten,
                                op::kReshape,
                                op::kConcat,
                                op::kSoftmax,
                                std::string_view("hardsigmoid"),
                                std::string_view("transpose")}) {
    const std::string s(name);
    const Kernel* kernel = find_kernel(s.c_str());
    ASSERT_NE(kernel, nullptr) << s;
    EXPECT_EQ(std::string_view(kernel->op), name);
    EXPECT_NE(kernel->prepare, nullptr);
    EXPECT_NE(kernel->run, nullptr);
  }
  // A delegate call is an instruction of its own, never a kernel.
  EXPECT_EQ(find_kernel(std::string(op::kDelegateCall).c_str()), nullptr);
}

TEST(KernelRegistryTest, UnknownOpsAreNotFound) {
  EXPECT_EQ(find_kernel("nope"), nullptr);
  EXPECT_EQ(find_kernel(""), nullptr);
  EXPECT_EQ(find_kernel("relu6"), nullptr);
  EXPECT_EQ(find_kernel("a"), nullptr);
  EXPECT_EQ(find_kernel("zzz"), nullptr);
  EXPECT_EQ(find_kernel(nullptr), nullptr);
}

// ---- KernelAttributes -----------------------------------------------------

TEST(KernelAttributesTest, ReadsEachKindAndFallsBack) {
  Call call("relu");
  call.attr_int("i", 7).attr_float("f", 0.5).attr_ints("l", {1, -2, 3});
  const KernelAttributes& a = call.attributes();
  EXPECT_EQ(*a.get_int("i", 0), 7);
  EXPECT_EQ(*a.get_int("missing", 42), 42);
  EXPECT_EQ(*a.get_float("f", 0.0), 0.5);
  EXPECT_EQ(*a.get_float("i", 0.0), 7.0);  // An Int reads as a float.
  EXPECT_EQ(*a.get_float("missing", 2.5), 2.5);
  const Span<const std::int64_t> l = *a.get_ints("l");
  EXPECT_EQ(Sizes(l.begin(), l.end()), (Sizes{1, -2, 3}));
  EXPECT_TRUE(a.get_ints("missing")->empty());
}

TEST(KernelAttributesTest, RejectsAnotherKind) {
  Call call("relu");
  call.attr_int("i", 7).attr_float("f", 0.5).attr_ints("l", {1}).attr_string("s", "x");
  const KernelAttributes& a = call.attributes();
  EXPECT_THAT(a.get_int("f", 0), ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(a.get_int("l", 0), ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(a.get_float("l", 0), ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(a.get_float("s", 0), ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(a.get_ints("i"), ErrorIs(Error::kInvalidArgument));
}

TEST(KernelAttributesTest, NullVectorMeansNoAttributes) {
  const KernelAttributes a(nullptr);
  EXPECT_EQ(*a.get_int("x", 3), 3);
  EXPECT_EQ(*a.get_float("x", 1.5), 1.5);
  EXPECT_TRUE(a.get_ints("x")->empty());
}

TEST(KernelAttributesTest, EmptyIntsAttributeIsEmpty) {
  Call call("relu");
  call.attr_ints("l", {});
  EXPECT_TRUE(call.attributes().get_ints("l")->empty());
}

// ---- Checks every kernel shares -------------------------------------------

TEST(PortableOpsTest, RejectsNonFloatTensors) {
  TestTensor x({2}), y({2});
  x.tensor().dtype = ScalarType::kLong;
  Call call("relu");
  call.in(x).out(y);
  expect_rejected(call, "relu: input 0 has dtype LONG, only FLOAT is supported");
}

TEST(PortableOpsTest, RejectsMissingData) {
  TestTensor x({2, 3}), y({2, 3});
  y.tensor().data = nullptr;
  Call call("sigmoid");
  call.in(x).out(y);
  expect_rejected(call, "sigmoid: output 0 [2,3] has no data for its 6 elements");
}

TEST(PortableOpsTest, RejectsShortBuffers) {
  TestTensor x({2, 3}), y({2, 3});
  x.tensor().nbytes = 5 * sizeof(float);
  Call call("sigmoid");
  call.in(x).out(y);
  expect_rejected(call, "sigmoid: input 0 [2,3] has no data for its 6 elements");
}

TEST(PortableOpsTest, RejectsNegativeSizes) {
  TestTensor x({2}), y({2});
  const Sizes bad{2, -1};
  x.tensor().sizes = bad;
  Call call("relu");
  call.in(x).out(y);
  expect_rejected(call, "relu: input 0 has invalid shape [2,-1]");
}

TEST(PortableOpsTest, RejectsWrongOutputCount) {
  TestTensor x({2}), y({2}), z({2});
  Call call("relu");
  call.in(x).out(y).out(z);
  expect_rejected(call, "relu: expects 1 output, got 2");
}

TEST(PortableOpsTest, RejectsPartialOverlap) {
  TestTensor x({4}), y({4}, {});
  // Claims a full buffer, but starts halfway into the input's.
  y.tensor().data = x.data() + 2;
  y.tensor().nbytes = x.tensor().nbytes;
  Call call("relu");
  call.in(x).out(y);
  expect_rejected(call, "relu: output overlaps input 0 in memory");
}

TEST(PortableOpsTest, LongShapesAreTruncatedInMessages) {
  TestTensor x({1}), y({1});
  // Many 10-digit sizes; the leading 0 keeps their product representable.
  Sizes big(30, 1);
  big[0] = 0;
  for (std::size_t i = 1; i < big.size(); ++i) big[i] = 1000000000;
  x.tensor().sizes = big;
  Call call("relu");
  call.in(x).out(y);
  EXPECT_FALSE(call.prepare().ok());
  // Whatever the wording, the shape is cut with an ellipsis, not overrun.
  EXPECT_NE(call.message().find(",...]"), std::string::npos) << call.message();
}

// ---- conv2d ---------------------------------------------------------------

TEST(PortableOpsTest, Conv2dMatchesKernel) {
  TestTensor x({1, 4, 7, 6}), w({6, 2, 3, 3}), b({6}), y({1, 6, 4, 3});
  Call call("conv2d");
  call.in(x).in(w).in(b).out(y);
  call.attr_ints("stride", {2, 2})
      .attr_ints("padding", {1, 1})
      .attr_ints("dilation", {1, 1})
      .attr_int("groups", 2);
  ASSERT_EQ(call.run(), Error::kOk) << call.message();

  kernels::Conv2dParams p;
  p.stride_h = p.stride_w = 2;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  p.groups = 2;
  std::vector<float> want(y.values().size());
  std::vector<float> scratch =
      scratch_floats(kernels::conv2d_scratch_bytes(shape4(x), shape4(w), p));
  ASSERT_EQ(
      kernels::conv2d(x.data(), shape4(x), w.data(), shape4(w), b.data(), p, want.data(), scratch),
      Error::kOk);
  EXPECT_EQ(y.values(), want);
}

TEST(PortableOpsTest, Conv2dAsymmetricPaddingAndDefaults) {
  // No attributes but padding [top, left, bottom, right] (ONNX order).
  TestTensor x({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  TestTensor w({1, 1, 2, 2}, {1, 1, 1, 1});
  TestTensor y({1, 1, 3, 2});
  Call call("conv2d");
  call.in(x).in(w).out(y).attr_ints("padding", {1, 0, 0, 0});
  ASSERT_EQ(call.run(), Error::kOk) << call.message();
  // Row -1 is padding: the first output row sums only input row 0.
  EXPECT_EQ(y.values(), (std::vector<float>{3, 5, 12, 16, 24, 28}));
}

TEST(PortableOpsTest, Conv2dRejectsWrongOutputShape) {
  TestTensor x({1, 3, 32, 32}), w({16, 3, 3, 3}), y({1, 16, 32, 32});
  Call call("conv2d");
  call.in(x).in(w).out(y);
  expect_rejected(call,
                  "conv2d: output shape [1,16,32,32] does not match the "
                  "computed [1,16,30,30]");
}

TEST(PortableOpsTest, Conv2dRejectsWrongInputCount) {
  TestTensor x({1, 3, 4, 4}), y({1, 3, 4, 4});
  Call call("conv2d");
  call.in(x).out(y);
  expect_rejected(call, "conv2d: expects 2 to 3 inputs, got 1");
}

TEST(PortableOpsTest, Conv2dRejectsWrongAttributeKind) {
  TestTensor x({1, 2, 4, 4}), w({2, 1, 3, 3}), y({1, 2, 2, 2});
  Call call("conv2d");
  call.in(x).in(w).out(y).attr_float("groups", 2.0);
  expect_rejected(call, "conv2d: attribute 'groups' must be an int");
}

TEST(PortableOpsTest, Conv2dRejectsBadAttributes) {
  TestTensor x({1, 2, 4, 4}), w({2, 1, 3, 3}), b({3}), y({1, 2, 2, 2});
  {
    Call call("conv2d");
    call.in(x).in(w).out(y).attr_ints("stride", {0, 1});
    expect_rejected(call,
                    "conv2d: attribute 'stride' [0,1] must be in [1, "
                    "2147483647]");
  }
  {
    Call call("conv2d");
    call.in(x).in(w).out(y).attr_ints("padding", {1, 1, 1});
    expect_rejected(call,
                    "conv2d: attribute 'padding' must have 2 or 4 entries, "
                    "got [1,1,1]");
  }
  {
    Call call("conv2d");
    call.in(x).in(w).out(y).attr_int("groups", 0);
    expect_rejected(call, "conv2d: attribute 'groups' is 0, must be >= 1");
  }
  {
    Call call("conv2d");  // weight.c * groups != C
    call.in(x).in(w).out(y);
    expect_rejected(call,
                    "conv2d: input [1,2,4,4] and weight [2,1,3,3] do not fit "
                    "stride [1,1], padding [0,0,0,0], dilation [1,1], groups "
                    "1 (conv2d: channels vs groups)");
  }
  {
    Call call("conv2d");
    call.in(x).in(w).in(b).out(y).attr_int("groups", 2);
    expect_rejected(call, "conv2d: bias (input 2) must have shape [2], got [3]");
  }
  {
    TestTensor x3({1, 2, 4});
    Call call("conv2d");
    call.in(x3).in(w).out(y);
    expect_rejected(call, "conv2d: input (input 0) must have rank 4, got [1,2,4]");
  }
}

// ---- pooling --------------------------------------------------------------

// conv1d runs on the 2-D kernel with a height of 1: checked here against
// the 1-D definition, grouped, strided, dilated and padded unevenly.
TEST(PortableOpsTest, Conv1dMatchesTheDefinition) {
  constexpr std::int64_t kIn = 20, kOut = 5, kTaps = 5, kStride = 3, kDilation = 2, kPadBegin = 2;
  TestTensor x({1, 4, kIn}), w({6, 2, kTaps}), b({6}), y({1, 6, kOut});
  Call call("conv1d");
  call.in(x).in(w).in(b).out(y);
  call.attr_ints("stride", {kStride}).attr_ints("padding", {kPadBegin, 1});
  call.attr_ints("dilation", {kDilation}).attr_int("groups", 2);
  ASSERT_EQ(call.run(), Error::kOk) << call.message();
  for (std::int64_t oc = 0; oc < 6; ++oc) {
    for (std::int64_t o = 0; o < kOut; ++o) {
      double want = b.values()[static_cast<std::size_t>(oc)];
      for (std::int64_t i = 0; i < 2; ++i) {
        const std::int64_t ic = oc / 3 * 2 + i;
        for (std::int64_t k = 0; k < kTaps; ++k) {
          const std::int64_t at = o * kStride - kPadBegin + k * kDilation;
          if (at < 0 || at >= kIn) continue;
          want += static_cast<double>(x.values()[static_cast<std::size_t>(ic * kIn + at)]) *
                  w.values()[static_cast<std::size_t>((oc * 2 + i) * kTaps + k)];
        }
      }
      EXPECT_NEAR(y.values()[static_cast<std::size_t>(oc * kOut + o)], want, 1e-5)
          << oc << ", " << o;
    }
  }
}

TEST(PortableOpsTest, Pool1dCeilModeAndCountIncludePad) {
  TestTensor x({1, 1, 6}, {1, 5, 2, 8, 3, -4});
  {
    // Windows [-1, 2), [1, 4), [3, 6), [5, 8) (ceil mode adds the last).
    TestTensor y({1, 1, 4});
    Call call("max_pool1d");
    call.in(x).out(y).attr_ints("kernel", {3}).attr_ints("stride", {2});
    call.attr_ints("padding", {1}).attr_int("ceil_mode", 1);
    ASSERT_EQ(call.run(), Error::kOk) << call.message();
    EXPECT_EQ(y.values(), (std::vector<float>{5, 8, 8, -4}));
  }
  {
    // count_include_pad: the divisor counts the begin pad and the end pad,
    // not what ceil mode adds beyond it.
    TestTensor y({1, 1, 4});
    Call call("avg_pool1d");
    call.in(x).out(y).attr_ints("kernel", {3}).attr_ints("stride", {2});
    call.attr_ints("padding", {1}).attr_int("ceil_mode", 1).attr_int("count_include_pad", 1);
    ASSERT_EQ(call.run(), Error::kOk) << call.message();
    EXPECT_EQ(y.values(), (std::vector<float>{2, 5, 7.0f / 3, -2}));
  }
  TestTensor y({1, 1, 3});
  Call call("max_pool1d");
  call.in(x).out(y).attr_ints("kernel", {3, 3});
  expect_rejected(call, "max_pool1d: attribute 'kernel' must have 1 entry, got [3,3]");
}

TEST(PortableOpsTest, Conv3dAndPool3dMatchKernels) {
  TestTensor x({1, 2, 4, 5, 6}), w({3, 2, 3, 2, 3}), y({1, 3, 2, 5, 3});
  Call call("conv3d");
  call.in(x).in(w).out(y).attr_ints("stride", {2, 1, 2}).attr_ints("padding", {1, 1, 1, 0, 0, 1});
  ASSERT_EQ(call.run(), Error::kOk) << call.message();
  kernels::Conv3dParams p;
  p.stride = {2, 1, 2};
  p.pad_begin = {1, 1, 1};
  p.pad_end = {0, 0, 1};
  std::vector<float> want(y.values().size());
  ASSERT_EQ(kernels::conv3d(x.data(), {1, 2, 4, 5, 6}, w.data(), {3, 2, 3, 2, 3}, nullptr, p,
                            want.data()),
            Error::kOk);
  EXPECT_EQ(y.values(), want);

  TestTensor pooled({1, 2, 2, 2, 3});
  Call pool("max_pool3d");
  pool.in(x).out(pooled).attr_ints("kernel", {2, 2, 2}).attr_ints("stride", {2, 2, 2});
  ASSERT_EQ(pool.run(), Error::kOk) << pool.message();
  kernels::Pool3dParams q;
  q.kernel = {2, 2, 2};
  q.stride = {2, 2, 2};
  std::vector<float> max(pooled.values().size());
  ASSERT_EQ(kernels::max_pool3d(x.data(), {1, 2, 4, 5, 6}, q, max.data()), Error::kOk);
  EXPECT_EQ(pooled.values(), max);

  TestTensor wrong({1, 3, 2, 5, 4});
  Call rejected("conv3d");
  rejected.in(x).in(w).out(wrong).attr_ints("stride", {2, 1, 2});
  rejected.attr_ints("padding", {1, 1, 1, 0, 0, 1});
  expect_rejected(rejected,
                  "conv3d: output shape [1,3,2,5,4] does not match the computed [1,3,2,5,3]");
}

TEST(PortableOpsTest, MaxPool2dMatchesKernel) {
  TestTensor x({2, 3, 7, 7}), y({2, 3, 3, 3});
  Call call("max_pool2d");
  call.in(x).out(y);
  call.attr_ints("kernel", {3, 3})
      .attr_ints("stride", {2, 2})
      .attr_ints("padding", {1, 1})
      .attr_ints("dilation", {2, 2})
      .attr_int("ceil_mode", 1);
  ASSERT_EQ(call.run(), Error::kOk) << call.message();

  kernels::Pool2dParams p;
  p.kernel_h = p.kernel_w = 3;
  p.stride_h = p.stride_w = 2;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  p.dilation_h = p.dilation_w = 2;
  p.ceil_mode = true;
  std::vector<float> want(y.values().size());
  ASSERT_EQ(kernels::max_pool2d(x.data(), shape4(x), p, want.data()), Error::kOk);
  EXPECT_EQ(y.values(), want);
}

TEST(PortableOpsTest, AvgPool2dCountIncludePad) {
  TestTensor x({1, 1, 2, 2}, {1, 2, 3, 4});
  TestTensor with_pad({1, 1, 2, 2}), without_pad({1, 1, 2, 2});
  {
    Call call("avg_pool2d");  // count_include_pad defaults to 1 (PyTorch).
    call.in(x).out(with_pad);
    call.attr_ints("kernel", {2, 2}).attr_ints("padding", {1, 1}).attr_ints("stride", {2, 2});
    ASSERT_EQ(call.run(), Error::kOk) << call.message();
  }
  {
    Call call("avg_pool2d");
    call.in(x).out(without_pad);
    call.attr_ints("kernel", {2, 2})
        .attr_ints("padding", {1, 1})
        .attr_ints("stride", {2, 2})
        .attr_int("count_include_pad", 0);
    ASSERT_EQ(call.run(), Error::kOk) << call.message();
  }
  // Each 2x2 window holds one input element and three padded positions.
  EXPECT_EQ(with_pad.values(), (std::vector<float>{0.25f, 0.5f, 0.75f, 1.0f}));
  EXPECT_EQ(without_pad.values(), (std::vector<float>{1, 2, 3, 4}));
}

TEST(PortableOpsTest, PoolRejectsBadCalls) {
  TestTensor x({1, 1, 4, 4}), y({1, 1, 2, 2});
  {
    Call call("max_pool2d");
    call.in(x).out(y);
    expect_rejected(call, "max_pool2d: attribute 'kernel' is required");
  }
  {
    Call call("max_pool2d");
    call.in(x).out(y).attr_ints("kernel", {2, 2});
    expect_rejected(call,
                    "max_pool2d: output shape [1,1,2,2] does not match the "
                    "computed [1,1,3,3]");
  }
  {
    Call call("max_pool2d");
    call.in(x).out(y).attr_ints("kernel", {2, 2}).attr_int("ceil_mode", 2);
    expect_rejected(call, "max_pool2d: attribute 'ceil_mode' is 2, must be 0 or 1");
  }
  {
    Call call("avg_pool2d");
    call.in(x).out(y).attr_ints("kernel", {2, 2}).attr_ints("dilation", {2, 2});
    expect_rejected(call,
                    "avg_pool2d: attribute 'dilation' must be [1,1], got "
                    "[2,2]");
  }
  {
    Call call("avg_pool2d");
    call.in(x).out(y).attr_ints("kernel", {2, 2}).attr_float("count_include_pad", 1.0);
    expect_rejected(call, "avg_pool2d: attribute 'count_include_pad' must be an int");
  }
  {
    Call call("avg_pool2d");
    call.in(x).out(y).attr_ints("kernel", {5, 5});
    expect_rejected(call,
                    "avg_pool2d: input [1,1,4,4] does not fit kernel [5,5], "
                    "stride [1,1], padding [0,0,0,0], dilation [1,1] "
                    "(pool2d: window exceeds input)");
  }
  {
    Call call("avg_pool2d");
    call.in(x).in(x).out(y).attr_ints("kernel", {2, 2});
    expect_rejected(call, "avg_pool2d: expects 1 input, got 2");
  }
}

TEST(PortableOpsTest, GlobalAvgPool2d) {
  TestTensor x({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), y({1, 2, 1, 1});
  Call call("global_avg_pool2d");
  call.in(x).out(y);
  ASSERT_EQ(call.run(), Error::kOk) << call.message();
  EXPECT_EQ(y.values(), (std::vector<float>{2.5f, 6.5f}));

  TestTensor wrong({1, 2, 2, 2});
  Call bad("global_avg_pool2d");
  bad.in(x).out(wrong);
  expect_rejected(bad,
                  "global_avg_pool2d: output shape [1,2,2,2] does not match "
                  "the computed [1,2,1,1]");
}

// ---- linear, matmul -------------------------------------------------------

TEST(PortableOpsTest, LinearMatchesKernel) {
  TestTensor x({2, 3, 5}), w({4, 5}), b({4}), y({2, 3, 4});
  Call call("linear");
  call.in(x).in(w).in(b).out(y);
  ASSERT_EQ(call.run(), Error::kOk) << call.message();

  std::vector<float> want(y.values().size());
  std::vector<float> scratch = scratch_floats(kernels::linear_scratch_bytes(6, 4, 5));
  ASSERT_EQ(kernels::linear(x.data(), 6, 5, w.data(), 4, b.data(), want.data(), scratch),
            Error::kOk);
  EXPECT_EQ(y.values(), want);
}

TEST(PortableOpsTest, LinearRejectsBadCalls) {
  TestTensor x({2, 5}), w({4, 6}), y({2, 4});
  {
    Call call("linear");
    call.in(x).in(w).out(y);
    expect_rejected(call,
                    "linear: weight [4,6] does not match input [2,5] "
                    "(in_features 5)");
  }
  TestTensor w5({4, 5}), b({3}), y5({2, 5});
  {
    Call call("linear");
    call.in(x).in(w5).in(b).out(y);
    expect_rejected(call, "linear: bias (input 2) must have shape [4], got [3]");
  }
  {
    Call call("linear");
    call.in(x).in(w5).out(y5);
    expect_rejected(call,
                    "linear: output shape [2,5] does not match the computed "
                    "[2,4]");
  }
  {
    Call call("linear");
    call.in(x).out(y);
    expect_rejected(call, "linear: expects 2 to 3 inputs, got 1");
  }
}

TEST(PortableOpsTest, MatmulMatchesKernel) {
  TestTensor a({2, 1, 3, 4}), b({3, 4, 5}), y({2, 3, 3, 5});
  Call call("matmul");
  call.in(a).in(b).out(y);
  ASSERT_EQ(call.run(), Error::kOk) << call.message();

  std::vector<float> want(y.values().size());
  std::vector<float> scratch = scratch_floats(kernels::matmul_scratch_bytes(a.sizes(), b.sizes()));
  ASSERT_EQ(kernels::matmul(a.data(), a.sizes(), b.data(), b.sizes(), want.data(), scratch),
            Error::kOk);
  EXPECT_EQ(y.values(), want);

  TestTensor c({3, 5, 5});
  Call bad("matmul");
  bad.in(a).in(c).out(y);
  expect_rejected(bad,
                  "matmul: cannot multiply [2,1,3,4] by [3,5,5] (matmul inner "
                  "dims differ)");
}

// ---- element-wise ---------------------------------------------------------

TEST(PortableOpsTest, UnaryOpsMatchKernels) {
  using UnaryKernel = Error (*)(const float*, float*, std::int64_t);
  const std::pair<const char*, UnaryKernel> cases[] = {
      {"relu", kernels::relu}, {"sigmoid", kernels::sigmoid}, {"hardswish", kernels::hardswish},
      {"tan", kernels::tan},   {"sin", kernels::sin},         {"cos", kernels::cos},
  };
  for (const auto& [op, kernel] : cases) {
    SCOPED_TRACE(op);
    TestTensor x({2, 3, 4}, ramp(24, 2.0f)), y({2, 3, 4});
    Call call(op);
    call.in(x).out(y);
    ASSERT_EQ(call.run(), Error::kOk) << call.message();
    std::vector<float> want(24);
    ASSERT_EQ(kernel(x.data(), want.data(), 24), Error::kOk);
    EXPECT_EQ(y.values(), want);

    // In place: the planner may give the output the input's buffer.
    Call in_place(op);
    in_place.in(x).out(x);
    ASSERT_EQ(in_place.run(), Error::kOk) << in_place.message();
    EXPECT_EQ(x.values(), want);

    TestTensor wrong({2, 12});
    Call bad(op);
    bad.in(x).out(wrong);
    expect_rejected(bad, std::string(op) +
                             ": output shape [2,12] does not match the "
                             "computed [2,3,4]");
  }
}

TEST(PortableOpsTest, Clamp) {
  TestTensor x({5}, {-2, -0.5f, 0, 0.5f, 2}), y({5});
  Call call("clamp");
  // Int bounds read as floats: exporters write clamp(min=0) that way.
  call.in(x).out(y).attr_int("min", 0).attr_float("max", 1.0);
  ASSERT_EQ(call.run(), Error::kOk) << call.message();
  EXPECT_EQ(y.values(), (std::vector<float>{0, 0, 0, 0.5f, 1}));

  TestTensor z({5});
  Call upper_only("clamp");  // A missing bound is unbounded.
  upper_only.in(x).out(z).attr_float("max", 0.25);
  ASSERT_EQ(upper_only.run(), Error::kOk) << upper_only.message();
  EXPECT_EQ(z.values(), (std::vector<float>{-2, -0.5f, 0, 0.25f, 0.25f}));

  Call huge("clamp");  // Beyond float range saturates, no UB.
  huge.in(x).out(z).attr_float("min", -1e300).attr_float("max", 1e300);
  ASSERT_EQ(huge.run(), Error::kOk) << huge.message();
  EXPECT_EQ(z.values(), x.values());

  Call inverted("clamp");
  inverted.in(x).out(y).attr_float("min", 1.0).attr_float("max", 0.0);
  expect_rejected(inverted, "clamp: attributes min 1 and max 0 must satisfy min <= max");

  Call nan("clamp");
  nan.in(x).out(y).attr_float("min", std::numeric_limits<double>::quiet_NaN());
  expect_rejected(nan,
                  "clamp: attributes min nan and max inf must satisfy min <= "
                  "max");

  Call kind("clamp");
  kind.in(x).out(y).attr_ints("min", {0});
  expect_rejected(kind, "clamp: attribute 'min' must be a float");

  Call count("clamp");
  count.in(x).in(x).out(y);
  expect_rejected(count, "clamp: expects 1 input, got 2");
}

TEST(PortableOpsTest, Hardsigmoid) {
  TestTensor x({4}, {-5, 0, 1, 5}), y({4}), z({4});
  Call onnx_defaults("hardsigmoid");
  onnx_defaults.in(x).out(y);
  ASSERT_EQ(onnx_defaults.run(), Error::kOk) << onnx_defaults.message();
  EXPECT_EQ(y.values(), (std::vector<float>{0, 0.5f, 0.7f, 1}));

  Call pytorch("hardsigmoid");
  pytorch.in(x).out(z).attr_float("alpha", 1.0 / 6.0).attr_float("beta", 0.5);
  ASSERT_EQ(pytorch.run(), Error::kOk) << pytorch.message();
  std::vector<float> want(4);
  ASSERT_EQ(kernels::hardsigmoid(x.data(), want.data(), 4, 1.0f / 6.0f, 0.5f), Error::kOk);
  EXPECT_EQ(z.values(), want);

  Call bad("hardsigmoid");
  bad.in(x).out(y).attr_float("alpha", std::numeric_limits<double>::infinity());
  expect_rejected(bad,
                  "hardsigmoid: attributes alpha inf and beta 0.5 must be "
                  "finite");
}

TEST(PortableOpsTest, BinaryOpsBroadcast) {
  const std::pair<const char*, kernels::BinaryOp> cases[] = {
      {"add", kernels::BinaryOp::kAdd},
      {"sub", kernels::BinaryOp::kSub},
      {"mul", kernels::BinaryOp::kMul},
      {"div", kernels::BinaryOp::kDiv},
  };
  for (const auto& [op, binary_op] : cases) {
    SCOPED_TRACE(op);
    TestTensor a({2, 1, 3}), b({4, 1}, {1, 2, 3, 4}), y({2, 4, 3});
    Call call(op);
    call.in(a).in(b).out(y);
    ASSERT_EQ(call.run(), Error::kOk) << call.message();
    std::vector<float> want(y.values().size());
    ASSERT_EQ(kernels::binary(binary_op, a.data(), a.sizes(), b.data(), b.sizes(), want.data()),
              Error::kOk);
    EXPECT_EQ(y.values(), want);

    TestTensor c({2, 3}), wrong({2, 3});
    Call mismatch(op);
    mismatch.in(a).in(c).out(wrong);
    expect_rejected(mismatch, std::string(op) +
                                  ": output shape [2,3] does not match the "
                                  "computed [2,2,3]");

    Call no_broadcast(op);
    no_broadcast.in(c).in(b).out(wrong);
    expect_rejected(no_broadcast, std::string(op) +
                                      ": shapes [2,3] and [4,1] do not broadcast (shapes do "
                                      "not broadcast)");

    // In place only into an input of the output's shape.
    TestTensor same({2, 4, 3});
    Call in_place(op);
    in_place.in(same).in(b).out(same);
    EXPECT_TRUE(in_place.prepare().ok()) << in_place.message();
  }
}

TEST(PortableOpsTest, BinaryRejectsAliasingABroadcastInput) {
  // Output [2,2] sharing the buffer of input b [2,1] (smaller) is not in
  // place: the kernel would overwrite b before reading all of it.
  TestTensor a({2, 2}), storage({4});
  Tensor b = storage.tensor();
  const Sizes b_sizes{2, 1};
  b.sizes = b_sizes;
  TestTensor out({2, 2});
  out.tensor().data = storage.data();
  Call call("mul");
  call.in(a).in(&b).out(out);
  expect_rejected(call, "mul: output overlaps input 1 in memory");
}

// ---- batch_norm, softmax --------------------------------------------------

TEST(PortableOpsTest, BatchNorm) {
  TestTensor x({2, 3, 4, 5}), mean({3}, {0.1f, -0.2f, 0.3f}), var({3}, {1, 2, 0.5f}),
      weight({3}, {1, 0.5f, 2}), bias({3}, {0, 1, -1}), y({2, 3, 4, 5});
  Call call("batch_norm");
  call.in(x).in(mean).in(var).in(weight).in(bias).out(y).attr_float("eps", 1e-3);
  ASSERT_EQ(call.run(), Error::kOk) << call.message();
  std::vector<float> want(y.values().size());
  ASSERT_EQ(kernels::batch_norm(x.data(), shape4(x), mean.data(), var.data(), weight.data(),
                                bias.data(), 1e-3f, want.data()),
            Error::kOk);
  EXPECT_EQ(y.values(), want);
}

TEST(PortableOpsTest, BatchNormOtherRanks) {
  // [N, C] and [N, C, L]: trailing dims are one plane per channel.
  TestTensor x({2, 2}, {1, 2, 3, 4}), mean({2}, {1, 2}), var({2}, {1, 1}), weight({2}, {2, 3}),
      bias({2}, {0.5f, -0.5f}), y({2, 2});
  Call call("batch_norm");
  call.in(x).in(mean).in(var).in(weight).in(bias).out(y).attr_float("eps", 0);
  ASSERT_EQ(call.run(), Error::kOk) << call.message();
  EXPECT_EQ(y.values(), (std::vector<float>{0.5f, -0.5f, 4.5f, 5.5f}));

  TestTensor x3({1, 2, 3}, {1, 1, 1, 2, 2, 2}), y3({1, 2, 3});
  Call rank3("batch_norm");
  rank3.in(x3).in(mean).in(var).in(weight).in(bias).out(y3).attr_float("eps", 0);
  ASSERT_EQ(rank3.run(), Error::kOk) << rank3.message();
  EXPECT_EQ(y3.values(), (std::vector<float>{0.5f, 0.5f, 0.5f, -0.5f, -0.5f, -0.5f}));
}

TEST(PortableOpsTest, BatchNormRejectsBadCalls) {
  TestTensor x({1, 3, 2, 2}), c3({3}), c2({2}), y({1, 3, 2, 2});
  {
    Call call("batch_norm");
    call.in(x).in(c3).in(c2).in(c3).in(c3).out(y);
    expect_rejected(call, "batch_norm: var (input 2) must have shape [3], got [2]");
  }
  {
    Call call("batch_norm");
    call.in(x).in(c3).in(c3).in(c3).in(c3).out(y).attr_float("eps", -1);
    expect_rejected(call,
                    "batch_norm: attribute 'eps' is -1, must be finite and "
                    ">= 0");
  }
  {
    Call call("batch_norm");
    call.in(x).in(c3).in(c3).in(c3).out(y);
    expect_rejected(call, "batch_norm: expects 5 inputs, got 4");
  }
  {
    TestTensor v({3});
    Call call("batch_norm");
    call.in(v).in(c3).in(c3).in(c3).in(c3).out(v);
    expect_rejected(call, "batch_norm: input [3] must have rank >= 2");
  }
}

TEST(PortableOpsTest, Softmax) {
  TestTensor x({2, 3, 4}), y({2, 3, 4}), z({2, 3, 4});
  Call call("softmax");
  call.in(x).out(y).attr_int("axis", 1);
  ASSERT_EQ(call.run(), Error::kOk) << call.message();
  std::vector<float> want(24);
  ASSERT_EQ(kernels::softmax(x.data(), x.sizes(), 1, want.data()), Error::kOk);
  EXPECT_EQ(y.values(), want);

  Call last("softmax");  // The default axis is the last one.
  last.in(x).out(z);
  ASSERT_EQ(last.run(), Error::kOk) << last.message();
  ASSERT_EQ(kernels::softmax(x.data(), x.sizes(), -1, want.data()), Error::kOk);
  EXPECT_EQ(z.values(), want);

  Call bad("softmax");
  bad.in(x).out(y).attr_int("axis", 3);
  expect_rejected(bad, "softmax: attribute 'axis' 3 is out of range for rank 3");

  Call kind("softmax");
  kind.in(x).out(y).attr_float("axis", 1);
  expect_rejected(kind, "softmax: attribute 'axis' must be an int");
}

// ---- shape ops ------------------------------------------------------------

TEST(PortableOpsTest, Flatten) {
  TestTensor x({2, 3, 4}), y({2, 12});
  Call call("flatten");
  call.in(x).out(y).attr_int("start_dim", 1).attr_int("end_dim", -1);
  ASSERT_EQ(call.run(), Error::kOk) << call.message();
  EXPECT_EQ(y.values(), x.values());

  // The planner may alias the output to the input: nothing to copy.
  TestTensor alias({2, 12}, {});
  alias.tensor().data = x.data();
  alias.tensor().nbytes = x.tensor().nbytes;
  Call in_place("flatten");
  in_place.in(x).out(alias).attr_int("start_dim", 1);
  EXPECT_EQ(in_place.run(), Error::kOk) << in_place.message();

  TestTensor all({24});
  Call defaults("flatten");  // start_dim 0, end_dim -1.
  defaults.in(x).out(all);
  EXPECT_EQ(defaults.run(), Error::kOk) << defaults.message();

  Call wrong("flatten");
  wrong.in(x).out(all).attr_int("start_dim", 1);
  expect_rejected(wrong,
                  "flatten: output shape [24] does not match the computed "
                  "[2,12]");

  Call range("flatten");
  range.in(x).out(y).attr_int("start_dim", 2).attr_int("end_dim", 1);
  expect_rejected(range,
                  "flatten: start_dim 2 and end_dim 1 do not fit input [2,3,4] "
                  "(flatten: bad dims)");
}

TEST(PortableOpsTest, Reshape) {
  TestTensor x({2, 3, 4}), y({4, 6});
  Call call("reshape");
  call.in(x).out(y).attr_ints("shape", {4, -1});
  ASSERT_EQ(call.run(), Error::kOk) << call.message();
  EXPECT_EQ(y.values(), x.values());

  Call mismatch("reshape");
  mismatch.in(x).out(y).attr_ints("shape", {6, -1});
  expect_rejected(mismatch,
                  "reshape: output shape [4,6] does not match the computed "
                  "[6,4]");

  Call two_inferred("reshape");
  two_inferred.in(x).out(y).attr_ints("shape", {-1, -1});
  expect_rejected(two_inferred, "reshape: attribute 'shape' [-1,-1] has a bad dimension");

  Call bad_count("reshape");
  bad_count.in(x).out(y).attr_ints("shape", {5, -1});
  expect_rejected(bad_count,
                  "reshape: cannot reshape input [2,3,4] to attribute 'shape' "
                  "[5,-1]");

  Call kind("reshape");
  kind.in(x).out(y).attr_int("shape", 24);
  expect_rejected(kind, "reshape: attribute 'shape' must be an int list");

  TestTensor overlap({4, 6}, {});
  overlap.tensor().data = x.data() + 1;
  overlap.tensor().nbytes = x.tensor().nbytes;
  Call partial("reshape");
  partial.in(x).out(overlap).attr_ints("shape", {4, 6});
  expect_rejected(partial, "reshape: output overlaps input 0 in memory");
}

TEST(PortableOpsTest, ConcatMatchesKernel) {
  TestTensor a({2, 1, 3}), b({2, 2, 3}, ramp(12, 1.0f)), c({2, 3, 3}), y({2, 6, 3});
  Call call("concat");
  call.in(a).in(b).in(c).out(y).attr_int("axis", -2);
  Result<std::size_t> scratch = call.prepare();
  ASSERT_THAT(scratch, IsOk()) << call.message();
  EXPECT_GE(*scratch, 3 * sizeof(kernels::ConstTensor));
  ASSERT_EQ(call.run(), Error::kOk) << call.message();

  const kernels::ConstTensor inputs[] = {
      {a.data(), a.sizes()}, {b.data(), b.sizes()}, {c.data(), c.sizes()}};
  std::vector<float> want(y.values().size());
  ASSERT_EQ(kernels::concat(inputs, 1, want.data()), Error::kOk);
  EXPECT_EQ(y.values(), want);

  TestTensor single_out({2, 1, 3});
  Call single("concat");
  single.in(a).out(single_out).attr_int("axis", 1);
  ASSERT_EQ(single.run(), Error::kOk) << single.message();
  EXPECT_EQ(single_out.values(), a.values());
}

TEST(PortableOpsTest, ConcatRejectsBadCalls) {
  TestTensor a({2, 1, 3}), b({3, 2, 3}), y({2, 3, 3});
  Call mismatch("concat");
  mismatch.in(a).in(b).out(y).attr_int("axis", 1);
  expect_rejected(mismatch,
                  "concat: input 1 [3,2,3] does not join [2,1,3] along axis 1 "
                  "(concat: sizes differ)");

  Call axis("concat");
  axis.in(a).out(y).attr_int("axis", 3);
  expect_rejected(axis,
                  "concat: axis 3 does not fit input 0 [2,1,3] (axis out of "
                  "range)");

  Call none("concat");
  none.out(y);
  expect_rejected(none, "concat: expects at least 1 input, got 0");

  TestTensor b2({2, 2, 3}), wrong({2, 4, 3});
  Call shape("concat");
  shape.in(a).in(b2).out(wrong).attr_int("axis", 1);
  expect_rejected(shape,
                  "concat: output shape [2,4,3] does not match the computed "
                  "[2,3,3]");
}

TEST(PortableOpsTest, Transpose) {
  TestTensor x({2, 3, 4}), y({4, 2, 3});
  Call call("transpose");
  call.in(x).out(y).attr_ints("perm", {2, 0, 1});
  ASSERT_EQ(call.run(), Error::kOk) << call.message();
  const Sizes perm{2, 0, 1};
  std::vector<float> want(24);
  ASSERT_EQ(kernels::transpose(x.data(), x.sizes(), perm, want.data()), Error::kOk);
  EXPECT_EQ(y.values(), want);

  TestTensor reversed({4, 3, 2});
  Call onnx_default("transpose");  // No perm: reverse the dims (ONNX).
  onnx_default.in(x).out(reversed);
  ASSERT_EQ(onnx_default.run(), Error::kOk) << onnx_default.message();
  const Sizes reverse{2, 1, 0};
  ASSERT_EQ(kernels::transpose(x.data(), x.sizes(), reverse, want.data()), Error::kOk);
  EXPECT_EQ(reversed.values(), want);

  Call bad("transpose");
  bad.in(x).out(y).attr_ints("perm", {0, 0, 1});
  expect_rejected(bad,
                  "transpose: attribute 'perm' [0,0,1] does not permute input "
                  "[2,3,4] (transpose: not a permutation)");

  Call shape("transpose");
  shape.in(x).out(reversed).attr_ints("perm", {2, 0, 1});
  expect_rejected(shape,
                  "transpose: output shape [4,3,2] does not match the "
                  "computed [4,2,3]");
}

}  // namespace
}  // namespace glassbox::runtime
