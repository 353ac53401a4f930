#include "core/stats.h"

#include <algorithm>
#include <cmath>

namespace ps {

std::pair<double, double> wilson_interval(int wins, int games, double z) {
  if (games <= 0) return {0.0, 1.0};
  const double n = games, p = double(wins) / n, z2 = z * z;
  const double denom = 1 + z2 / n;
  const double centre = (p + z2 / (2 * n)) / denom;
  const double half = z * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom;
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

}  // namespace ps
