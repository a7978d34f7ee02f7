//===- Outputs.cpp - easyml-bench's output files --------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "Outputs.h"

#include "easyml/Runtime/Population.h"

#include <cerrno>
#include <chrono>
#include <cstring>

using namespace easyml;
using namespace easyml::bench;

namespace {
double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}
} // namespace

int64_t easyml::bench::sampleCount(int64_t first, int64_t every,
                                   int64_t end) {
  return first < end ? (end - 1 - first) / every + 1 : 0;
}

bool CellZeroOutputs::open(const easyml_model_desc &d, const CommandLine &cl,
                           long traceNo, std::string &error) {
  d_ = &d;
  validate_ = cl.has("validate");
  bool haveFout = cl.has("fout") || validate_;
  fout_ = cl.get("fout");
  binary_ = validate_ || (cl.has("bin") && haveFout);
  auto cannot = [&](const std::string &p) {
    error = "cannot write '" + p + "': " + std::strerror(errno);
    remove();
    return false;
  };
  if (!binary_) {
    if (haveFout) {
      std::string p = fout_ + ".txt";
      table_ = std::fopen(p.c_str(), "w");
      if (!table_)
        return cannot(p);
      written.push_back(p);
    } else {
      table_ = stdout;
      std::fprintf(stderr,
                   "Outputting the following quantities at each "
                   "time:\n%10s\t%10s\t%10s\t\n",
                   "Time", "Vm", "Iion");
    }
  } else {
    for (auto *w : {&tBin_, &vmBin_, &iionBin_}) {
      std::string p = fout_ + (w == &tBin_    ? ".t.bin"
                               : w == &vmBin_ ? ".Vm.bin"
                                              : ".Iion.bin");
      if (!w->open(p))
        return cannot(p);
      written.push_back(p);
    }
    if (validate_) {
      svBin_.resize(d.num_states);
      for (int64_t s = 0; s < d.num_states; ++s) {
        std::string p = fout_ + "_" + d.name + "." + d.state_names[s] + ".bin";
        if (!svBin_[s].open(p))
          return cannot(p);
        written.push_back(p);
      }
    }
  }
  bool tracing = !cl.has("no-trace") && d.num_traces > 0;
  if (tracing) {
    std::string p = "Trace_" + std::to_string(traceNo) + ".dat";
    trace_ = std::fopen(p.c_str(), "w");
    if (!trace_)
      return cannot(p);
    written.push_back(p);
    std::string h = std::string(d.name) + "_trace_header.txt";
    FILE *hf = std::fopen(h.c_str(), "w");
    if (!hf)
      return cannot(h);
    written.push_back(h);
    std::fprintf(hf, "t\n");
    for (int64_t i = 0; i < d.num_traces; ++i)
      std::fprintf(hf, "%s\n", d.trace_names[i]);
    std::fclose(hf);
  }
  if (d.vm_index >= 0) {
    vmSlot_ = static_cast<int>(recorded_.size());
    recorded_.push_back(d.external_names[d.vm_index]);
  }
  if (d.iion_index >= 0) {
    iionSlot_ = static_cast<int>(recorded_.size());
    recorded_.push_back(d.external_names[d.iion_index]);
  }
  if (!svBin_.empty()) {
    stateSlot_ = static_cast<int>(recorded_.size());
    for (int64_t s = 0; s < d.num_states; ++s)
      recorded_.push_back(d.state_names[s]);
  }
  if (trace_) {
    traceSlot_ = static_cast<int>(recorded_.size());
    for (int64_t k = 0; k < d.num_traces; ++k)
      recorded_.push_back(d.trace_names[k]);
  }
  return true;
}

std::vector<std::string>
CellZeroOutputs::variablesFor(const easyml_model_desc &d,
                              const CommandLine &cl) {
  std::vector<std::string> v;
  if (d.vm_index >= 0)
    v.push_back(d.external_names[d.vm_index]);
  if (d.iion_index >= 0)
    v.push_back(d.external_names[d.iion_index]);
  if (cl.has("validate"))
    for (int64_t s = 0; s < d.num_states; ++s)
      v.push_back(d.state_names[s]);
  if (!cl.has("no-trace") && d.num_traces > 0)
    for (int64_t k = 0; k < d.num_traces; ++k)
      v.push_back(d.trace_names[k]);
  return v;
}

void CellZeroOutputs::sample(int64_t step, double dt, const double *values,
                             int64_t stride) {
  double o0 = now();
  double t = step * dt;
  auto at = [&](int slot) { return values[slot * stride]; };
  double v = vmSlot_ >= 0 ? at(vmSlot_) : 0;
  double i = iionSlot_ >= 0 ? at(iionSlot_) : 0;
  if (table_)
    std::fprintf(table_, "%10.3f %+.8e %+.8e \n", static_cast<float>(t), v, i);
  if (binary_) {
    tBin_.write(t);
    vmBin_.write(v);
    iionBin_.write(i);
    for (size_t s = 0; s < svBin_.size(); ++s)
      svBin_[s].write(at(stateSlot_ + static_cast<int>(s)));
  }
  if (trace_) {
    std::fprintf(trace_, "%4.12f\t", t);
    for (int64_t k = 0; k < d_->num_traces; ++k)
      std::fprintf(trace_, "%4.12f\t", at(traceSlot_ + static_cast<int>(k)));
    std::fprintf(trace_, "\n");
  }
  seconds += now() - o0;
}

bool CellZeroOutputs::finish(std::string &error) {
  if (table_ && table_ != stdout)
    std::fclose(table_);
  table_ = nullptr;
  if (trace_)
    std::fclose(trace_);
  trace_ = nullptr;
  for (auto *w : {&tBin_, &vmBin_, &iionBin_})
    w->close();
  for (auto &b : svBin_)
    b.close();
  if (validate_) {
    std::string h = fout_ + "_header.txt";
    FILE *hf = std::fopen(h.c_str(), "w");
    if (!hf) {
      error = "cannot write '" + h + "'";
      return false;
    }
    written.push_back(h);
    std::fprintf(hf, "0  # is bigendian\n");
    std::fprintf(hf, "%32s %10s %2d %10ld\n", tBin_.path_.c_str(), "Real", 8,
                 tBin_.count_);
    std::fprintf(hf, "%32s %10s %2d %10ld\n", vmBin_.path_.c_str(), "Real", 8,
                 vmBin_.count_);
    std::fprintf(hf, "%32s %10s %2d %10ld\n", iionBin_.path_.c_str(), "Real",
                 8, iionBin_.count_);
    for (auto &b : svBin_)
      std::fprintf(hf, "%32s %10s %2d %10ld\n", b.path_.c_str(), "Real", 8,
                   b.count_);
    std::fclose(hf);
  }
  return true;
}

void CellZeroOutputs::remove() {
  if (table_ && table_ != stdout)
    std::fclose(table_);
  table_ = nullptr;
  if (trace_)
    std::fclose(trace_);
  trace_ = nullptr;
  for (auto *w : {&tBin_, &vmBin_, &iionBin_})
    w->close();
  for (auto &b : svBin_)
    b.close();
  for (auto &w : written)
    std::remove(w.c_str());
  written.clear();
}
