//===- RiskClassifier.cpp - torsade risk from qNet ------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Drugs/RiskClassifier.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

using namespace easyml::rt;

namespace {

double expit(double z) {
  return z >= 0 ? 1 / (1 + std::exp(-z)) : std::exp(z) / (1 + std::exp(z));
}

/// P(y >= j | x) for j = 0..K (1 at 0, 0 at K) under theta = (a_1..a_{K-1},
/// b).
std::vector<double> cumulative(const std::vector<double> &theta, double x) {
  size_t k = theta.size(); // K - 1 intercepts and the slope
  std::vector<double> f(k + 1, 0.0);
  f[0] = 1;
  for (size_t j = 1; j < k; ++j)
    f[j] = expit(theta[j - 1] + theta.back() * x);
  return f;
}

/// The log-likelihood and its gradient; -inf where a class's probability
/// is not positive (intercepts out of order).
double logLikelihood(const std::vector<double> &theta,
                     const std::vector<double> &x, const std::vector<int> &y,
                     std::vector<double> *grad) {
  size_t k = theta.size();
  if (grad)
    grad->assign(k, 0.0);
  double ll = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    std::vector<double> f = cumulative(theta, x[i]);
    int c = y[i];
    double p = f[c] - f[c + 1];
    if (!(p > 0))
      return -INFINITY;
    ll += std::log(p);
    if (!grad)
      continue;
    // dF_j/deta_j = F_j (1 - F_j), zero at j = 0 and K.
    auto slope = [&](int j) {
      return j == 0 || j == static_cast<int>(k) ? 0.0 : f[j] * (1 - f[j]);
    };
    double up = slope(c), down = slope(c + 1);
    if (c >= 1)
      (*grad)[c - 1] += up / p;
    if (c + 1 <= static_cast<int>(k) - 1)
      (*grad)[c] -= down / p;
    (*grad)[k - 1] += x[i] * (up - down) / p;
  }
  return ll;
}

/// Solves A d = b (A small, dense) by elimination with partial pivoting;
/// false when A is singular.
bool solve(std::vector<std::vector<double>> a, std::vector<double> b,
           std::vector<double> &d) {
  size_t n = b.size();
  for (size_t c = 0; c < n; ++c) {
    size_t p = c;
    for (size_t r = c + 1; r < n; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[p][c]))
        p = r;
    if (!(std::fabs(a[p][c]) > 1e-300))
      return false;
    std::swap(a[p], a[c]);
    std::swap(b[p], b[c]);
    for (size_t r = c + 1; r < n; ++r) {
      double m = a[r][c] / a[c][c];
      for (size_t k = c; k < n; ++k)
        a[r][k] -= m * a[c][k];
      b[r] -= m * b[c];
    }
  }
  d.assign(n, 0.0);
  for (size_t c = n; c-- > 0;) {
    double s = b[c];
    for (size_t k = c + 1; k < n; ++k)
      s -= a[c][k] * d[k];
    d[c] = s / a[c][c];
  }
  return true;
}

} // namespace

std::vector<double> OrdinalFit::probabilities(double x) const {
  std::vector<double> theta = intercepts;
  theta.push_back(slope);
  std::vector<double> f = cumulative(theta, x), p(intercepts.size() + 1);
  for (size_t c = 0; c < p.size(); ++c)
    p[c] = f[c] - f[c + 1];
  return p;
}

int OrdinalFit::predict(double x) const {
  std::vector<double> p = probabilities(x);
  return static_cast<int>(std::max_element(p.begin(), p.end()) - p.begin());
}

