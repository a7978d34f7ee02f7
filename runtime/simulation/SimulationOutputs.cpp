//===- Outputs.cpp - output files and reports of one process --------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// What a simulation in one process writes: sample matrices (.npy, row after
// row under a temporary name, renamed into place when complete), biomarker
// tables with parameter columns, and its report. The MPI run writes the
// same bytes with the parallel writers (ParallelIO.h).
//
//===----------------------------------------------------------------------===//

#include "LocalParts.h"
#include "Scheduler.h"

#include "easyml/Runtime/IO/OutputFile.h"
#include "easyml/Runtime/Core/Population.h"
#include "easyml/Runtime/Simulation/Simulation.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>

using namespace easyml::rt;

MatrixFile::~MatrixFile() = default;

SimulationInterface::~SimulationInterface() = default;

OutputAccess::~OutputAccess() = default;

BiomarkerAccess::~BiomarkerAccess() = default;

bool SimulationInterface::runUntil(double ms) {
  return run(std::llround(ms / dt()));
}

namespace {

double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

/// A (rows x cols) float64 .npy written row after row by one process.
class NpyMatrixFile : public MatrixFile {
public:
  bool open(const std::string &path, int64_t rows, int64_t cols,
            int64_t resumeRows, std::string &error) {
    path_ = path;
    rows_ = rows;
    cols_ = cols;
    std::string h = npyHeader("'<f8'", "(" + std::to_string(rows) + ", " +
                                           std::to_string(cols) + ")");
    if (resumeRows > 0) {
      // The header and rows a killed run wrote before its checkpoint.
      written_ = std::min(resumeRows, rows);
      int64_t at = static_cast<int64_t>(h.size()) + written_ * cols * 8;
      file_ = std::make_unique<OutputFile>(path, at);
      if (file_->ok())
        return true;
      error = file_->error();
      file_.reset();
      return false;
    }
    file_ = std::make_unique<OutputFile>(path);
    if (file_->write(h))
      return true;
    error = file_->error();
    file_.reset();
    return false;
  }

  Status addRow(int64_t row, CellRange part, const double *values) override {
    double t0 = now();
    if (row != written_ || written_ >= rows_ || part.begin != 0 ||
        part.end != cols_)
      return Status::failed(
          "'" + path_ + "': row " + std::to_string(row) + " of cells [" +
          std::to_string(part.begin) + ", " + std::to_string(part.end) +
          ") does not follow row " + std::to_string(written_ - 1) + " of " +
          std::to_string(rows_) + " rows of " + std::to_string(cols_) +
          " cells");
    if (!file_->write(values, sizeof(double) * cols_))
      return Status::failed(file_->error());
    ++written_;
    bytes_ += 8.0 * cols_;
    seconds_ += now() - t0;
    return Status();
  }

  Status flush() override { return Status(); }

  Expected<int64_t> checkpoint() override {
    if (!file_ || (file_->position() < 0 && !file_->error().empty()))
      return Status::failed(file_ ? file_->error()
                                  : "'" + path_ + "' is closed");
    return written_;
  }

  Status close(bool keep) override {
    // An abandoned or short file is removed with the OutputFile.
    std::unique_ptr<OutputFile> file = std::move(file_);
    if (!file || !keep)
      return Status(); // abandoned on purpose
    if (written_ != rows_)
      return Status::failed("'" + path_ + "': " + std::to_string(written_) +
                            " of " + std::to_string(rows_) + " rows written");
    if (!file->commit())
      return Status::failed(file->error());
    return Status();
  }

  double seconds() const override { return seconds_; }
  double bytes() const override { return bytes_; }

private:
  std::unique_ptr<OutputFile> file_;
  std::string path_;
  int64_t rows_ = 0, cols_ = 0, written_ = 0;
  double seconds_ = 0, bytes_ = 0;
};

} // namespace

