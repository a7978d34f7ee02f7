//===- Population.cpp - per-cell parameters and biomarker tables ---------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Core/Population.h"
#include "easyml/Runtime/IO/OutputFile.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

using namespace easyml::rt;

namespace {

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos)
    return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string where(const std::string &path, int64_t row, int64_t col = 0) {
  std::string w = path + ":" + std::to_string(row);
  if (col > 0)
    w += ":" + std::to_string(col);
  return w + ": ";
}

bool readCsv(const std::string &path, std::istream &in, Columns &t,
             std::string &error) {
  std::string line;
  int64_t lineNo = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++lineNo;
    std::string body = trim(line);
    if (body.empty() || body[0] == '#')
      continue;
    std::vector<std::string> fields;
    std::stringstream ss(line);
    for (std::string f; std::getline(ss, f, ',');)
      fields.push_back(trim(f));
    if (!line.empty() && trim(line).back() == ',')
      fields.push_back("");
    if (!header) {
      header = true;
      for (size_t c = 0; c < fields.size(); ++c) {
        if (fields[c].empty()) {
          error = where(path, lineNo, c + 1) + "empty parameter name";
          return false;
        }
        for (size_t k = 0; k < c; ++k)
          if (fields[k] == fields[c]) {
            error = where(path, lineNo, c + 1) + "parameter '" + fields[c] +
                    "' appears twice (also column " + std::to_string(k + 1) +
                    ")";
            return false;
          }
      }
      t.names = fields;
      t.values.assign(fields.size(), {});
      continue;
    }
    if (fields.size() != t.names.size()) {
      error = where(path, lineNo) + "expected " +
              std::to_string(t.names.size()) + " values, got " +
              std::to_string(fields.size());
      return false;
    }
    for (size_t c = 0; c < fields.size(); ++c) {
      const std::string &f = fields[c];
      char *end = nullptr;
      errno = 0;
      double v = std::strtod(f.c_str(), &end);
      if (f.empty() || *end) {
        error = where(path, lineNo, c + 1) + "'" + f +
                "' is not a number (parameter " + t.names[c] + ")";
        return false;
      }
      if (!std::isfinite(v)) {
        error = where(path, lineNo, c + 1) + "'" + f +
                "' is not a finite number (parameter " + t.names[c] + ")";
        return false;
      }
      t.values[c].push_back(v);
    }
  }
  if (!header) {
    error = path + ": empty file: expected a header of parameter names";
    return false;
  }
  return true;
}

/// Parses a .npy header's descr as a list of ('name', '<f8') fields.
bool parseNpyFields(const std::string &path, const std::string &header,
                    std::vector<std::string> &names, int64_t &rows,
                    std::string &error) {
  auto bad = [&](const std::string &why) {
    error = path + ": " + why;
    return false;
  };
  size_t d = header.find("'descr':");
  if (d == std::string::npos)
    return bad("not a .npy file (no descr in its header)");
  size_t p = header.find_first_not_of(' ', d + 8);
  if (p == std::string::npos || header[p] != '[')
    return bad("expected a structured array with one float64 field per "
               "parameter (np.save of an array with dtype [('GNa', 'f8'), "
               "...]); got dtype " +
               header.substr(p, header.find(',', p) - p));
  size_t close = header.find(']', p);
  std::string list = header.substr(p + 1, close - p - 1);
  size_t i = 0;
  while ((i = list.find('(', i)) != std::string::npos) {
    size_t e = list.find(')', i);
    std::string item = list.substr(i + 1, e - i - 1);
    std::vector<std::string> parts;
    std::stringstream ss(item);
    for (std::string f; std::getline(ss, f, ',');) {
      f = trim(f);
      if (f.size() >= 2 && (f[0] == '\'' || f[0] == '"'))
        f = f.substr(1, f.size() - 2);
      if (!f.empty())
        parts.push_back(f);
    }
    if (parts.size() != 2)
      return bad("field (" + item + "): only scalar fields are supported");
    if (parts[1] != "<f8" && parts[1] != "f8")
      return bad("field '" + parts[0] + "' has type " + parts[1] +
                 ", expected float64 (<f8)");
    names.push_back(parts[0]);
    i = e;
  }
  if (header.find("'fortran_order': False") == std::string::npos)
    return bad("Fortran-ordered arrays are not supported");
  size_t s = header.find("'shape':");
  size_t open = header.find('(', s), shut = header.find(')', open);
  if (s == std::string::npos || open == std::string::npos)
    return bad("no shape in the .npy header");
  std::string shape = header.substr(open + 1, shut - open - 1);
  char *end = nullptr;
  rows = std::strtoll(shape.c_str(), &end, 10);
  if (trim(std::string(end)) != "," && trim(std::string(end)) != "")
    return bad("expected a one-dimensional structured array, got shape (" +
               shape + ")");
  return true;
}