static bool fitInto(const std::vector<double> &x, const std::vector<int> &y,
                    int classes, OrdinalFit &fit, std::string &error) {
  if (classes < 2 || x.size() != y.size())
    return error = "internal error: bad ordinal regression input", false;
  std::vector<int> count(classes, 0);
  for (int c : y) {
    if (c < 0 || c >= classes)
      return error = "class " + std::to_string(c) + " out of range", false;
    ++count[c];
  }
  for (int c = 0; c < classes; ++c)
    if (!count[c])
      return error = "no drug of class " + std::to_string(c), false;
  // Start: the intercepts of the classes' shares, no slope.
  std::vector<double> theta(classes, 0.0);
  double above = static_cast<double>(x.size());
  for (int j = 1; j < classes; ++j) {
    above -= count[j - 1];
    double share = above / x.size();
    theta[j - 1] = std::log(share / (1 - share));
  }
  std::vector<double> g;
  double ll = logLikelihood(theta, x, y, &g);
  const size_t k = theta.size();
  for (fit.iterations = 1; fit.iterations <= 200; ++fit.iterations) {
    // The Hessian by central differences of the exact gradient.
    std::vector<std::vector<double>> h(k, std::vector<double>(k));
    for (size_t j = 0; j < k; ++j) {
      double step = 1e-5 * std::max(1.0, std::fabs(theta[j]));
      std::vector<double> plus = theta, minus = theta, gp, gm;
      plus[j] += step;
      minus[j] -= step;
      logLikelihood(plus, x, y, &gp);
      logLikelihood(minus, x, y, &gm);
      for (size_t r = 0; r < k; ++r)
        h[r][j] = (gp[r] - gm[r]) / (2 * step);
    }
    for (size_t r = 0; r < k; ++r)
      for (size_t c = 0; c < r; ++c)
        h[r][c] = h[c][r] = 0.5 * (h[r][c] + h[c][r]);
    std::vector<double> minusG(k), d;
    for (size_t j = 0; j < k; ++j)
      minusG[j] = -g[j];
    if (!solve(h, minusG, d))
      break;
    // Step halving until the likelihood grows.
    double t = 1;
    std::vector<double> next(k);
    double nextLl = -INFINITY;
    for (int half = 0; half < 40; ++half, t *= 0.5) {
      for (size_t j = 0; j < k; ++j)
        next[j] = theta[j] + t * d[j];
      nextLl = logLikelihood(next, x, y, nullptr);
      if (nextLl >= ll)
        break;
    }
    if (!(nextLl >= ll))
      break;
    double moved = 0;
    for (size_t j = 0; j < k; ++j)
      moved = std::max(moved, std::fabs(next[j] - theta[j]) /
                                  std::max(1.0, std::fabs(theta[j])));
    theta = next;
    ll = logLikelihood(theta, x, y, &g);
    if (std::fabs(theta.back()) > 1e8 || moved < 1e-12)
      break;
  }
  // Converged, or the classes are separated by x (the likelihood grows
  // without bound as the slope does): as R's lrm, the last iterate, whose
  // most probable classes are the separating ones.
  fit.intercepts.assign(theta.begin(), theta.end() - 1);
  fit.slope = theta.back();
  fit.logLikelihood = ll;
  fit.separated = fit.iterations > 200 || std::fabs(theta.back()) > 1e8 ||
                  ll > -1e-6 * static_cast<double>(x.size());
  if (!std::isfinite(ll) || !std::isfinite(fit.slope))
    return error = "the ordinal regression failed (a non-finite fit)", false;
  return true;
}

Status easyml::rt::fitOrdinal(const std::vector<double> &x,
                              const std::vector<int> &y, int classes,
                              OrdinalFit &fit) {
  std::string error;
  if (!fitInto(x, y, classes, fit, error))
    return Status::failed(error);
  return Status();
}

namespace {

/// Mean |predicted - known| of `fit` over the samples of `drugs`.
double meanError(const OrdinalFit &fit, const std::vector<double> &x,
                 const std::vector<int> &y) {
  double sum = 0;
  for (size_t i = 0; i < x.size(); ++i)
    sum += std::abs(fit.predict(x[i]) - y[i]);
  return x.empty() ? 0 : sum / x.size();
}

} // namespace

