//===- DrugBlock.cpp - drugs as changes of model parameters ---------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Drugs/DrugBlock.h"
#include "easyml/Runtime/IO/Json.h"

#include <cmath>
#include <fstream>
#include <sstream>

using namespace easyml::rt;

const std::vector<std::string> &easyml::rt::drugChannels() {
  static const std::vector<std::string> c = {"ICaL", "IK1", "IKs", "INa",
                                             "INaL", "Ito", "hERG"};
  return c;
}

namespace {

bool fail(std::string &error, const std::string &what) {
  error = what;
  return false;
}

bool strings(const json::Value &v, std::vector<std::string> &out) {
  if (!v.isArray())
    return false;
  for (const json::Value &s : v.items) {
    if (!s.isString())
      return false;
    out.push_back(s.string);
  }
  return true;
}

std::vector<std::string> splitCsv(const std::string &line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ','))
    out.push_back(cell.size() >= 2 && cell.front() == '"'
                      ? cell.substr(1, cell.size() - 2)
                      : cell);
  return out;
}

/// A number or NA (NaN); false for anything else.
bool numberOrNa(const std::string &s, double &v) {
  if (s == "NA" || s.empty()) {
    v = NAN;
    return true;
  }
  char *end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return *end == 0 || *end == '\r';
}

bool readLines(const std::string &path, std::vector<std::string> &lines,
               std::string &error) {
  std::ifstream in(path);
  if (!in)
    return fail(error, "cannot read '" + path + "'");
  for (std::string l; std::getline(in, l);)
    if (!l.empty() && l != "\r")
      lines.push_back(l);
  return true;
}

/// Files already read (the uncertainty tables are read once per drug).
std::map<std::string, std::vector<std::string>> &fileCache() {
  static std::map<std::string, std::vector<std::string>> cache;
  return cache;
}

/// Row `k` (from 1) of a CSV table with a header, by column name.
bool readRow(const std::string &path, int64_t k,
             std::map<std::string, double> &v, std::string &error) {
  auto cached = fileCache().find(path);
  if (cached == fileCache().end()) {
    std::vector<std::string> read;
    if (!readLines(path, read, error))
      return false;
    cached = fileCache().emplace(path, std::move(read)).first;
  }
  const std::vector<std::string> &lines = cached->second;
  if (static_cast<int64_t>(lines.size()) <= k)
    return fail(error, path + ": has " + std::to_string(lines.size() - 1) +
                           " rows of values, row " + std::to_string(k) +
                           " was asked for");
  std::vector<std::string> head = splitCsv(lines[0]), row = splitCsv(lines[k]);
  std::string at = path + ":" + std::to_string(k + 1);
  if (head.size() != row.size())
    return fail(error, at + ": expected " + std::to_string(head.size()) +
                           " values, got " + std::to_string(row.size()));
  for (size_t i = 0; i < head.size(); ++i)
    if (!numberOrNa(row[i], v[head[i]]))
      return fail(error, at + ":" + std::to_string(i + 1) + ": '" + row[i] +
                             "' is not a number or NA");
  return true;
}

/// Hill parameters: <channel>_IC50, <channel>_h columns (CiPA's
/// IC50_optimal.csv, or a row of IC50_samples.csv).
bool readHill(const std::string &path, int64_t row, Drug &d,
              std::string &error) {
  std::map<std::string, double> v;
  if (!readRow(path, row, v, error))
    return false;
  for (const std::string &c : drugChannels()) {
    auto ic50 = v.find(c + "_IC50"), h = v.find(c + "_h");
    if (ic50 != v.end() && h != v.end() && std::isfinite(ic50->second) &&
        std::isfinite(h->second))
      d.hill[c] = {ic50->second, h->second};
  }
  return true;
}

/// hERG binding parameters of a sample: row `row` of boot_pars.csv.
bool readHergSample(const std::string &path, int64_t row, Drug &d,
                    std::string &error) {
  std::map<std::string, double> v;
  if (!readRow(path, row, v, error))
    return false;
  for (const auto &[name, value] : v)
    if (std::isfinite(value))
      d.herg[name] = value;
  return true;
}

/// hERG binding parameters, "name value" per line (CiPA's pars.txt).
bool readHerg(const std::string &path, Drug &d, std::string &error) {
  std::vector<std::string> lines;
  if (!readLines(path, lines, error))
    return false;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::istringstream ss(lines[i]);
    std::string name;
    double value;
    if (!(ss >> name >> value))
      return fail(error, path + ":" + std::to_string(i + 1) +
                             ": expected a name and a number");
    d.herg[name] = value;
  }
  return true;
}

