// The test-vector line form shared by tests/ and the command line:
//   W<TAB>L<TAB>G<TAB>variant<TAB>record[<TAB>extra columns...]
// A header line (W<TAB>L<TAB>G<TAB>variant<TAB>record...) is allowed and skipped by readers.
#pragma once

#include <string>
#include <vector>

#include "engine/pitch.h"
#include "engine/record.h"

namespace ps {

struct TsvRow {
  int width = 0, length = 0, goal = 0;
  Variant variant = Variant::kStandard;
  std::string record;
  std::vector<std::string> extra;  ///< columns after the record
};

/// True for the header line: fields W, L, G, variant, then nothing or record and any columns.
bool is_tsv_header(const std::string& line);
/// Parses one line. Throws std::invalid_argument saying which column is wrong and why.
TsvRow parse_tsv_row(const std::string& line);
/// The game of the row's record on the row's pitch and variant. Throws std::invalid_argument for
/// a bad pitch, RecordError for a bad record.
Game tsv_row_game(const TsvRow& row);
/// Splits on tabs (empty fields kept).
std::vector<std::string> split_tabs(const std::string& line);

}  // namespace ps
