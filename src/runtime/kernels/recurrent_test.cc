#include "glassbox/runtime/kernels/recurrent.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "src/runtime/kernels/kernels_test_util.h"

namespace glassbox::runtime::kernels {
namespace {

using testing::random_floats;
using Kind = RnnActivationKind;

// ---- The reference: ONNX's equations per batch entry, direction and time
// step, in double, with straightforward loops over the weight rows.

double act(const RnnActivation& a, double v) {
  switch (a.kind) {
    case Kind::kSigmoid: return 1.0 / (1.0 + std::exp(-v));
    case Kind::kTanh: return std::tanh(v);
    case Kind::kRelu: return v < 0 ? 0.0 : v;
    case Kind::kAffine: return a.alpha * v + a.beta;
    case Kind::kLeakyRelu: return v < 0 ? a.alpha * v : v;
    case Kind::kThresholdedRelu: return v > a.alpha ? v : 0.0;
    case Kind::kScaledTanh: return a.alpha * std::tanh(a.beta * v);
    case Kind::kHardSigmoid: return std::clamp(a.alpha * v + a.beta, 0.0, 1.0);
    case Kind::kElu: return v < 0 ? a.alpha * (std::exp(v) - 1.0) : v;
    case Kind::kSoftsign: return v / (1.0 + std::abs(v));
    case Kind::kSoftplus: return std::log(1.0 + std::exp(v));
  }
  return v;
}

struct Case {
  RnnParams p;
  bool bias = false, seq_lens = false, initial = false, peepholes = false;
};

struct Inputs {
  std::vector<float> x, w, r, b, h0, c0, p;
  std::vector<std::int64_t> lens;
};

struct Outputs {
  std::vector<float> y, y_h, y_c;
};

std::int64_t dirs_of(const RnnParams& p) {
  return p.direction == RnnDirection::kBidirectional ? 2 : 1;
}

Inputs make_inputs(const Case& c, std::uint32_t seed) {
  const RnnParams& p = c.p;
  const std::int64_t d = dirs_of(p), g = rnn_gate_count(p.cell), h = p.hidden_size;
  const auto n = [](std::int64_t v) { return static_cast<std::size_t>(v); };
  Inputs in;
  in.x = random_floats(n(p.seq_length * p.batch * p.input_size), seed);
  in.w = random_floats(n(d * g * h * p.input_size), seed + 1, -0.6f, 0.6f);
  in.r = random_floats(n(d * g * h * h), seed + 2, -0.6f, 0.6f);
  if (c.bias) in.b = random_floats(n(d * 2 * g * h), seed + 3, -0.5f, 0.5f);
  if (c.initial) {
    in.h0 = random_floats(n(d * p.batch * h), seed + 4);
    if (p.cell == RnnCell::kLstm) in.c0 = random_floats(n(d * p.batch * h), seed + 5);
  }
  if (c.peepholes) in.p = random_floats(n(d * 3 * h), seed + 6, -0.5f, 0.5f);
  if (c.seq_lens) {
    // Every length from full down to 0 when the batch allows.
    for (std::int64_t b = 0; b < p.batch; ++b)
      in.lens.push_back(std::max<std::int64_t>(0, p.seq_length - b));
  }
  return in;
}

Outputs reference(const Case& c, const Inputs& in) {
  const RnnParams& p = c.p;
  const std::int64_t dirs = dirs_of(p), gates = rnn_gate_count(p.cell), hid = p.hidden_size;
  const std::int64_t steps = p.seq_length, batch = p.batch, isz = p.input_size;
  Outputs out;
  out.y.assign(static_cast<std::size_t>(steps * dirs * batch * hid), 0.0f);
  out.y_h.assign(static_cast<std::size_t>(dirs * batch * hid), 0.0f);
  out.y_c.assign(out.y_h.size(), 0.0f);
  const auto x_at = [&](std::int64_t t, std::int64_t b, std::int64_t k) {
    return p.batch_major ? in.x[static_cast<std::size_t>((b * steps + t) * isz + k)]
                         : in.x[static_cast<std::size_t>((t * batch + b) * isz + k)];
  };
  const auto state_index = [&](std::int64_t d, std::int64_t b, std::int64_t k) {
    return static_cast<std::size_t>((p.batch_major ? (b * dirs + d) * hid : (d * batch + b) * hid) +
                                    k);
  };
  const auto y_index = [&](std::int64_t t, std::int64_t d, std::int64_t b, std::int64_t k) {
    return static_cast<std::size_t>(
        (p.batch_major ? ((b * steps + t) * dirs + d) * hid : ((t * dirs + d) * batch + b) * hid) +
        k);
  };
  const std::size_t per_dir = rnn_activation_count(p.cell);
  const auto clip = [&](double v) {
    return p.clip > 0 ? std::clamp(v, -static_cast<double>(p.clip), static_cast<double>(p.clip))
                      : v;
  };
  for (std::int64_t d = 0; d < dirs; ++d) {
    const bool reverse = p.direction == RnnDirection::kReverse || d == 1;
    const RnnActivation* a = p.activations + static_cast<std::size_t>(d) * per_dir;
    // W row `row` of gate `gate` times x_t (and R times h) plus both biases.
    const auto wx = [&](std::int64_t gate, std::int64_t j, std::int64_t t, std::int64_t b) {
      double s = 0;
      for (std::int64_t k = 0; k < isz; ++k) {
        s += in.w[static_cast<std::size_t>(((d * gates + gate) * hid + j) * isz + k)] *
             static_cast<double>(x_at(t, b, k));
      }
      if (!in.b.empty()) s += in.b[static_cast<std::size_t>(d * 2 * gates * hid + gate * hid + j)];
      return s;
    };
    const auto rh = [&](std::int64_t gate, std::int64_t j, const std::vector<double>& h) {
      double s = 0;
      for (std::int64_t k = 0; k < hid; ++k) {
        s += in.r[static_cast<std::size_t>(((d * gates + gate) * hid + j) * hid + k)] *
             h[static_cast<std::size_t>(k)];
      }
      if (!in.b.empty()) {
        s += in.b[static_cast<std::size_t>(d * 2 * gates * hid + (gates + gate) * hid + j)];
      }
      return s;
    };
    const auto peep = [&](std::int64_t which, std::int64_t j) {
      return in.p.empty() ? 0.0 : in.p[static_cast<std::size_t>(d * 3 * hid + which * hid + j)];
    };
    for (std::int64_t b = 0; b < batch; ++b) {
      std::vector<double> h(static_cast<std::size_t>(hid), 0.0), cell = h;
      for (std::int64_t j = 0; j < hid; ++j) {
        if (!in.h0.empty()) h[static_cast<std::size_t>(j)] = in.h0[state_index(d, b, j)];
        if (!in.c0.empty()) cell[static_cast<std::size_t>(j)] = in.c0[state_index(d, b, j)];
      }
      const std::int64_t len = in.lens.empty() ? steps : in.lens[static_cast<std::size_t>(b)];
      for (std::int64_t s = 0; s < len; ++s) {
        const std::int64_t t = reverse ? len - 1 - s : s;
        std::vector<double> next(static_cast<std::size_t>(hid)), next_c = cell;
        for (std::int64_t j = 0; j < hid; ++j) {
          const auto J = static_cast<std::size_t>(j);
          if (p.cell == RnnCell::kRnn) {
            next[J] = act(a[0], clip(wx(0, j, t, b) + rh(0, j, h)));
          } else if (p.cell == RnnCell::kGru) {
            const double z = act(a[0], clip(wx(0, j, t, b) + rh(0, j, h)));
            double pre_h;
            if (p.linear_before_reset) {
              const double r = act(a[0], clip(wx(1, j, t, b) + rh(1, j, h)));
              pre_h = wx(2, j, t, b) + r * rh(2, j, h);
            } else {
              // (r * h) Rh: every r_k is needed, so compute them here.
              std::vector<double> rh_vec(static_cast<std::size_t>(hid));
              for (std::int64_t k = 0; k < hid; ++k) {
                rh_vec[static_cast<std::size_t>(k)] =
                    act(a[0], clip(wx(1, k, t, b) + rh(1, k, h))) * h[static_cast<std::size_t>(k)];
              }
              pre_h = wx(2, j, t, b) + rh(2, j, rh_vec);
            }
            const double cand = act(a[1], clip(pre_h));
            next[J] = (1 - z) * cand + z * h[J];
          } else {
            const double i = act(a[0], clip(wx(0, j, t, b) + rh(0, j, h) + peep(0, j) * cell[J]));
            const double f =
                p.input_forget
                    ? 1 - i
                    : act(a[0], clip(wx(2, j, t, b) + rh(2, j, h) + peep(2, j) * cell[J]));
            const double g = act(a[1], clip(wx(3, j, t, b) + rh(3, j, h)));
            next_c[J] = f * cell[J] + i * g;
            const double o = act(a[0], clip(wx(1, j, t, b) + rh(1, j, h) + peep(1, j) * next_c[J]));
            next[J] = o * act(a[2], next_c[J]);
          }
        }
        h = next;
        cell = next_c;
        for (std::int64_t j = 0; j < hid; ++j) {
          out.y[y_index(t, d, b, j)] = static_cast<float>(h[static_cast<std::size_t>(j)]);
        }
      }
      for (std::int64_t j = 0; j < hid; ++j) {
        out.y_h[state_index(d, b, j)] = static_cast<float>(h[static_cast<std::size_t>(j)]);
        out.y_c[state_index(d, b, j)] = static_cast<float>(cell[static_cast<std::size_t>(j)]);
      }
    }
  }
  return out;
}

Outputs run_kernel(const Case& c, const Inputs& in) {
  const RnnParams& p = c.p;
  const std::int64_t dirs = dirs_of(p);
  Outputs out;
  out.y.assign(static_cast<std::size_t>(p.seq_length * dirs * p.batch * p.hidden_size), -7.0f);
  out.y_h.assign(static_cast<std::size_t>(dirs * p.batch * p.hidden_size), -7.0f);
  if (p.cell == RnnCell::kLstm) out.y_c.assign(out.y_h.size(), -7.0f);
  RnnTensors t;
  const auto data = [](const auto& v) { return v.empty() ? nullptr : v.data(); };
  t.x = in.x.data();
  t.w = in.w.data();
  t.r = in.r.data();
  t.b = data(in.b);
  t.seq_lens = data(in.lens);
  t.initial_h = data(in.h0);
  t.initial_c = data(in.c0);
  t.p = data(in.p);
  t.y = out.y.data();
  t.y_h = out.y_h.data();
  t.y_c = out.y_c.empty() ? nullptr : out.y_c.data();
  std::vector<float> scratch(rnn_scratch_bytes(p) / sizeof(float));
  EXPECT_EQ(rnn(p, t, Span<float>(scratch.data(), scratch.size())), Error::kOk);
  return out;
}

void expect_near(const std::vector<float>& got, const std::vector<float>& want,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int failures = 0;
  for (std::size_t i = 0; i < got.size() && failures < 5; ++i) {
    if (!(std::abs(got[i] - want[i]) <= 2e-5f + 2e-5f * std::abs(want[i]))) {
      ++failures;
      ADD_FAILURE() << what << " [" << i << "]: got " << got[i] << ", want " << want[i];
    }
  }
}

void check(const Case& c, const std::string& name, std::uint32_t seed = 7) {
  const Inputs in = make_inputs(c, seed);
  const Outputs want = reference(c, in);
  const Outputs got = run_kernel(c, in);
  expect_near(got.y, want.y, name + " Y");
  expect_near(got.y_h, want.y_h, name + " Y_h");
  if (c.p.cell == RnnCell::kLstm) expect_near(got.y_c, want.y_c, name + " Y_c");
}

RnnParams params(RnnCell cell, RnnDirection direction, bool batch_major) {
  RnnParams p;
  p.cell = cell;
  p.direction = direction;
  p.seq_length = 5;
  p.batch = 3;
  p.input_size = 4;
  p.hidden_size = 6;
  p.batch_major = batch_major;
  const std::size_t per_dir = rnn_activation_count(cell);
  const RnnActivation defaults[3] = {
      {cell == RnnCell::kRnn ? Kind::kTanh : Kind::kSigmoid}, {Kind::kTanh}, {Kind::kTanh}};
  for (std::size_t d = 0; d < 2; ++d) {
    for (std::size_t i = 0; i < per_dir; ++i) p.activations[d * per_dir + i] = defaults[i];
  }
  return p;
}

constexpr RnnCell kCells[] = {RnnCell::kLstm, RnnCell::kGru, RnnCell::kRnn};
constexpr RnnDirection kDirections[] = {RnnDirection::kForward, RnnDirection::kReverse,
                                        RnnDirection::kBidirectional};

std::string label(RnnCell cell, RnnDirection d, bool batch_major) {
  const char* cells[] = {"rnn", "gru", "lstm"};
  const char* dirs[] = {"forward", "reverse", "bidirectional"};
  return std::string(cells[static_cast<int>(cell)]) + " " + dirs[static_cast<int>(d)] +
         (batch_major ? " layout 1" : " layout 0");
}

TEST(RecurrentTest, EveryCellDirectionAndLayoutMatchesTheReference) {
  for (RnnCell cell : kCells) {
    for (RnnDirection d : kDirections) {
      for (bool batch_major : {false, true}) {
        Case plain{params(cell, d, batch_major)};
        check(plain, label(cell, d, batch_major) + " defaults");
        Case full = plain;
        full.bias = full.initial = full.seq_lens = true;
        full.peepholes = cell == RnnCell::kLstm;
        check(full, label(cell, d, batch_major) + " bias, initial states, sequence_lens");
      }
    }
  }
}

TEST(RecurrentTest, SequenceLengthsZeroTheTailAndKeepTheLastState) {
  // Batch entry 2 has length 3 of 5: Y's steps 3 and 4 are zero for it in
  // both directions, and Y_h is the state after its own last step.
  for (RnnCell cell : kCells) {
    Case c{params(cell, RnnDirection::kBidirectional, false)};
    c.seq_lens = c.bias = true;
    const Inputs in = make_inputs(c, 11);
    ASSERT_EQ(in.lens[2], 3);
    const Outputs got = run_kernel(c, in);
    const std::int64_t h = c.p.hidden_size, n = c.p.batch;
    for (std::int64_t t = 3; t < 5; ++t) {
      for (std::int64_t d = 0; d < 2; ++d) {
        for (std::int64_t j = 0; j < h; ++j) {
          EXPECT_EQ(got.y[static_cast<std::size_t>(((t * 2 + d) * n + 2) * h + j)], 0.0f);
        }
      }
    }
    // Forward Y_h of entry 2 equals its Y at step 2; reverse Y_h its Y at 0.
    for (std::int64_t j = 0; j < h; ++j) {
      EXPECT_EQ(got.y_h[static_cast<std::size_t>((0 * n + 2) * h + j)],
                got.y[static_cast<std::size_t>(((2 * 2 + 0) * n + 2) * h + j)]);
      EXPECT_EQ(got.y_h[static_cast<std::size_t>((1 * n + 2) * h + j)],
                got.y[static_cast<std::size_t>(((0 * 2 + 1) * n + 2) * h + j)]);
    }
    check(c, label(c.p.cell, c.p.direction, false) + " lengths", 11);
  }
}

TEST(RecurrentTest, ClipBoundsEveryGatePreActivation) {
  for (RnnCell cell : kCells) {
    for (RnnDirection d : kDirections) {
      Case c{params(cell, d, false)};
      c.bias = c.initial = true;
      c.peepholes = cell == RnnCell::kLstm;
      c.p.clip = 0.3f;
      check(c, label(cell, d, false) + " clip 0.3");
    }
  }
}

TEST(RecurrentTest, ActivationsAndTheirParameters) {
  // Each direction its own functions, with the parameters ONNX defines.
  const RnnActivation kSets[][3] = {
      {{Kind::kHardSigmoid, 0.2f, 0.5f}, {Kind::kRelu}, {Kind::kSoftsign}},
      {{Kind::kSigmoid}, {Kind::kLeakyRelu, 0.1f}, {Kind::kElu, 0.7f}},
      {{Kind::kAffine, 0.5f, 0.25f}, {Kind::kScaledTanh, 1.5f, 0.8f}, {Kind::kSoftplus}},
      {{Kind::kSigmoid}, {Kind::kThresholdedRelu, 0.1f}, {Kind::kTanh}},
  };
  for (RnnCell cell : kCells) {
    for (std::size_t s = 0; s + 1 < std::size(kSets); ++s) {
      Case c{params(cell, RnnDirection::kBidirectional, true)};
      c.bias = c.initial = true;
      const std::size_t per_dir = rnn_activation_count(cell);
      for (std::size_t i = 0; i < per_dir; ++i) {
        c.p.activations[i] = kSets[s][i];
        c.p.activations[per_dir + i] = kSets[s + 1][i];
      }
      check(c, label(cell, c.p.direction, true) + " activation set " + std::to_string(s));
    }
  }
}

TEST(RecurrentTest, LstmInputForgetAndGruLinearBeforeReset) {
  for (RnnDirection d : kDirections) {
    Case lstm{params(RnnCell::kLstm, d, false)};
    lstm.bias = lstm.initial = lstm.peepholes = lstm.seq_lens = true;
    lstm.p.input_forget = true;
    check(lstm, label(RnnCell::kLstm, d, false) + " input_forget");
    Case gru{params(RnnCell::kGru, d, true)};
    gru.bias = gru.initial = gru.seq_lens = true;
    gru.p.linear_before_reset = true;
    check(gru, label(RnnCell::kGru, d, true) + " linear_before_reset");
  }
}

TEST(RecurrentTest, RejectsBadArguments) {
  Case c{params(RnnCell::kGru, RnnDirection::kForward, false)};
  Inputs in = make_inputs(c, 3);
  std::vector<float> y(5 * 3 * 6), y_h(3 * 6), c0(3 * 6);
  std::vector<float> scratch(rnn_scratch_bytes(c.p) / sizeof(float));
  const Span<float> s(scratch.data(), scratch.size());
  RnnTensors t;
  t.x = in.x.data();
  t.w = in.w.data();
  t.r = in.r.data();
  t.y = y.data();
  t.y_h = y_h.data();
  EXPECT_EQ(rnn(c.p, t, s), Error::kOk);
  RnnTensors with_c = t;
  with_c.initial_c = c0.data();
  EXPECT_EQ(rnn(c.p, with_c, s), Error::kInvalidArgument) << "a GRU has no cell state";
  const std::int64_t bad_lens[] = {5, 6, 0};
  RnnTensors long_seq = t;
  long_seq.seq_lens = bad_lens;
  EXPECT_EQ(rnn(c.p, long_seq, s), Error::kInvalidArgument) << "length 6 of 5 steps";
  EXPECT_EQ(rnn(c.p, t, Span<float>(scratch.data(), scratch.size() - 1)), Error::kInvalidArgument);
  RnnParams negative = c.p;
  negative.hidden_size = -1;
  EXPECT_EQ(rnn_scratch_bytes(negative), 0u);
  EXPECT_EQ(rnn(negative, t, s), Error::kInvalidArgument);
}

}  // namespace
}  // namespace glassbox::runtime::kernels
