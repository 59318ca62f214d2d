#include "src/inspector/text.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>

#include "glassbox/io/printable.h"

namespace glassbox::inspector {

std::string significant(double value, int digits) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.*g", digits, value == 0 ? 0.0 : value);
  return buffer;
}

std::string fixed(double value, int decimals) {
  // Round first, so a tiny negative (a gap of -0.01) prints as 0.0 and not
  // as "-0.0", which would make goldens depend on noise.
  const double scale = std::pow(10.0, decimals);
  double rounded = std::round(value * scale) / scale;
  if (rounded == 0) rounded = 0;
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, rounded);
  return buffer;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

TimeScale machine_scale(const Inspector& inspector) {
  return TimeScale{inspector.time().unit, 1, 1};
}

TimeScale human_scale(const Inspector& inspector, double largest_ns) {
  if (inspector.time().unit != "ns") return TimeScale{inspector.time().unit, 1, 0};
  if (largest_ns >= 1e6) return TimeScale{"ms", 1e6, 3};
  if (largest_ns >= 1e3) return TimeScale{"us", 1e3, 3};
  return TimeScale{"ns", 1, 0};
}

std::string delimited_cell(const std::string& raw, char separator) {
  // Escaped first: no line break or tab is left to split a row or cell.
  const std::string text = io::printable(raw);
  if (separator == '\t' || text.find_first_of(",\"") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string delimited(const Sheet& sheet, char separator) {
  auto cell = [separator](const std::string& raw) { return delimited_cell(raw, separator); };
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) out += separator;
      out += cell(cells[i]);
    }
    out += '\n';
  };
  line(sheet.columns);
  for (const auto& row : sheet.rows) line(row);
  return out;
}

std::string metadata_text(const std::vector<std::uint8_t>& metadata) {
  std::size_t size = metadata.size();
  while (size > 0 && metadata[size - 1] == 0) --size;
  const bool text =
      std::all_of(metadata.begin(), metadata.begin() + static_cast<long>(size),
                  [](std::uint8_t b) { return (b >= 0x20 && b != 0x7f) || b == '\t'; });
  if (text) return std::string(metadata.begin(), metadata.begin() + static_cast<long>(size));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "0x";
  for (std::size_t i = 0; i < metadata.size() && i < 32; ++i) {
    out += kHex[metadata[i] >> 4];
    out += kHex[metadata[i] & 0xF];
  }
  return metadata.size() > 32 ? out + "..." : out;
}

std::string shorten_middle(std::string_view text, std::size_t width) {
  if (text.size() <= width) return std::string(text);
  if (width <= 3) return std::string(text.substr(0, width));
  // The tail distinguishes names more often than the head
  // ("/layer4/layer4.1/conv2/Conv" vs ".../conv1/Conv"), so it gets two
  // thirds of the room.
  const std::size_t head = (width - 3) / 3;
  const std::size_t tail = width - 3 - head;
  return std::string(text.substr(0, head)) + "..." + std::string(text.substr(text.size() - tail));
}