bool readNpy(const std::string &path, std::istream &in, Columns &t,
             std::string &error) {
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) {
    error = path + ": not a .npy file";
    return false;
  }
  uint32_t hlen = 0;
  if (magic[6] == 1) {
    unsigned char b[2];
    in.read(reinterpret_cast<char *>(b), 2);
    hlen = b[0] | (b[1] << 8);
  } else {
    unsigned char b[4];
    in.read(reinterpret_cast<char *>(b), 4);
    hlen = b[0] | (b[1] << 8) | (b[2] << 16) | (uint32_t(b[3]) << 24);
  }
  std::string header(hlen, '\0');
  if (!in.read(header.data(), hlen)) {
    error = path + ": truncated .npy header";
    return false;
  }
  int64_t rows = 0;
  if (!parseNpyFields(path, header, t.names, rows, error))
    return false;
  size_t k = t.names.size();
  std::vector<double> data(static_cast<size_t>(rows) * k);
  if (!in.read(reinterpret_cast<char *>(data.data()),
               data.size() * sizeof(double))) {
    error = path + ": truncated: the header announces " +
            std::to_string(rows) + " rows";
    return false;
  }
  t.values.assign(k, std::vector<double>(rows));
  for (int64_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < k; ++c) {
      double v = data[r * k + c];
      if (!std::isfinite(v)) {
        // Rows and columns counted from 1, as for CSV files.
        error = where(path, r + 1, c + 1) + "value " + std::to_string(v) +
                " is not a finite number (parameter " + t.names[c] + ")";
        return false;
      }
      t.values[c][r] = v;
    }
  return true;
}

/// Numbers from a 64-bit Mersenne Twister (fully specified by the C++
/// standard, unlike std::*_distribution).
struct Sampler {
  explicit Sampler(uint64_t seed) : gen(seed) {}
  double uniform01() { // (0, 1)
    return (static_cast<double>(gen() >> 11) + 0.5) * 0x1.0p-53;
  }
  double normal() {
    if (haveSpare) {
      haveSpare = false;
      return spare;
    }
    double u = uniform01(), v = uniform01();
    double r = std::sqrt(-2.0 * std::log(u)), a = 2.0 * M_PI * v;
    spare = r * std::sin(a);
    haveSpare = true;
    return r * std::cos(a);
  }
  std::mt19937_64 gen;
  bool haveSpare = false;
  double spare = 0;
};

int64_t paramIndex(const easyml_model_desc &d, const std::string &n) {
  for (int64_t i = 0; i < d.num_params; ++i)
    if (n == d.param_names[i])
      return i;
  for (int64_t f = 0; f < d.num_flags; ++f)
    if (n == d.flag_names[f])
      return d.num_params + f;
  return -1;
}

} // namespace

static bool readTableInto(const std::string &path, int64_t cells,
                          Columns &table, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read parameter file '" + path + "': " +
            std::strerror(errno);
    return false;
  }
  table = Columns{};
  bool ok = endsWith(path, ".npy") ? readNpy(path, in, table, error)
                                   : readCsv(path, in, table, error);
  if (!ok)
    return false;
  if (table.names.empty()) {
    error = path + ": no parameter columns";
    return false;
  }
  int64_t rows = static_cast<int64_t>(table.values[0].size());
  if (rows != cells) {
    error = path + ": " + std::to_string(rows) + " rows of values for " +
            std::to_string(cells) + " cells (one row per cell)";
    return false;
  }
  return true;
}

Status easyml::rt::checkParamNames(const Columns &table,
                                   const easyml_model_desc &desc,
                                   const std::string &what) {
  for (size_t c = 0; c < table.names.size(); ++c)
    if (paramIndex(desc, table.names[c]) < 0)
      return Status::invalid(what + ": column " + std::to_string(c + 1) +
                             ": model " + desc.name + " has no parameter '" +
                             table.names[c] + "'");
  return Status();
}

