// A tournament's results for people and programs: the readable summary, and the CSV and JSON
// files of a tournament directory.
#pragma once

#include <string>

#include "tournament/tournament.h"

namespace ps::tour {

/// The readable summary: ratings table (rank, name, Elo, 95% interval, games, wins, score),
/// the cross-table (wins/games of the row player against the column player), termination
/// counts and notes.
std::string format_results(const TournamentResult& result);
/// results.json, ratings.csv, crosstable.csv and games.csv in dir, each written atomically.
/// Throws std::runtime_error naming the file on failure.
void write_results(const TournamentResult& result, const std::string& dir);

}  // namespace ps::tour
