//===- BiomarkerSummary.cpp - a population's last beat in a few numbers ---===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Core/Population.h"
#include "easyml/Runtime/Simulation/Simulation.h"

#include <cmath>
#include <string>
#include <vector>

using namespace easyml::rt;

std::string easyml::rt::summarizeBiomarkers(const BiomarkerTable &bt,
                                            int64_t rows, FILE *out) {
  bool quiet = out == nullptr;
  int64_t n = bt.rows();
  if (!n)
    return "{\"beats\": 0}";
  double lastBeat = bt.row(n - 1)[kBioBeat];
  std::vector<std::vector<double>> cols(kBioNumColumns);
  int64_t flags[4] = {0, 0, 0, 0}, cells = 0;
  for (int64_t r = 0; r < n; ++r) {
    const double *row = bt.row(r);
    if (row[kBioBeat] != lastBeat)
      continue;
    ++cells;
    for (int c = 0; c < kBioNumColumns; ++c)
      cols[c].push_back(row[c]);
    int f = static_cast<int>(row[kBioFlags]);
    for (int b = 0; b < 4; ++b)
      flags[b] += (f >> b) & 1;
  }
  static const int shown[] = {
      kBioVRest,        kBioVPeak,      kBioDvdtMax,       kBioApd30,
      kBioApd50,        kBioApd90,      kBioTriangulation, kBioCaAmplitude,
      kBioCaTimeToPeak, kBioApd90Change};
  static const char *flagNames[] = {"no_excitation", "no_repolarisation", "ead",
                                    "alternans"};
  std::string json =
      "{\"beats\": " + std::to_string(static_cast<long long>(lastBeat) + 1) +
      ", \"rows\": " + std::to_string(rows) +
      ", \"last_beat\": {\"cells\": " + std::to_string(cells);
  if (!quiet)
    std::fprintf(out,
                 "\nbiomarkers, beat %lld (%lld cells)\n%-16s %12s %12s "
                 "%12s\n",
                 static_cast<long long>(lastBeat),
                 static_cast<long long>(cells), "", "p5", "median", "p95");
  auto num = [](double v) {
    char buf[64];
    if (std::isfinite(v))
      std::snprintf(buf, sizeof buf, "%.6g", v);
    else
      std::snprintf(buf, sizeof buf, "null");
    return std::string(buf);
  };
  for (int c : shown) {
    double p5 = quantile(cols[c], 0.05), p50 = quantile(cols[c], 0.5),
           p95 = quantile(cols[c], 0.95);
    if (std::isnan(p50))
      continue;
    if (!quiet)
      std::fprintf(out, "%-16s %12.4g %12.4g %12.4g\n", biomarkerColumnName(c),
                   p5, p50, p95);
    json += std::string(", \"") + biomarkerColumnName(c) +
            "\": {\"p5\": " + num(p5) + ", \"p50\": " + num(p50) +
            ", \"p95\": " + num(p95) + "}";
  }
  json += ", \"flags\": {";
  for (int b = 0; b < 4; ++b) {
    if (!quiet)
      std::fprintf(out, "%-16s %12lld cells\n", flagNames[b],
                   static_cast<long long>(flags[b]));
    json += std::string(b ? ", " : "") + "\"" + flagNames[b] +
            "\": " + std::to_string(flags[b]);
  }
  json += "}}}";
  return json;
}