static bool sampleInto(const std::string &spec, uint64_t seed,
                       const easyml_model_desc &desc,
                       const std::vector<double> &params, int64_t cells,
                       Columns &table, std::string &error, bool grouped) {
  struct Item {
    std::string name;
    bool scale;
    std::string dist;
    double a, b;
    int64_t param;
  };
  std::vector<Item> items;
  // Split at commas outside parentheses.
  std::vector<std::string> texts;
  int depth = 0;
  std::string cur;
  for (char ch : spec) {
    if (ch == '(')
      ++depth;
    if (ch == ')')
      --depth;
    if (ch == ',' && depth == 0) {
      texts.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  texts.push_back(cur);
  for (const std::string &raw : texts) {
    std::string text = trim(raw);
    auto bad = [&](const std::string &why) {
      error = "--population: '" + text + "': " + why;
      return false;
    };
    size_t op = text.find_first_of("*=");
    if (op == std::string::npos || op == 0)
      return bad("expected NAME*DIST(a,b) or NAME=DIST(a,b)");
    Item it;
    it.name = trim(text.substr(0, op));
    it.scale = text[op] == '*';
    std::string rest = trim(text.substr(op + 1));
    size_t open = rest.find('('), close = rest.rfind(')');
    if (open == std::string::npos || close != rest.size() - 1)
      return bad("expected a distribution such as lognormal(1,0.2)");
    it.dist = trim(rest.substr(0, open));
    std::string args = rest.substr(open + 1, close - open - 1);
    size_t comma = args.find(',');
    char *e1 = nullptr, *e2 = nullptr;
    std::string s1 = trim(args.substr(0, comma)),
                s2 = comma == std::string::npos ? ""
                                                : trim(args.substr(comma + 1));
    it.a = std::strtod(s1.c_str(), &e1);
    it.b = std::strtod(s2.c_str(), &e2);
    if (comma == std::string::npos || s1.empty() || s2.empty() || *e1 || *e2 ||
        !std::isfinite(it.a) || !std::isfinite(it.b))
      return bad("expected two numbers in " + it.dist + "(...)");
    if (it.dist == "uniform") {
      if (!(it.b >= it.a))
        return bad("uniform(lo,hi) needs lo <= hi");
    } else if (it.dist == "normal") {
      if (!(it.b >= 0))
        return bad("normal(mean,sd) needs sd >= 0");
    } else if (it.dist == "lognormal") {
      if (!(it.a > 0) || !(it.b >= 0))
        return bad("lognormal(median,sigma) needs median > 0 and sigma >= 0");
    } else {
      return bad("unknown distribution '" + it.dist +
                 "' (uniform, normal, lognormal)");
    }
    it.param = paramIndex(desc, it.name);
    if (it.param < 0)
      return bad(std::string("model ") + desc.name + " has no parameter '" +
                 it.name + "'");
    for (const Item &o : items)
      if (o.name == it.name)
        return bad("parameter '" + it.name + "' is sampled twice");
    items.push_back(it);
  }
  table = Columns{};
  for (const Item &it : items) {
    table.names.push_back(it.name);
    table.values.emplace_back(cells);
  }
  Sampler rng(seed);
  for (int64_t c = 0; c < cells; ++c)
    for (size_t k = 0; k < items.size(); ++k) {
      const Item &it = items[k];
      double x;
      if (it.dist == "uniform")
        x = it.a + (it.b - it.a) * rng.uniform01();
      else if (it.dist == "normal")
        x = it.a + it.b * rng.normal();
      else
        x = it.a * std::exp(it.b * rng.normal());
      table.values[k][c] = it.scale ? params[it.param] * x : x;
    }
  if (grouped)
    groupSimilarRows(table);
  return true;
}

void easyml::rt::groupSimilarRows(Columns &table) {
  size_t dims = std::min<size_t>(table.values.size(), 63);
  if (dims == 0)
    return;
  size_t n = table.values[0].size();
  unsigned bits = std::min<unsigned>(21, 63 / dims);
  // Each row's rank in each column, scaled to `bits` bits (ties in the
  // order of the rows, so the key is deterministic).
  std::vector<uint64_t> key(n, 0);
  std::vector<size_t> order(n);
  for (size_t k = 0; k < dims; ++k) {
    const std::vector<double> &col = table.values[k];
    for (size_t i = 0; i < n; ++i)
      order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return col[a] < col[b] || (col[a] == col[b] && a < b);
    });
    for (size_t r = 0; r < n; ++r) {
      uint64_t q = static_cast<uint64_t>(
          (static_cast<unsigned __int128>(r) << bits) / n);
      // Interleave: bit b of column k goes to bit b*dims + k.
      for (unsigned b = 0; b < bits; ++b)
        key[order[r]] |= ((q >> b) & 1) << (b * dims + k);
    }
  }
  for (size_t i = 0; i < n; ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return key[a] < key[b] || (key[a] == key[b] && a < b);
  });
  for (std::vector<double> &col : table.values) {
    std::vector<double> sorted(n);
    for (size_t i = 0; i < n; ++i)
      sorted[i] = col[order[i]];
    col.swap(sorted);
  }
}