namespace {

// Names get this much more room than other text cells: they are what a
// reader looks for.
constexpr std::size_t kNameRoom = 16;

// The narrowest width >= `width` at which shortening keeps apart every two
// cells of `cells` that differ.
std::size_t distinguishing_width(const std::vector<std::string>& cells, std::size_t width) {
  std::size_t longest = 0;
  for (const std::string& c : cells) longest = std::max(longest, c.size());
  for (; width < longest; ++width) {
    std::map<std::string, const std::string*> seen;
    bool clash = false;
    for (const std::string& c : cells) {
      auto [it, inserted] = seen.try_emplace(shorten_middle(c, width), &c);
      if (!inserted && *it->second != c) {
        clash = true;
        break;
      }
    }
    if (!clash) break;
  }
  return width;
}

// Narrower than this a text column says too little to be worth it: fitting
// a terminal stops there (the name column keeps more).
constexpr std::size_t kNarrowestText = 8;
constexpr std::size_t kNarrowestName = 16;

// Cuts the text columns of `cut` (widths of cells as they will print) until
// the row fits `total_width`: each step takes one character from the widest
// column above its floor, other columns before the name column.
void fit_to(const Sheet& sheet, std::size_t total_width, std::vector<std::size_t>* cut) {
  std::size_t total = 0;
  for (std::size_t c = 0; c < cut->size(); ++c) total += (*cut)[c] + (c > 0 ? 2 : 0);
  auto floor = [&](std::size_t c) {
    return std::max(sheet.columns[c].size(),
                    c == sheet.name_column ? kNarrowestName : kNarrowestText);
  };
  for (bool names : {false, true}) {
    while (total > total_width) {
      std::size_t widest = cut->size();
      for (std::size_t c = 0; c < cut->size(); ++c) {
        if (sheet.numeric[c] || (c == sheet.name_column) != names || (*cut)[c] <= floor(c))
          continue;
        if (widest == cut->size() || (*cut)[c] > (*cut)[widest]) widest = c;
      }
      if (widest == cut->size()) break;
      --(*cut)[widest];
      --total;
    }
  }
}

}  // namespace

std::string aligned(const Sheet& sheet, std::size_t max_width, std::size_t total_width) {
  std::vector<std::vector<std::string>> cells;  // Escaped, then shortened.
  cells.push_back({});
  for (const std::string& c : sheet.columns) cells.back().push_back(io::printable(c));
  for (const auto& row : sheet.rows) {
    cells.push_back({});
    for (const std::string& c : row) cells.back().push_back(io::printable(c));
  }
  // Each column's width as printed: its longest cell, cut to max_width
  // (names to where they still differ), then to the table's width.
  std::vector<std::size_t> cut(sheet.columns.size(), 0);
  for (std::size_t c = 0; c < cut.size(); ++c) {
    std::vector<std::string> column;
    for (const auto& row : cells) cut[c] = std::max(cut[c], row[c].size());
    for (std::size_t r = 1; r < cells.size(); ++r) column.push_back(cells[r][c]);
    if (sheet.numeric[c] || max_width == SIZE_MAX) continue;
    cut[c] = std::min(cut[c], c == sheet.name_column
                                  ? distinguishing_width(column, max_width + kNameRoom)
                                  : max_width);
  }
  if (total_width != SIZE_MAX) fit_to(sheet, total_width, &cut);
  std::vector<std::size_t> width(sheet.columns.size(), 0);
  for (std::size_t c = 0; c < width.size(); ++c) {
    for (auto& row : cells) {
      if (row[c].size() > cut[c]) row[c] = shorten_middle(row[c], cut[c]);
      width[c] = std::max(width[c], row[c].size());
    }
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& row) {
    std::string text;
    for (std::size_t c = 0; c < width.size(); ++c) {
      const std::string& v = row[c];
      const std::string pad(width[c] - v.size(), ' ');
      if (c > 0) text += "  ";
      text += sheet.numeric[c] ? pad + v : v + pad;
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + '\n';
  };
  line(cells.front());
  std::size_t total = 0;
  for (std::size_t c = 0; c < width.size(); ++c) total += width[c] + (c > 0 ? 2 : 0);
  out += std::string(total, '-') + '\n';
  for (std::size_t r = 1; r < cells.size(); ++r) line(cells[r]);
  return out;
}

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      default: break;
    }
    if (c < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
      out += buffer;
    } else if (c < 0x80) {
      out += static_cast<char>(c);
    } else {
      // Copy a well-formed UTF-8 sequence; replace anything else.
      const std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
      bool ok = len > 0 && c < 0xF5 && i + len <= text.size();
      for (std::size_t k = 1; ok && k < len; ++k) {
        ok = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
      }
      if (ok) {
        out.append(text.substr(i, len));
        i += len - 1;
      } else {
        out += "\\ufffd";
      }
    }
  }
  return out + "\"";
}

}  // namespace glassbox::inspector
