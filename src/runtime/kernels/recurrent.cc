#include "glassbox/runtime/kernels/recurrent.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "glassbox/runtime/kernels/elementwise.h"
#include "glassbox/runtime/kernels/elementwise_ext.h"
#include "glassbox/runtime/kernels/gemm.h"

namespace glassbox::runtime::kernels {

void rnn_activate(const RnnActivation& a, float* v, std::int64_t n) {
  switch (a.kind) {
    case RnnActivationKind::kSigmoid: (void)sigmoid(v, v, n); return;
    case RnnActivationKind::kTanh: (void)tanh(v, v, n); return;
    case RnnActivationKind::kRelu: (void)relu(v, v, n); return;
    case RnnActivationKind::kSoftsign: (void)softsign(v, v, n); return;
    case RnnActivationKind::kSoftplus: (void)softplus(v, v, n); return;
    case RnnActivationKind::kHardSigmoid: (void)hardsigmoid(v, v, n, a.alpha, a.beta); return;
    case RnnActivationKind::kAffine:
      for (std::int64_t i = 0; i < n; ++i) v[i] = a.alpha * v[i] + a.beta;
      return;
    case RnnActivationKind::kLeakyRelu:
      for (std::int64_t i = 0; i < n; ++i) v[i] = v[i] < 0 ? a.alpha * v[i] : v[i];
      return;
    case RnnActivationKind::kThresholdedRelu:
      for (std::int64_t i = 0; i < n; ++i) v[i] = v[i] > a.alpha ? v[i] : 0.0f;
      return;
    case RnnActivationKind::kScaledTanh:
      for (std::int64_t i = 0; i < n; ++i) v[i] = a.alpha * std::tanh(a.beta * v[i]);
      return;
    case RnnActivationKind::kElu:
      for (std::int64_t i = 0; i < n; ++i) v[i] = v[i] < 0 ? a.alpha * std::expm1(v[i]) : v[i];
      return;
  }
}

void rnn_clip(float clip, float* v, std::int64_t n) {
  if (!(clip > 0)) return;
  for (std::int64_t i = 0; i < n; ++i) v[i] = std::min(clip, std::max(-clip, v[i]));
}

namespace {

constexpr std::int64_t kMaxElements = std::int64_t{1} << 40;

// Scratch, in floats, carved in this order (each block rounded up to 16
// floats so the GEMM's packing area stays 64-byte aligned):
//   xw    [T*N, G*H]  x W^T + Wb for every step of one direction
//   hr    [N, G*H]    h R^T + Rb for the current step
//   h, c  [N, H]      the state
//   tmp   [N, H]      GRU: r * h, then its product with Rh
//   gemm  the larger of the two linears' packing scratch
struct Layout {
  std::int64_t xw = 0, hr = 0, h = 0, c = 0, tmp = 0, gemm = 0, total = 0;
  std::size_t gemm_bytes = 0;
};

std::int64_t round16(std::int64_t n) { return (n + 15) / 16 * 16; }

bool layout_of(const RnnParams& p, Layout* out) {
  const std::int64_t t = p.seq_length, n = p.batch, in = p.input_size, hid = p.hidden_size;
  if (t < 0 || n < 0 || in < 0 || hid < 0) return false;
  const std::int64_t g = rnn_gate_count(p.cell);
  for (std::int64_t v : {t, n, in, hid}) {
    if (v > (std::int64_t{1} << 31)) return false;
  }
  if (t * n > kMaxElements / std::max<std::int64_t>(1, g * hid) || n * hid > kMaxElements ||
      g * hid * std::max(in, hid) > kMaxElements) {
    return false;
  }
  Layout l;
  l.xw = 0;
  l.hr = l.xw + round16(t * n * g * hid);
  l.h = l.hr + round16(n * g * hid);
  l.c = l.h + round16(n * hid);
  l.tmp = l.c + round16(n * hid);
  l.gemm = l.tmp + round16(n * hid);
  l.gemm_bytes =
      std::max(linear_scratch_bytes(t * n, g * hid, in), linear_scratch_bytes(n, g * hid, hid));
  l.total = l.gemm + static_cast<std::int64_t>((l.gemm_bytes + sizeof(float) - 1) / sizeof(float));
  *out = l;
  return true;
}

// One direction of one layer: the state, the sizes and where its slices
// of every tensor start.
struct Direction {
  const RnnParams* p;
  const RnnTensors* t;
  std::int64_t d = 0;  // 0 forward, 1 the reverse half of a bidirectional layer
  std::int64_t dirs = 1;
  bool reverse = false;
  const RnnActivation* act = nullptr;

