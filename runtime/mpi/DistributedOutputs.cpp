//===- DistributedOutputs.cpp - output files and reports across ranks -----===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// What a simulation across ranks writes, with the bytes one process would
// write: sample matrices and biomarker tables through the parallel writers
// (ParallelIO.h), the last beat gathered on rank 0, and the report.
//
//===----------------------------------------------------------------------===//

#include "MpiSupport.h"

#include "easyml/Runtime/MPI/Distributed.h"
#include "easyml/Runtime/Core/Population.h"

#include <algorithm>
#include <limits>

using namespace easyml::rt;

Status DistributedSimulation::agree(Status mine) {
  return rt::agree(comm_, mine);
}

TissueCoupling *DistributedSimulation::coupling() {
  return local_ ? local_->coupling() : nullptr;
}

std::string DistributedSimulation::deviceDescription() const {
  return "rank " + std::to_string(rank_) + " of " + std::to_string(size_) +
         (local_ ? ": " + local_->deviceDescription()
                 : std::string(": no cells"));
}

std::string DistributedSimulation::variantName() const {
  return local_ ? local_->variantName() : "?";
}

bool DistributedSimulation::syncOutputs(std::string &error) {
  for (auto &fn : epochFns_)
    if (!fn(step_, error))
      return false;
  for (auto &weak : matrices_)
    if (std::shared_ptr<MatrixFile> m = weak.lock())
      if (Status flushed = m->flush(); !flushed.ok())
        return error = flushed.message(), false;
  return true;
}

Expected<std::shared_ptr<MatrixFile>>
DistributedSimulation::openMatrix(const std::string &path, int64_t rows,
                                  int64_t cols, int64_t resumeRows) {
  usedWriters_ |= options_.firstWriter >= 0;
  std::string error;
  std::shared_ptr<MatrixFile> f =
      openRankMatrix(comm_, options_.world, options_.firstWriter,
                     options_.writers, path, rows, cols, error, resumeRows);
  if (!f)
    return Status::failed(error);
  matrices_.push_back(f);
  return f;
}

Status DistributedSimulation::writeBiomarkers(
    const std::string &path, const std::vector<std::string> &paramColumns) {
  std::vector<std::string> names;
  std::vector<int64_t> params;
  std::string error;
  bool ok = biomarkerColumns(params_, paramColumns, names, params, error);
  if (!rt::agree(comm_, ok, error))
    return Status::invalid(error);
  std::vector<double> rows =
      biomarkerRowsWithParams(bio_, params, 0, [&](int64_t p, int64_t cell) {
        return parameters().value(p, cell);
      });
  std::vector<int64_t> keys(bio_.rows());
  for (int64_t r = 0; r < bio_.rows(); ++r)
    keys[r] = static_cast<int64_t>(bio_.row(r)[kBioBeat]);
  if (!writeTableParallel(comm_, path, names, rows, keys, error))
    return Status::failed(error);
  return Status();
}

BiomarkerTable DistributedSimulation::lastBeat(int64_t &totalRows) {
  const BiomarkerTable &bt = bio_;
  long long rows = bt.rows(), all = 0;
  MPI_Allreduce(&rows, &all, 1, MPI_LONG_LONG, MPI_SUM, comm_);
  totalRows = all;
  long long lastMine =
                bt.rows()
                    ? static_cast<long long>(bt.row(bt.rows() - 1)[kBioBeat])
                    : -1,
            last = -1;
  MPI_Allreduce(&lastMine, &last, 1, MPI_LONG_LONG, MPI_MAX, comm_);
  std::vector<double> mine;
  for (int64_t r = 0; r < bt.rows(); ++r)
    if (static_cast<long long>(bt.row(r)[kBioBeat]) == last)
      mine.insert(mine.end(), bt.row(r), bt.row(r) + kBioNumColumns);
  int n = static_cast<int>(mine.size());
  std::vector<int> counts(size_), displs(size_);
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm_);
  int total = 0;
  for (int r = 0; r < size_; ++r) {
    displs[r] = total;
    total += counts[r];
  }
  BiomarkerTable out;
  out.values.resize(rank_ == 0 ? total : 0);
  MPI_Gatherv(mine.data(), n, MPI_DOUBLE, out.values.data(), counts.data(),
              displs.data(), MPI_DOUBLE, 0, comm_);
  return out;
}

