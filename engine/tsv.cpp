#include "engine/tsv.h"

#include <stdexcept>

#include "core/plural.h"
#include "core/text.h"

namespace ps {

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  size_t i = 0;
  while (true) {
    size_t j = line.find('\t', i);
    out.push_back(line.substr(i, j == std::string::npos ? std::string::npos : j - i));
    if (j == std::string::npos) break;
    i = j + 1;
  }
  return out;
}

bool is_tsv_header(const std::string& raw) {
  // Exactly the shared test vectors' header: W, L, G, variant[, record[, named columns...]].
  // A data line whose first field happens to be "W" is not skipped (it is an error line).
  std::string line = raw;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const auto f = split_tabs(line);
  if (f.size() < 4 || f[0] != "W" || f[1] != "L" || f[2] != "G" || f[3] != "variant") return false;
  return f.size() == 4 || f[4] == "record";
}

namespace {
int parse_int(const std::string& s, const char* column) {
  size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(s, &used);
  } catch (const std::out_of_range&) {
    throw std::invalid_argument(std::string("column ") + column + ": " + quoted_text(s, 60) +
                                " is out of range (an int is at most 2147483647)");
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size())
    throw std::invalid_argument(std::string("column ") + column + ": " + quoted_text(s, 60) + " is not an integer");
  return v;
}
}  // namespace

TsvRow parse_tsv_row(const std::string& raw) {
  std::string line = raw;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  auto f = split_tabs(line);
  if (f.size() < 4)
    throw std::invalid_argument("expected W<TAB>L<TAB>G<TAB>variant<TAB>record, got " +
                                counted(int64_t(f.size()), "tab-separated field"));
  TsvRow row;
  row.width = parse_int(f[0], "W");
  row.length = parse_int(f[1], "L");
  row.goal = parse_int(f[2], "G");
  row.variant = parse_variant(f[3]);
  if (f.size() > 4) row.record = f[4];
  for (size_t i = 5; i < f.size(); ++i) row.extra.push_back(f[i]);
  return row;
}

Game tsv_row_game(const TsvRow& row) {
  return parse_record(Pitch::get(row.width, row.length, row.goal), row.variant, row.record);
}

}  // namespace ps