  std::int64_t gh() const { return rnn_gate_count(p->cell) * p->hidden_size; }
  // Offsets of (d, n) in initial_h / y_h and of (t, d, n) in y.
  std::int64_t state_at(std::int64_t n) const {
    return (p->batch_major ? n * dirs + d : d * p->batch + n) * p->hidden_size;
  }
  std::int64_t y_at(std::int64_t step, std::int64_t n) const {
    return (p->batch_major ? (n * p->seq_length + step) * dirs + d
                           : (step * dirs + d) * p->batch + n) *
           p->hidden_size;
  }
  std::int64_t x_row(std::int64_t step, std::int64_t n) const {
    return p->batch_major ? n * p->seq_length + step : step * p->batch + n;
  }
  std::int64_t length(std::int64_t n) const {
    return t->seq_lens != nullptr ? t->seq_lens[n] : p->seq_length;
  }
};

// The gate block `gate` of row `row` in a [rows, G*H] buffer.
float* gate_of(float* base, std::int64_t row, std::int64_t gh, std::int64_t gate,
               std::int64_t hid) {
  return base + row * gh + gate * hid;
}

void lstm_step(const Direction& dir, const float* xw, float* hr, float* h, float* c) {
  const std::int64_t hid = dir.p->hidden_size;
  const float* peep = dir.t->p != nullptr ? dir.t->p + dir.d * 3 * hid : nullptr;
  const float clip = dir.p->clip;
  for (std::int64_t k = 0; k < dir.gh(); ++k) hr[k] += xw[k];
  float* gi = hr;
  float* go = hr + hid;
  float* gf = hr + 2 * hid;
  float* gc = hr + 3 * hid;
  if (peep != nullptr) {
    for (std::int64_t k = 0; k < hid; ++k) {
      gi[k] += peep[k] * c[k];
      gf[k] += peep[2 * hid + k] * c[k];
    }
  }
  rnn_clip(clip, gi, hid);
  rnn_clip(clip, gf, hid);
  rnn_clip(clip, gc, hid);
  rnn_activate(dir.act[0], gi, hid);
  if (dir.p->input_forget) {
    for (std::int64_t k = 0; k < hid; ++k) gf[k] = 1.0f - gi[k];
  } else {
    rnn_activate(dir.act[0], gf, hid);
  }
  rnn_activate(dir.act[1], gc, hid);
  for (std::int64_t k = 0; k < hid; ++k) c[k] = gf[k] * c[k] + gi[k] * gc[k];
  // o's peephole reads the new cell state.
  if (peep != nullptr) {
    for (std::int64_t k = 0; k < hid; ++k) go[k] += peep[hid + k] * c[k];
  }
  rnn_clip(clip, go, hid);
  rnn_activate(dir.act[0], go, hid);
  // h(c) into gc, which is no longer needed.
  std::memcpy(gc, c, static_cast<std::size_t>(hid) * sizeof(float));
  rnn_activate(dir.act[2], gc, hid);
  for (std::int64_t k = 0; k < hid; ++k) h[k] = go[k] * gc[k];
}

Error run_direction(const Direction& dir, const Layout& l, Span<float> scratch) {
  const RnnParams& p = *dir.p;
  const RnnTensors& t = *dir.t;
  const std::int64_t steps = p.seq_length, batch = p.batch, in = p.input_size, hid = p.hidden_size,
                     gh = dir.gh();
  float* s = scratch.data();
  float* xw = s + l.xw;
  float* hr = s + l.hr;
  float* h = s + l.h;
  float* c = s + l.c;
  float* tmp = s + l.tmp;
  Span<float> gemm(s + l.gemm, scratch.size() - static_cast<std::size_t>(l.gemm));
  const float* w = t.w + dir.d * gh * in;
  const float* r = t.r + dir.d * gh * hid;
  const float* wb = t.b != nullptr ? t.b + dir.d * 2 * gh : nullptr;
  const float* rb = t.b != nullptr ? wb + gh : nullptr;
  const bool gru = p.cell == RnnCell::kGru;
  const bool lstm = p.cell == RnnCell::kLstm;

  // Every step's input projection in one GEMM (x's rows in its own order).
  if (Error e = linear(t.x, steps * batch, in, w, gh, wb, xw, gemm); e != Error::kOk) return e;
  for (std::int64_t n = 0; n < batch; ++n) {
    float* hn = h + n * hid;
    float* cn = c + n * hid;
    if (t.initial_h != nullptr) {
      std::memcpy(hn, t.initial_h + dir.state_at(n), static_cast<std::size_t>(hid) * sizeof(float));
    } else {
      std::fill(hn, hn + hid, 0.0f);
    }
    if (lstm && t.initial_c != nullptr) {
      std::memcpy(cn, t.initial_c + dir.state_at(n), static_cast<std::size_t>(hid) * sizeof(float));
    } else {
      std::fill(cn, cn + hid, 0.0f);
    }
    if (t.y != nullptr) {
      for (std::int64_t step = dir.length(n); step < steps; ++step) {
        std::fill(t.y + dir.y_at(step, n), t.y + dir.y_at(step, n) + hid, 0.0f);
      }
    }
  }

  // GRU without linear_before_reset multiplies r * h before Rh, so its
  // step takes R's z and r rows first and Rh in a second product.
  const std::int64_t first_rows = gru && !p.linear_before_reset ? 2 * hid : gh;
  for (std::int64_t step = 0; step < steps; ++step) {
    if (Error e = linear(h, batch, hid, r, first_rows, rb, hr, gemm); e != Error::kOk) return e;
    if (gru) {
      for (std::int64_t n = 0; n < batch; ++n) {
        if (step >= dir.length(n)) continue;
        const std::int64_t time = dir.reverse ? dir.length(n) - 1 - step : step;
        const float* xr = xw + dir.x_row(time, n) * gh;
        float* zr = hr + n * first_rows;
        for (std::int64_t k = 0; k < 2 * hid; ++k) zr[k] += xr[k];
        rnn_clip(p.clip, zr, 2 * hid);
        rnn_activate(dir.act[0], zr, 2 * hid);
        const float* gate_r = zr + hid;
        float* tn = tmp + n * hid;
        const float* hn = h + n * hid;
        if (p.linear_before_reset) {
          const float* hh = zr + 2 * hid;  // h Rh + Rbh
          for (std::int64_t k = 0; k < hid; ++k) tn[k] = xr[2 * hid + k] + gate_r[k] * hh[k];
        } else {
          for (std::int64_t k = 0; k < hid; ++k) tn[k] = gate_r[k] * hn[k];
        }
      }
      if (!p.linear_before_reset) {
        // (r * h) Rh + Rbh, over the whole batch (idle rows are ignored).
        float* product = hr + batch * first_rows;  // hr has G*H per row: room for [N, H]
        if (Error e = linear(tmp, batch, hid, r + 2 * hid * hid, hid,
                             rb != nullptr ? rb + 2 * hid : nullptr, product, gemm);
            e != Error::kOk) {
          return e;
        }
        for (std::int64_t n = 0; n < batch; ++n) {
          if (step >= dir.length(n)) continue;
          const std::int64_t time = dir.reverse ? dir.length(n) - 1 - step : step;
          const float* xr = xw + dir.x_row(time, n) * gh;
          for (std::int64_t k = 0; k < hid; ++k) {
            tmp[n * hid + k] = xr[2 * hid + k] + product[n * hid + k];
          }
        }
      }
    }
    for (std::int64_t n = 0; n < batch; ++n) {
      if (step >= dir.length(n)) continue;
      const std::int64_t time = dir.reverse ? dir.length(n) - 1 - step : step;
      const float* xr = xw + dir.x_row(time, n) * gh;
      float* hn = h + n * hid;
      if (lstm) {
        lstm_step(dir, xr, gate_of(hr, n, gh, 0, hid), hn, c + n * hid);
      } else if (gru) {
        const float* z = hr + n * first_rows;
        float* cand = tmp + n * hid;
        rnn_clip(p.clip, cand, hid);
        rnn_activate(dir.act[1], cand, hid);
        for (std::int64_t k = 0; k < hid; ++k) hn[k] = (1.0f - z[k]) * cand[k] + z[k] * hn[k];
      } else {
        float* pre = hr + n * gh;
        for (std::int64_t k = 0; k < hid; ++k) pre[k] += xr[k];
        rnn_clip(p.clip, pre, hid);
        rnn_activate(dir.act[0], pre, hid);
        std::memcpy(hn, pre, static_cast<std::size_t>(hid) * sizeof(float));
      }
      if (t.y != nullptr) {
        std::memcpy(t.y + dir.y_at(time, n), hn, static_cast<std::size_t>(hid) * sizeof(float));
      }
    }
  }
  for (std::int64_t n = 0; n < batch; ++n) {
    if (t.y_h != nullptr) {
      std::memcpy(t.y_h + dir.state_at(n), h + n * hid,
                  static_cast<std::size_t>(hid) * sizeof(float));
    }
    if (lstm && t.y_c != nullptr) {
      std::memcpy(t.y_c + dir.state_at(n), c + n * hid,
                  static_cast<std::size_t>(hid) * sizeof(float));
    }
  }
  return Error::kOk;
}

}  // namespace

bool rnn_activation_from_name(const char* name, std::size_t length, RnnActivation* out) {
  struct Named {
    const char* name;
    RnnActivation activation;
  };
  static constexpr Named kNames[] = {
      {"sigmoid", {RnnActivationKind::kSigmoid}},
      {"tanh", {RnnActivationKind::kTanh}},
      {"relu", {RnnActivationKind::kRelu}},
      {"affine", {RnnActivationKind::kAffine, 1.0f, 0.0f}},
      {"leakyrelu", {RnnActivationKind::kLeakyRelu, 0.01f}},
      {"thresholdedrelu", {RnnActivationKind::kThresholdedRelu, 1.0f}},
      {"scaledtanh", {RnnActivationKind::kScaledTanh, 1.0f, 1.0f}},
      {"hardsigmoid", {RnnActivationKind::kHardSigmoid, 0.2f, 0.5f}},
      {"elu", {RnnActivationKind::kElu, 1.0f}},
      {"softsign", {RnnActivationKind::kSoftsign}},
      {"softplus", {RnnActivationKind::kSoftplus}},
  };
  if (name == nullptr) return false;
  for (const Named& n : kNames) {
    if (std::strlen(n.name) != length) continue;
    bool same = true;
    for (std::size_t i = 0; i < length && same; ++i) {
      const char c =
          name[i] >= 'A' && name[i] <= 'Z' ? static_cast<char>(name[i] - 'A' + 'a') : name[i];
      same = c == n.name[i];
    }
    if (same) {
      *out = n.activation;
      return true;
    }
  }
  return false;
}

bool rnn_activation_takes_alpha(RnnActivationKind kind) {
  switch (kind) {
    case RnnActivationKind::kAffine:
    case RnnActivationKind::kLeakyRelu:
    case RnnActivationKind::kThresholdedRelu:
    case RnnActivationKind::kScaledTanh:
    case RnnActivationKind::kHardSigmoid:
    case RnnActivationKind::kElu: return true;
    default: return false;
  }
}

bool rnn_activation_takes_beta(RnnActivationKind kind) {
  return kind == RnnActivationKind::kAffine || kind == RnnActivationKind::kScaledTanh ||
         kind == RnnActivationKind::kHardSigmoid;
}

std::int64_t rnn_gate_count(RnnCell cell) {
  switch (cell) {
    case RnnCell::kLstm: return 4;
    case RnnCell::kGru: return 3;
    case RnnCell::kRnn: return 1;
  }
  return 1;
}

std::size_t rnn_activation_count(RnnCell cell) {
  return static_cast<std::size_t>(cell == RnnCell::kLstm ? 3 : cell == RnnCell::kGru ? 2 : 1);
}

std::size_t rnn_scratch_bytes(const RnnParams& params) {
  Layout l;
  if (!layout_of(params, &l)) return 0;
  return static_cast<std::size_t>(l.total) * sizeof(float);
}

Error rnn(const RnnParams& params, const RnnTensors& tensors, Span<float> scratch) {
  Layout l;
  if (!layout_of(params, &l)) return Error::kInvalidArgument;
  if (scratch.size() < static_cast<std::size_t>(l.total) ||
      (scratch.data() == nullptr && l.total > 0)) {
    return Error::kInvalidArgument;
  }
  const bool lstm = params.cell == RnnCell::kLstm;
  if (!lstm && (tensors.initial_c != nullptr || tensors.p != nullptr || tensors.y_c != nullptr)) {
    return Error::kInvalidArgument;
  }
  const std::int64_t gh = rnn_gate_count(params.cell) * params.hidden_size;
  if ((params.seq_length * params.batch * params.input_size > 0 && tensors.x == nullptr) ||
      (gh * params.input_size > 0 && tensors.w == nullptr) ||
      (gh * params.hidden_size > 0 && tensors.r == nullptr)) {
    return Error::kInvalidArgument;
  }
  if (tensors.seq_lens != nullptr) {
    for (std::int64_t n = 0; n < params.batch; ++n) {
      if (tensors.seq_lens[n] < 0 || tensors.seq_lens[n] > params.seq_length) {
        return Error::kInvalidArgument;
      }
    }
  }
  const std::size_t per_direction = rnn_activation_count(params.cell);
  const std::int64_t dirs = params.direction == RnnDirection::kBidirectional ? 2 : 1;
  for (std::int64_t d = 0; d < dirs; ++d) {
    Direction dir{&params, &tensors};
    dir.d = d;
    dir.dirs = dirs;
    dir.reverse = params.direction == RnnDirection::kReverse || d == 1;
    dir.act = params.activations + static_cast<std::size_t>(d) * per_direction;
    if (Error e = run_direction(dir, l, scratch); e != Error::kOk) return e;
  }
  return Error::kOk;
}

}  // namespace glassbox::runtime::kernels