Expected<std::shared_ptr<MatrixFile>>
LocalOutputs::openMatrix(const std::string &path, int64_t rows, int64_t cols,
                         int64_t resumeRows) {
  auto file = std::make_shared<NpyMatrixFile>();
  std::string error;
  if (!file->open(path, rows, cols, resumeRows, error))
    return Status::failed(error);
  return std::shared_ptr<MatrixFile>(file);
}

/// The biomarker rows with one column per parameter in `paramColumns`,
/// each cell's value (cells numbered from `firstCell`).
std::vector<double> easyml::rt::biomarkerRowsWithParams(
    const BiomarkerTable &bt, const std::vector<int64_t> &params,
    int64_t firstCell,
    const std::function<double(int64_t p, int64_t cell)> &value) {
  size_t k0 = kBioNumColumns, k = k0 + params.size();
  std::vector<double> wide(bt.rows() * k);
  for (int64_t r = 0; r < bt.rows(); ++r) {
    std::copy(bt.row(r), bt.row(r) + k0, wide.begin() + r * k);
    int64_t cell = static_cast<int64_t>(bt.row(r)[kBioCell]) - firstCell;
    for (size_t p = 0; p < params.size(); ++p)
      wide[r * k + k0 + p] = value(params[p], cell);
  }
  return wide;
}

bool easyml::rt::biomarkerColumns(const ParamSet &ps,
                                  const std::vector<std::string> &params,
                                  std::vector<std::string> &names,
                                  std::vector<int64_t> &indices,
                                  std::string &error) {
  names.clear();
  for (int c = 0; c < kBioNumColumns; ++c)
    names.push_back(biomarkerColumnName(c));
  for (const std::string &n : params) {
    int64_t p = ps.index(n);
    if (p < 0) {
      error = "model " + std::string(ps.desc().name) +
              " has no parameter '" + n + "' for the biomarker table";
      return false;
    }
    indices.push_back(p);
    names.push_back(n);
  }
  return true;
}

Status LocalBiomarkers::write(const std::string &path,
                              const std::vector<std::string> &paramColumns) {
  std::vector<std::string> names;
  std::vector<int64_t> params;
  std::string error;
  if (!biomarkerColumns(s_.params(), paramColumns, names, params, error))
    return Status::invalid(error);
  LocalParameters values(s_);
  std::vector<double> rows =
      biomarkerRowsWithParams(table(), params, 0, [&](int64_t p, int64_t cell) {
        return values.value(p, cell);
      });
  return writeTable(path, names, rows);
}

BiomarkerTable LocalBiomarkers::lastBeat(int64_t &totalRows) {
  const BiomarkerTable &bt = table();
  totalRows = bt.rows();
  BiomarkerTable last;
  if (!bt.rows())
    return last;
  double beat = bt.row(bt.rows() - 1)[kBioBeat];
  for (int64_t r = 0; r < bt.rows(); ++r)
    if (bt.row(r)[kBioBeat] == beat)
      last.values.insert(last.values.end(), bt.row(r),
                         bt.row(r) + kBioNumColumns);
  return last;
}

const char *easyml::rt::biomarkerColumnName(int column) {
  static const char *const names[kBioNumColumns] = {
      "cell",         "beat",          "start",        "v_rest",
      "v_peak",       "dvdt_max",      "apd30",        "apd50",
      "apd90",        "triangulation", "ca_amplitude", "ca_time_to_peak",
      "apd90_change", "flags"};
  return column >= 0 && column < kBioNumColumns ? names[column] : "?";
}

Status LocalBiomarkers::enable(const BiomarkerOptions &options) {
  if (!s_.usable())
    return Status::failed(s_.failure().empty() ? s_.setupError()
                                               : s_.failure());
  std::string error;
  if (!s_.beats().enable(options, error))
    return Status::invalid(error);
  return Status();
}

bool LocalBiomarkers::closeBeat() { return s_.beats().close(); }

const BiomarkerTable &LocalBiomarkers::table() const {
  return s_.beats().table();
}

void LocalBiomarkers::clear() {
  BiomarkerTable().values.swap(s_.beats().table().values);
}
