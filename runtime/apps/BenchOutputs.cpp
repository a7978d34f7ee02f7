//===- BenchOutputs.cpp - openCARP bench's files of cell 0 ----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "BenchOutputs.h"

#include "easyml/Runtime/Apps/BenchProtocol.h"

#include "easyml/Runtime/Core/Population.h"

#include <cerrno>
#include <chrono>
#include <cstring>

using namespace easyml::rt;

namespace {
double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}
} // namespace

int64_t easyml::rt::sampleCount(int64_t first, int64_t every, int64_t end) {
  return first < end ? (end - 1 - first) / every + 1 : 0;
}

bool CellFile::open(const std::string &path, int64_t resumeAt,
                    std::string &error) {
  path_ = path;
  file_ = resumeAt >= 0 ? std::make_unique<OutputFile>(path, resumeAt)
                        : std::make_unique<OutputFile>(path);
  if (!file_->ok()) {
    error = file_->error();
    file_.reset();
    return false;
  }
  count_ = resumeAt > 0 ? static_cast<long>(resumeAt / sizeof(double)) : 0;
  return true;
}

bool CellFile::commit(std::string &error) {
  if (!file_ || file_->commit())
    return true;
  error = file_->error();
  return false;
}

std::vector<CellFile *> CellZeroOutputs::files() {
  std::vector<CellFile *> out;
  for (CellFile *f : {&tableFile_, &traceFile_, &tBin_, &vmBin_, &iionBin_})
    if (f->file_)
      out.push_back(f);
  for (CellFile &f : svBin_)
    if (f.file_)
      out.push_back(&f);
  return out;
}

bool CellZeroOutputs::open(const easyml_model_desc &d, const BenchProtocol &p,
                           std::string &error, const RunPosition *resume) {
  d_ = &d;
  validate_ = p.validate;
  bool haveFout = p.haveFout || validate_;
  fout_ = p.fout;
  binary_ = validate_ || (p.binary && haveFout);
  auto openFile = [&](CellFile &f, const std::string &path) {
    int64_t at = resume ? resume->file(path) : -1;
    if (resume && at < 0) {
      error = "the checkpoint has no position for output '" + path + "'";
      return false;
    }
    if (f.open(path, at, error))
      return true;
    remove();
    return false;
  };
  if (!binary_) {
    table_ = true;
    if (haveFout) {
      if (!openFile(tableFile_, fout_ + ".txt"))
        return false;
    } else if (!resume) {
      std::fprintf(stderr,
                   "Outputting the following quantities at each "
                   "time:\n%10s\t%10s\t%10s\t\n",
                   "Time", "Vm", "Iion");
    }
  } else {
    if (!openFile(tBin_, fout_ + ".t.bin") ||
        !openFile(vmBin_, fout_ + ".Vm.bin") ||
        !openFile(iionBin_, fout_ + ".Iion.bin"))
      return false;
    if (validate_) {
      svBin_.resize(d.num_states);
      for (int64_t s = 0; s < d.num_states; ++s)
        if (!openFile(svBin_[s],
                      fout_ + "_" + d.name + "." + d.state_names[s] + ".bin"))
          return false;
    }
  }
  trace_ = p.trace && d.num_traces > 0;
  if (trace_) {
    if (!openFile(traceFile_, "Trace_" + std::to_string(p.traceNo) + ".dat"))
      return false;
    std::string h = "t\n";
    for (int64_t i = 0; i < d.num_traces; ++i)
      h += std::string(d.trace_names[i]) + "\n";
    traceHeader_ = std::string(d.name) + "_trace_header.txt";
    if (Status written = writeWholeFile(traceHeader_, h); !written.ok()) {
      remove();
      return error = written.message(), false;
    }
  }
  recorded_ = variablesFor(d, p);
  int slot = 0;
  vmSlot_ = d.vm_index >= 0 ? slot++ : -1;
  iionSlot_ = d.iion_index >= 0 ? slot++ : -1;
  stateSlot_ = validate_ ? slot : -1;
  slot += validate_ ? static_cast<int>(d.num_states) : 0;
  traceSlot_ = trace_ ? slot : -1;
  return true;
}

bool CellZeroOutputs::positions(RunPosition &position, std::string &error) {
  for (CellFile *f : files()) {
    int64_t at = f->file_->position();
    if (at < 0) {
      error = f->file_->error().empty() ? "cannot checkpoint '" + f->path_ +
                                              "': it is not a regular file"
                                        : f->file_->error();
      return false;
    }
    position.files.emplace_back(f->path_, at);
  }
  if (table_ && !tableFile_.file_)
    std::fflush(stdout);
  return true;
}

std::vector<std::string>
CellZeroOutputs::variablesFor(const easyml_model_desc &d,
                              const BenchProtocol &p) {
  std::vector<std::string> v;
  if (d.vm_index >= 0)
    v.push_back(d.external_names[d.vm_index]);
  if (d.iion_index >= 0)
    v.push_back(d.external_names[d.iion_index]);
  if (p.validate)
    for (int64_t s = 0; s < d.num_states; ++s)
      v.push_back(d.state_names[s]);
  if (p.trace && d.num_traces > 0)
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
    std::fprintf(tableFile_.get(), "%10.3f %+.8e %+.8e \n",
                 static_cast<float>(t), v, i);
  if (binary_) {
    tBin_.write(t);
    vmBin_.write(v);
    iionBin_.write(i);
    for (size_t s = 0; s < svBin_.size(); ++s)
      svBin_[s].write(at(stateSlot_ + static_cast<int>(s)));
  }
  if (trace_) {
    FILE *f = traceFile_.get();
    std::fprintf(f, "%4.12f\t", t);
    for (int64_t k = 0; k < d_->num_traces; ++k)
      std::fprintf(f, "%4.12f\t", at(traceSlot_ + static_cast<int>(k)));
    std::fprintf(f, "\n");
  }
  seconds += now() - o0;
}

bool CellZeroOutputs::finish(std::string &error) {
  if (validate_) {
    std::string h = "0  # is bigendian\n";
    char line[512];
    auto entry = [&](const CellFile &f) {
      std::snprintf(line, sizeof line, "%32s %10s %2d %10ld\n", f.path_.c_str(),
                    "Real", 8, f.count_);
      h += line;
    };
    for (const CellFile *f : {&tBin_, &vmBin_, &iionBin_})
      entry(*f);
    for (const CellFile &f : svBin_)
      entry(f);
    if (Status written = writeWholeFile(fout_ + "_header.txt", h);
        !written.ok())
      return error = written.message(), false;
  }
  for (CellFile *f : files())
    if (!f->commit(error))
      return false;
  if (table_ && !tableFile_.file_)
    std::fflush(stdout);
  return true;
}

void CellZeroOutputs::remove() {
  for (CellFile *f : files())
    f->drop();
  if (!traceHeader_.empty())
    std::remove(traceHeader_.c_str());
  traceHeader_.clear();
}