bool readCmax(const std::string &path, std::map<std::string, double> &cmax,
              std::string &error) {
  std::vector<std::string> lines;
  if (!readLines(path, lines, error))
    return false;
  std::vector<std::string> head =
      lines.empty() ? std::vector<std::string>() : splitCsv(lines[0]);
  if (head.size() < 2 || head[0] != "drug" || head[1] != "therapeutic")
    return fail(error, path + ":1: expected columns drug,therapeutic");
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string> row = splitCsv(lines[i]);
    double v;
    if (row.size() < 2 || !numberOrNa(row[1], v))
      return fail(error, path + ":" + std::to_string(i + 1) +
                             ": expected a drug and its concentration (nM)");
    cmax[row[0]] = v;
  }
  return true;
}

} // namespace

static bool readMapping(const std::string &path, ChannelMapping &out,
                        std::string &error) {
  Expected<json::Value> parsed = json::parseFile(path);
  if (!parsed.ok())
    return fail(error, parsed.status().message());
  const json::Value &v = *parsed;
  auto bad = [&](const std::string &what) {
    return fail(error, path + ": " + what);
  };
  if (!v.isObject())
    return bad("a mapping is an object");
  for (const auto &[key, value] : v.members) {
    if (key == "model" && value.isString()) {
      out.model = value.string;
    } else if (key == "channels" && value.isObject()) {
      for (const auto &[c, params] : value.members)
        if (!strings(params, out.channels[c]))
          return bad("channel '" + c + "' maps to a list of parameters");
    } else if (key == "herg_binding" && value.isObject()) {
      for (const auto &[k, p] : value.members)
        if (!p.isString())
          return bad("herg_binding: '" + k + "' names a model parameter");
        else
          out.herg[k] = p.string;
    } else if (key == "concentration" && value.isString()) {
      out.concentration = value.string;
    } else if (key == "with_drug" && value.isObject()) {
      for (const auto &[k, p] : value.members)
        if (!p.isNumber())
          return bad("with_drug: '" + k + "' takes a number");
        else
          out.withDrug[k] = p.number;
    } else if (key == "qnet") {
      if (!strings(value, out.qnet))
        return bad("'qnet' is a list of variable names");
    } else if (key == "calcium" && value.isString()) {
      out.calcium = value.string;
    } else if (key == "stimulus_into" && value.isObject()) {
      for (const auto &[eq, term] : value.members)
        if (!term.isString() || term.string.find("STIM") == std::string::npos)
          return bad("stimulus_into: '" + eq + "' takes a term with STIM");
        else
          out.stimulusInto[eq] = term.string;
    } else if (key != "note") {
      return bad("unknown or malformed key '" + key +
                 "' (model, channels, herg_binding, concentration, "
                 "with_drug, qnet, calcium, stimulus_into, note)");
    }
  }
  if (!out.herg.empty() && out.concentration.empty())
    return bad("herg_binding needs 'concentration', the parameter of the "
               "drug's concentration");
  return true;
}

Status easyml::rt::readChannelMapping(const std::string &path,
                                      ChannelMapping &out) {
  std::string error;
  if (!readMapping(path, out, error))
    return Status::invalid(error);
  return Status();
}

static bool readDrugs(const std::string &dir,
                      const std::vector<std::string> &names,
                      const std::vector<int64_t> &samples,
                      std::vector<Drug> &out, std::string &error) {
  std::map<std::string, double> cmax;
  if (!readCmax(dir + "/AP_simulation/data/CiPA_training_drugs.csv", cmax,
                error))
    return false;
  for (const std::string &name : names)
    for (int64_t k : samples) {
      Drug d;
      d.name = name;
      d.sample = k;
      auto c = cmax.find(name);
      d.cmax = c == cmax.end() ? 0 : c->second;
      std::string hill = dir + "/Hill_fitting/results/" + name + "/";
      std::string herg = dir + "/hERG_fitting/results/" + name + "/";
      bool ok = k == 0
                    ? readHill(hill + "IC50_optimal.csv", 1, d, error) &&
                          readHerg(herg + "pars.txt", d, error)
                    : readHill(hill + "IC50_samples.csv", k, d, error) &&
                          readHergSample(herg + "boot_pars.csv", k, d, error);
      if (!ok) {
        fileCache().clear();
        return fail(error, "drug '" + name + "': " + error);
      }
      out.push_back(std::move(d));
    }
  fileCache().clear();
  return true;
}