static bool classifyInto(const std::vector<RiskSample> &samples,
                         const std::map<std::string, int> &known,
                         std::vector<RiskAtDose> &out, std::string &error) {
  std::set<double> doses;
  for (const RiskSample &s : samples)
    if (s.dose > 0 && known.count(s.drug) && std::isfinite(s.qnet))
      doses.insert(s.dose);
  int classes = 0;
  for (auto &[drug, c] : known)
    classes = std::max(classes, c + 1);
  out.clear();
  for (double dose : doses) {
    RiskAtDose r;
    r.dose = dose;
    std::vector<double> x;
    std::vector<int> y;
    std::vector<std::string> drug;
    for (const RiskSample &s : samples)
      if (s.dose == dose && known.count(s.drug) && std::isfinite(s.qnet)) {
        x.push_back(s.qnet);
        y.push_back(known.at(s.drug));
        drug.push_back(s.drug);
      }
    char at[32];
    std::snprintf(at, sizeof at, "%g", dose);
    if (!fitInto(x, y, classes, r.fit, error))
      return error = "dose " + std::string(at) + ": " + error, false;
    r.trainingError = meanError(r.fit, x, y);
    std::set<std::string> names(drug.begin(), drug.end());
    for (const std::string &d : names) {
      std::vector<double> tx, vx;
      std::vector<int> ty, vy;
      for (size_t i = 0; i < x.size(); ++i) {
        (drug[i] == d ? vx : tx).push_back(x[i]);
        (drug[i] == d ? vy : ty).push_back(y[i]);
      }
      r.predicted[d] = r.fit.predict(vx.front());
      OrdinalFit without;
      std::string ignored;
      if (fitInto(tx, ty, classes, without, ignored)) {
        r.crossPredicted[d] = without.predict(vx.front());
        r.crossError[d] = meanError(without, vx, vy);
      } else {
        // Without this drug a class is empty or separated: as R's lrm
        // failing, it is not counted.
        r.crossPredicted[d] = -1;
      }
    }
    double sum = 0;
    for (auto &[d, e] : r.crossError)
      sum += e;
    r.crossErrorMean = r.crossError.empty() ? NAN : sum / r.crossError.size();
    out.push_back(std::move(r));
  }
  if (out.empty())
    return error = "no simulation of a drug with a known risk class at a "
                   "dose above 0",
           false;
  return true;
}

Status easyml::rt::classifyRisk(const std::vector<RiskSample> &samples,
                                const std::map<std::string, int> &known,
                                std::vector<RiskAtDose> &out) {
  std::string error;
  if (!classifyInto(samples, known, out, error))
    return Status::failed(error);
  return Status();
}

std::string easyml::rt::riskCsv(const std::vector<RiskAtDose> &doses,
                                const std::map<std::string, int> &known) {
  std::string out = "dose,intercept1,intercept2,slope,training_error,"
                    "loocv_error_mean,drug,known,predicted,loocv_predicted,"
                    "loocv_error,separated\n";
  for (const RiskAtDose &r : doses)
    for (auto &[drug, predicted] : r.predicted) {
      char line[512];
      auto e = r.crossError.find(drug);
      std::snprintf(line, sizeof line,
                    "%g,%.10g,%.10g,%.10g,%.6g,%.6g,%s,%d,%d,%d,%.6g,%d\n",
                    r.dose, r.fit.intercepts.size() > 0 ? r.fit.intercepts[0] : NAN,
                    r.fit.intercepts.size() > 1 ? r.fit.intercepts[1] : NAN,
                    r.fit.slope, r.trainingError, r.crossErrorMean,
                    drug.c_str(), known.at(drug), predicted,
                    r.crossPredicted.at(drug),
                    e == r.crossError.end() ? NAN : e->second,
                    r.fit.separated ? 1 : 0);
      out += line;
    }
  return out;
}

static bool readClasses(const std::string &path,
                        std::map<std::string, int> &out, std::string &error) {
  std::ifstream in(path);
  if (!in)
    return error = "cannot read risk classes '" + path + "'", false;
  auto split = [](const std::string &line) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string item; std::getline(ss, item, ',');) {
      item.erase(0, item.find_first_not_of(" \t\"\r"));
      item.erase(item.find_last_not_of(" \t\"\r") + 1);
      f.push_back(item);
    }
    return f;
  };
  std::string line;
  std::getline(in, line);
  std::vector<std::string> head = split(line);
  auto col = [&](const char *name) {
    return std::find(head.begin(), head.end(), name) - head.begin();
  };
  size_t drug = col("drug"), risk = col("CiPA");
  if (drug >= head.size() || risk >= head.size())
    return error = path + ":1: needs the columns 'drug' and 'CiPA'", false;
  for (int n = 2; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    std::vector<std::string> f = split(line);
    char *end = nullptr;
    long c = f.size() > risk ? std::strtol(f[risk].c_str(), &end, 10) : -1;
    if (f.size() <= std::max(drug, risk) || !end || *end || c < 0 || c > 2)
      return error = path + ":" + std::to_string(n) +
                     ": a drug and a risk class 0, 1 or 2 expected",
             false;
    out[f[drug]] = static_cast<int>(c);
  }
  if (out.empty())
    return error = path + ": no drug", false;
  return true;
}

Status easyml::rt::readRiskClasses(const std::string &path,
                                   std::map<std::string, int> &out) {
  std::string error;
  if (!readClasses(path, out, error))
    return Status::invalid(error);
  return Status();
}