std::string easyml::rt::npyHeader(const std::string &descr,
                                  const std::string &shape) {
  std::string h = "{'descr': " + descr +
                  ", 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + h.size() + 1;
  h.append((64 - total % 64) % 64, ' ');
  h += '\n';
  std::string pre = {'\x93', 'N', 'U', 'M', 'P', 'Y', '\x01', '\x00',
                     static_cast<char>(h.size() & 0xff),
                     static_cast<char>(h.size() >> 8)};
  return pre + h;
}

std::string easyml::rt::tableNpyHeader(const std::vector<std::string> &names,
                                       int64_t rows) {
  std::string descr = "[";
  for (size_t c = 0; c < names.size(); ++c)
    descr += (c ? ", ('" : "('") + names[c] + "', '<f8')";
  descr += "]";
  return npyHeader(descr, "(" + std::to_string(rows) + ",)");
}

std::string easyml::rt::csvHeader(const std::vector<std::string> &names) {
  std::string h;
  for (size_t c = 0; c < names.size(); ++c)
    h += (c ? "," : "") + names[c];
  return h + "\n";
}

std::string easyml::rt::csvRows(const double *rows, size_t n, size_t k) {
  std::string out;
  char buf[64];
  for (size_t r = 0; r < n; ++r) {
    for (size_t c = 0; c < k; ++c) {
      double v = rows[r * k + c];
      if (c)
        out += ',';
      if (std::isnan(v)) {
        out += "nan";
      } else {
        std::snprintf(buf, sizeof buf, "%.10g", v);
        out += buf;
      }
    }
    out += '\n';
  }
  return out;
}

static bool writeRows(const std::string &path,
                      const std::vector<std::string> &names,
                      const std::vector<double> &rows, std::string &error) {
  OutputFile f(path);
  size_t k = names.size();
  size_t n = k ? rows.size() / k : 0;
  if (endsWith(path, ".npy")) {
    f.write(tableNpyHeader(names, static_cast<int64_t>(n)));
    f.write(rows.data(), rows.size() * sizeof(double));
  } else {
    f.write(csvHeader(names));
    // In blocks, so a large table is not held twice.
    const size_t block = 4096;
    for (size_t r = 0; r < n; r += block)
      f.write(csvRows(rows.data() + r * k, std::min(block, n - r), k));
  }
  if (f.commit())
    return true;
  error = f.error();
  return false;
}

double easyml::rt::quantile(std::vector<double> v, double q) {
  v.erase(std::remove_if(v.begin(), v.end(),
                         [](double x) { return !std::isfinite(x); }),
          v.end());
  if (v.empty())
    return std::nan("");
  std::sort(v.begin(), v.end());
  double pos = q * (v.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - lo) * (v[hi] - v[lo]);
}

Status easyml::rt::writeTable(const std::string &path,
                              const std::vector<std::string> &names,
                              const std::vector<double> &rows) {
  std::string error;
  if (!writeRows(path, names, rows, error))
    return Status::failed(error);
  return Status();
}

Expected<Columns> easyml::rt::readParamTable(const std::string &path,
                                             int64_t cells) {
  Columns table;
  std::string error;
  if (!readTableInto(path, cells, table, error))
    return Status::invalid(error);
  return table;
}

Expected<Columns> easyml::rt::samplePopulation(
    const std::string &spec, uint64_t seed, const easyml_model_desc &desc,
    const std::vector<double> &params, int64_t cells, bool grouped) {
  Columns table;
  std::string error;
  if (!sampleInto(spec, seed, desc, params, cells, table, error, grouped))
    return Status::invalid(error);
  return table;
}
