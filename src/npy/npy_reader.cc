// The verifying .npy reader: the header dict is parsed with a tiny grammar
// (string keys; string, True/False or int-tuple values), never evaluated.

#include <cctype>
#include <cstring>
#include <iterator>
#include <limits>
#include <map>
#include <optional>

#include "glassbox/io/file.h"
#include "glassbox/npy/npy.h"
#include "src/npy/npy_format.h"

namespace glassbox::npy {
namespace {

using internal::kMagic;
using internal::kMagicSize;
using internal::kPreambleSize;

// Largest header numpy itself would read (format.py's _MAX_HEADER_SIZE is
// 10000); anything bigger is not a real file.
constexpr std::size_t kMaxHeaderSize = 100000;
constexpr std::size_t kMaxRank = 32;  // NPY_MAXDIMS in numpy 1.x.

Status corrupt(const std::string& source, const std::string& what) {
  return Status(Error::kCorruptData, source + ": not a valid .npy file: " + what);
}

// One parsed dict value.
struct HeaderValue {
  std::optional<std::string> text;
  std::optional<bool> flag;
  std::optional<std::vector<std::int64_t>> tuple;
};

class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  StatusOr<std::map<std::string, HeaderValue>> parse_dict() {
    std::map<std::string, HeaderValue> dict;
    skip_space();
    if (!eat('{')) return error("header does not start with '{'");
    for (;;) {
      skip_space();
      if (eat('}')) break;
      GLASSBOX_ASSIGN_OR_RETURN(std::string key, parse_string());
      skip_space();
      if (!eat(':')) return error("expected ':' after key '" + key + "'");
      skip_space();
      GLASSBOX_ASSIGN_OR_RETURN(HeaderValue value, parse_value());
      if (!dict.emplace(key, std::move(value)).second) return error("duplicate key '" + key + "'");
      skip_space();
      if (eat(',')) continue;
      skip_space();
      if (eat('}')) break;
      return error("expected ',' or '}' in the header dict");
    }
    skip_space();
    if (pos_ != text_.size()) return error("trailing characters after the header dict");
    return dict;
  }

 private:
  Status error(const std::string& what) const {
    return corrupt(source_, what + " (header offset " + std::to_string(pos_) + ")");
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool eat_word(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  StatusOr<std::string> parse_string() {
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      return error("expected a quoted string");
    }
    const char quote = text_[pos_++];
    const std::size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) return error("unterminated string");
    std::string s(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return s;
  }

  StatusOr<std::vector<std::int64_t>> parse_tuple() {
    std::vector<std::int64_t> dims;
    for (;;) {
      skip_space();
      if (eat(')')) return dims;
      if (dims.size() >= kMaxRank) return error("shape has more than 32 dims");
      std::int64_t v = 0;
      bool any = false;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        const int digit = text_[pos_++] - '0';
        if (v > (std::numeric_limits<std::int64_t>::max() - digit) / 10) {
          return error("shape dimension too large");
        }
        v = v * 10 + digit;
        any = true;
      }
      if (!any) return error("expected a non-negative integer in the shape");
      dims.push_back(v);
      skip_space();
      if (eat(',')) continue;
      skip_space();
      if (eat(')')) return dims;
      return error("expected ',' or ')' in the shape");
    }
  }

  StatusOr<HeaderValue> parse_value() {
    HeaderValue v;
    if (eat_word("True")) {
      v.flag = true;
    } else if (eat_word("False")) {
      v.flag = false;
    } else if (eat('(')) {
      GLASSBOX_ASSIGN_OR_RETURN(v.tuple, parse_tuple());
    } else {
      GLASSBOX_ASSIGN_OR_RETURN(v.text, parse_string());
    }
    return v;
  }

  std::string_view text_;
  const std::string& source_;
  std::size_t pos_ = 0;
};

// The element types we convert from, by their descr without byte order.
enum class Dtype { kF4, kF8, kI8, kI4 };

struct DtypeInfo {
  std::string_view code;
  Dtype dtype;
  std::size_t size;
};
constexpr DtypeInfo kDtypes[] = {
    {"f4", Dtype::kF4, 4}, {"f8", Dtype::kF8, 8}, {"i8", Dtype::kI8, 8}, {"i4", Dtype::kI4, 4}};

StatusOr<DtypeInfo> parse_descr(const std::string& descr, const std::string& source) {
  if (descr.size() == 3 && descr[0] == '>') {
    return Status(Error::kNotSupported, source + ": big-endian dtype '" + descr +
                                            "' is not supported; use '<" + descr.substr(1) + "'");
  }
  if (descr.size() == 3 && (descr[0] == '<' || descr[0] == '=')) {
    for (const DtypeInfo& info : kDtypes) {
      if (descr.substr(1) == info.code) return info;
    }
  }
  return Status(Error::kNotSupported,
                source + ": dtype '" + descr +
                    "' is not supported (float32, float64, int64 or int32, little-endian)");
}

template <typename T>
T load(const std::uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // Unaligned and little-endian (x86, ARM).
  return v;
}

}  // namespace