double DistributedSimulation::computeSeconds() {
  return slowest(rankComputeSeconds());
}

double DistributedSimulation::slowest(double seconds) {
  double out = 0;
  MPI_Allreduce(&seconds, &out, 1, MPI_DOUBLE, MPI_MAX, comm_);
  return out;
}

std::string DistributedSimulation::reportJson(int indent) {
  return report().json(indent);
}

void DistributedSimulation::printReport(FILE *out) {
  DistributedReport r = report();
  if (rank_ == 0)
    r.print(out);
}

void DistributedSimulation::summarize(RunSummary &s) {
  const easyml_model_desc &d = desc();
  s.model = d.name;
  s.numStates = d.num_states;
  s.cells = numCells();
  s.dt = dt();
  s.variant = variantName();
  s.device = deviceDescription();
  s.warnings = firedWarnings(d, counters());
  s.adaptiveSteps = adaptiveSteps();
  s.acrossRanks = true;
  s.ranks = ranks();
  DistributedReport r = report();
  s.epochs = r.totalEpochs;
  s.reportJson = r.json(2);
  if (rank_ == 0)
    s.reportTable = printedBy([&](FILE *f) { r.print(f); });
}

BiomarkerTable DistributedSimulation::allBiomarkers() {
  int n = static_cast<int>(bio_.values.size());
  std::vector<int> counts(size_), displs(size_);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, comm_);
  int total = 0;
  for (int r = 0; r < size_; ++r) {
    displs[r] = total;
    total += counts[r];
  }
  std::vector<double> all(total);
  MPI_Allgatherv(bio_.values.data(), n, MPI_DOUBLE, all.data(), counts.data(),
                 displs.data(), MPI_DOUBLE, comm_);
  // One process's order: beat by beat, cells in order.
  int64_t rows = total / kBioNumColumns;
  std::vector<int64_t> order(rows);
  for (int64_t r = 0; r < rows; ++r)
    order[r] = r;
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    const double *x = &all[a * kBioNumColumns], *y = &all[b * kBioNumColumns];
    return x[kBioBeat] != y[kBioBeat] ? x[kBioBeat] < y[kBioBeat]
                                      : x[kBioCell] < y[kBioCell];
  });
  BiomarkerTable out;
  out.values.reserve(all.size());
  for (int64_t r : order)
    out.values.insert(out.values.end(), &all[r * kBioNumColumns],
                      &all[r * kBioNumColumns] + kBioNumColumns);
  return out;
}

void DistributedSimulation::gatherSamples(std::vector<int64_t> &steps,
                                          std::vector<double> &values,
                                          int64_t width) {
  // Every step any rank took: ranks with no cell in the recorded range
  // took none.
  int n = static_cast<int>(steps.size());
  std::vector<int> counts(size_), displs(size_);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, comm_);
  int total = 0;
  for (int r = 0; r < size_; ++r) {
    displs[r] = total;
    total += counts[r];
  }
  std::vector<int64_t> all(total);
  MPI_Allgatherv(steps.data(), n, MPI_INT64_T, all.data(), counts.data(),
                 displs.data(), MPI_INT64_T, comm_);
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  std::vector<double> full(all.size() * width,
                           -std::numeric_limits<double>::infinity());
  for (size_t k = 0; k < steps.size(); ++k) {
    size_t at =
        std::lower_bound(all.begin(), all.end(), steps[k]) - all.begin();
    std::copy(values.begin() + k * width, values.begin() + (k + 1) * width,
              full.begin() + at * width);
  }
  // Each cell's value is on the rank holding it, -inf elsewhere: the
  // maximum is every cell's value, bit for bit.
  MPI_Allreduce(MPI_IN_PLACE, full.data(), static_cast<int>(full.size()),
                MPI_DOUBLE, MPI_MAX, comm_);
  steps = all;
  values.swap(full);
}