Status easyml::rt::readCipaDrugs(const std::string &dir,
                                 const std::vector<std::string> &names,
                                 const std::vector<int64_t> &samples,
                                 std::vector<Drug> &out) {
  std::string error;
  if (!readDrugs(dir, names, samples, out, error))
    return Status::invalid(error);
  return Status();
}

static bool makeCells(const std::vector<Drug> &drugs,
                      const std::vector<double> &doses, bool nM,
                      std::vector<DrugCell> &cells, std::string &error) {
  cells.assign(1, DrugCell());
  for (double dose : doses)
    if (!(dose >= 0))
      return fail(error, "a dose must be a number >= 0");
  for (const Drug &drug : drugs)
    for (double dose : doses) {
      if (!nM && !(drug.cmax > 0))
        return fail(error, "drug " + drug.name +
                               " has no therapeutic concentration (Cmax): "
                               "give the doses in nM");
      cells.push_back({&drug, dose, nM ? dose : dose * drug.cmax});
    }
  return true;
}

Status easyml::rt::studyCells(const std::vector<Drug> &drugs,
                              const std::vector<double> &doses, bool nM,
                              std::vector<DrugCell> &cells) {
  std::string error;
  if (!makeCells(drugs, doses, nM, cells, error))
    return Status::invalid(error);
  return Status();
}

double easyml::rt::hillFactor(double conc, double ic50, double h) {
  if (!(conc > 0))
    return 1.0;
  return 1.0 / (1.0 + std::pow(conc / ic50, h));
}

namespace {

bool set(const ChannelMapping &m, const std::string &param, double value,
         const std::map<std::string, double> &base,
         std::map<std::string, double> &out, std::string &error) {
  if (!base.count(param))
    return fail(error, "model " + m.model + " has no parameter '" + param +
                           "' (named in its drug mapping)");
  out[param] = value;
  return true;
}

} // namespace

static bool parametersOf(const ChannelMapping &m, const DrugCell &cell,
                         const std::map<std::string, double> &base,
                         std::map<std::string, double> &out,
                         std::string &error) {
  out.clear();
  if (!cell.drug)
    return true;
  const Drug &d = *cell.drug;
  bool binding = !m.herg.empty() && !d.herg.empty();
  for (const auto &[channel, hill] : d.hill) {
    if (channel == "hERG" && binding)
      continue; // the binding model instead
    auto it = m.channels.find(channel);
    if (it == m.channels.end())
      return fail(error, "drug " + d.name + " blocks " + channel +
                             ", which the drug mapping of model " + m.model +
                             " does not name");
    double f = hillFactor(cell.concentration, hill.first, hill.second);
    for (const std::string &p : it->second) {
      double b = out.count(p) ? out[p] : base.count(p) ? base.at(p) : 0;
      if (!set(m, p, b * f, base, out, error))
        return false;
    }
  }
  if (!binding)
    return true;
  for (const auto &[key, param] : m.herg) {
    auto v = d.herg.find(key);
    if (v == d.herg.end())
      return fail(error, "drug " + d.name + " has no hERG binding parameter '" +
                             key + "'");
    if (!set(m, param, v->second, base, out, error))
      return false;
  }
  for (const auto &[param, value] : m.withDrug)
    if (!set(m, param, value, base, out, error))
      return false;
  return set(m, m.concentration, cell.concentration, base, out, error);
}

Status easyml::rt::drugParameters(const ChannelMapping &m, const DrugCell &cell,
                                  const std::map<std::string, double> &base,
                                  std::map<std::string, double> &out) {
  std::string error;
  if (!parametersOf(m, cell, base, out, error))
    return Status::invalid(error);
  return Status();
}

bool easyml::rt::parseSampleList(const std::string &text,
                                 std::vector<int64_t> &out) {
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    if (item.empty())
      continue;
    char *end = nullptr;
    long long a = std::strtoll(item.c_str(), &end, 10), b = a;
    if (*end == '-')
      b = std::strtoll(end + 1, &end, 10);
    if (*end || a < 0 || b < a || b - a > 10000000)
      return false;
    for (long long k = a; k <= b; ++k)
      out.push_back(k);
  }
  return !out.empty();
}