std::int64_t Array::numel() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

StatusOr<Array> parse(std::span<const std::uint8_t> bytes, const std::string& source) {
  if (bytes.size() < kPreambleSize || std::memcmp(bytes.data(), kMagic.data(), kMagicSize) != 0) {
    return corrupt(source, "missing the \\x93NUMPY magic");
  }
  const std::uint8_t major = bytes[kMagicSize];
  const std::uint8_t minor = bytes[kMagicSize + 1];
  if (major < 1 || major > 3 || minor != 0) {
    return Status(Error::kVersionMismatch, source + ": .npy version " + std::to_string(major) +
                                               "." + std::to_string(minor) +
                                               " is not supported (1.0, 2.0 or 3.0)");
  }
  const std::size_t length_size = major == 1 ? 2 : 4;
  if (bytes.size() < kPreambleSize + length_size) return corrupt(source, "truncated header length");
  const std::size_t header_size = major == 1 ? load<std::uint16_t>(bytes.data() + kPreambleSize)
                                             : load<std::uint32_t>(bytes.data() + kPreambleSize);
  const std::size_t header_start = kPreambleSize + length_size;
  if (header_size > kMaxHeaderSize)
    return corrupt(source, "header length " + std::to_string(header_size) + " is implausible");
  if (bytes.size() - header_start < header_size) {
    return corrupt(source, "truncated header (" + std::to_string(header_size) +
                               " bytes declared, " + std::to_string(bytes.size() - header_start) +
                               " present)");
  }
  const std::string_view header(reinterpret_cast<const char*>(bytes.data() + header_start),
                                header_size);
  GLASSBOX_ASSIGN_OR_RETURN(auto dict, HeaderParser(header, source).parse_dict());

  auto descr = dict.find("descr");
  auto fortran = dict.find("fortran_order");
  auto shape = dict.find("shape");
  if (dict.size() != 3 || descr == dict.end() || fortran == dict.end() || shape == dict.end()) {
    return corrupt(source,
                   "the header dict must have exactly the keys 'descr', "
                   "'fortran_order' and 'shape'");
  }
  if (!descr->second.text) return corrupt(source, "'descr' is not a string");
  if (!fortran->second.flag) return corrupt(source, "'fortran_order' is not True or False");
  if (!shape->second.tuple) return corrupt(source, "'shape' is not a tuple");
  if (*fortran->second.flag) {
    return Status(Error::kNotSupported,
                  source +
                      ": fortran_order arrays are not supported; save a C-order array "
                      "(numpy.ascontiguousarray) instead");
  }
  GLASSBOX_ASSIGN_OR_RETURN(DtypeInfo dtype, parse_descr(*descr->second.text, source));

  Array array;
  array.shape = *shape->second.tuple;
  const std::size_t payload = bytes.size() - header_start - header_size;
  std::size_t numel = 1;
  for (std::int64_t d : array.shape) {
    if (__builtin_mul_overflow(numel, static_cast<std::size_t>(d), &numel)) {
      return corrupt(source, "shape overflows");
    }
  }
  std::size_t expected = 0;
  if (__builtin_mul_overflow(numel, dtype.size, &expected) || expected != payload) {
    return corrupt(source, "payload is " + std::to_string(payload) +
                               " bytes, but shape and dtype '" + *descr->second.text + "' need " +
                               (expected / dtype.size == numel ? std::to_string(expected)
                                                               : std::string("more")));
  }
  const std::uint8_t* p = bytes.data() + header_start + header_size;
  array.data.resize(numel);
  const bool integer = dtype.dtype == Dtype::kI8 || dtype.dtype == Dtype::kI4;
  if (integer) array.int_data.resize(numel);
  for (std::size_t i = 0; i < numel; ++i, p += dtype.size) {
    switch (dtype.dtype) {
      case Dtype::kF4: array.data[i] = load<float>(p); break;
      case Dtype::kF8: array.data[i] = static_cast<float>(load<double>(p)); break;
      case Dtype::kI8: array.int_data[i] = load<std::int64_t>(p); break;
      case Dtype::kI4: array.int_data[i] = load<std::int32_t>(p); break;
    }
    if (integer) array.data[i] = static_cast<float>(array.int_data[i]);
  }
  return array;
}

StatusOr<Array> read_file(const std::string& path) {
  GLASSBOX_ASSIGN_OR_RETURN(std::vector<std::uint8_t> bytes, io::read_file(path));
  return parse(bytes, path);
}

}  // namespace glassbox::npy
