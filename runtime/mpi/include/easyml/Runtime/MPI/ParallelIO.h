//===- ParallelIO.h - output files written by every rank --------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Output that every rank of a communicator writes into one file, with the
// bytes one process writing everything would give: sample rows of a .npy
// matrix (collective MPI-IO from double buffers, or rows sent to dedicated
// writer ranks) and tables whose rows are spread over the ranks. Files are
// written under a temporary name and renamed once every rank succeeded.
// Part of EasyMLRuntimeMPI (built only when MPI is found).
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_PARALLELIO_H
#define EASYML_RUNTIME_PARALLELIO_H

#include "easyml/Runtime/Devices/Device.h"
#include "easyml/Runtime/Simulation/SimulationInterface.h"

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace easyml::rt {

/// Collective: every rank says whether its part went well. True when every
/// rank's did; otherwise false on every rank, with `error` the message of
/// the lowest failing rank, prefixed "rank N: ".
bool agree(MPI_Comm comm, bool ok, std::string &error);
/// The same for a Status: an error on every rank, with the lowest failing
/// rank's kind and message (prefixed "rank N: ").
Status agree(MPI_Comm comm, const Status &mine);

/// What the dedicated writer ranks did for one ParallelMatrixFile.
struct WriterStats {
  /// The first writer's rank in the world communicator, and how many.
  int rank = -1, writers = 1;
  /// Bytes written by all writers.
  double bytes = 0;
  /// The busiest writer's seconds spent writing, and waiting for rows.
  double writeSeconds = 0, idleSeconds = 0;
};

/// A file of one (rows x cols) float64 .npy matrix that every rank writes
/// its columns of: row r, column c at the header + (r*cols + c) * 8.
/// Rows are written with non-blocking collective MPI-IO writes from two
/// buffers per rank, so a write overlaps the computation that follows it.
class ParallelMatrixFile {
public:
  ParallelMatrixFile() = default;
  ~ParallelMatrixFile();
  /// Collective. Creates `path` (as `path`.tmp until close()), or with
  /// `resumeRows` > 0 continues the `path`.tmp a killed run left with that
  /// many rows written (a restart from a checkpoint).
  bool open(MPI_Comm comm, const std::string &path, int64_t rows,
            int64_t cols, std::string &error, int64_t resumeRows = 0);
  /// Waits for this rank's writes; afterwards the rows written so far
  /// (every rank's, as writeRows() is collective) are in the file. Not
  /// collective, but via writer ranks every rank of `comm` must call it
  /// (a writer answers once its whole group has).
  bool finishWrites(int64_t &rows, std::string &error);
  /// Collective over `comm`, the computing ranks: the same file, written
  /// by the `writers` dedicated writer ranks `firstWriter`, ... of `world`
  /// (which run serveMatrixFile()); rank r of `comm` sends to writer
  /// r * writers / size(comm), so each serves a contiguous group. Rank 0
  /// of `comm` must be rank 0 of `world`. Rows are sent without blocking,
  /// from two buffers per rank; writeRows() is then not collective and
  /// needs no agreement.
  /// With `resumeRows` > 0 the writers continue the `path`.tmp a killed
  /// run left with that many rows written.
  bool openViaWriter(MPI_Comm comm, MPI_Comm world, int firstWriter,
                     int writers, const std::string &path, int64_t rows,
                     int64_t cols, std::string &error,
                     int64_t resumeRows = 0);
  /// Whether the rows go to a writer rank (openViaWriter()).
  bool viaWriter() const { return writer_ >= 0; }
  bool isOpen() const { return open_; }
  /// Collective (every rank calls with the same row0 and n; `part` may be
  /// empty), except via a writer rank. `data` holds n rows of part.size()
  /// values; it is copied.
  bool writeRows(int64_t row0, int64_t n, CellRange part, const double *data,
                 std::string &error);
  /// Collective. Waits for the writes, closes, and renames the file into
  /// place when every rank succeeded (`ok`), else removes it.
  bool close(bool ok, std::string &error);
  /// Seconds this rank waited for its writes (or sends).
  double waitSeconds() const { return wait_; }
  double bytesWritten() const { return bytes_; }
  const std::string &path() const { return path_; }
  /// Via a writer rank, on rank 0 after close(): what the writer did.
  const WriterStats &writerStats() const { return writerStats_; }

private:
  bool drain(int buffer, std::string &error);
  bool closeViaWriter(bool ok, std::string &error);
  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Comm world_ = MPI_COMM_NULL;
  int writer_ = -1; // this rank's writer
  int firstWriter_ = -1, writers_ = 0;
  WriterStats writerStats_;
  MPI_File fh_ = MPI_FILE_NULL;
  bool open_ = false;
  std::string path_, part_;
  int64_t rows_ = 0, cols_ = 0, header_ = 0, written_ = 0;
  struct Buffer {
    std::vector<double> data;
    int64_t head[4] = {0, 0, 0, 0}; // row0, rows, first and last cell + 1
    std::vector<MPI_Request> requests;
  } buffers_[2];
  int next_ = 0;
  double wait_ = 0, bytes_ = 0;
};

/// Runs on each dedicated writer rank of `world` (the ranks of `writers`,
/// which follow the `computeRanks` computing ones): receives the file
/// opened by ParallelMatrixFile::openViaWriter() and the rows its group of
/// computing ranks sends, writes them into `path`.part with positional
/// writes (the first writer creates it), and, once every writer's group
/// closed it, the first writer renames it into place when every
/// computing rank and every writer succeeded, else removes it. Returns
/// then (or when rank 0 said there is no file: releaseMatrixWriter()).
/// False, with `error`, only when this writer itself failed (a computing
/// rank's failure is that rank's to report).
bool serveMatrixFile(MPI_Comm world, MPI_Comm writers, int computeRanks,
                     WriterStats &stats, std::string &error);

/// From rank 0 of `world`, when no file will be opened via the writer
/// ranks `firstWriter`, ...: lets serveMatrixFile() return.
void releaseMatrixWriter(MPI_Comm world, int firstWriter, int writers);

/// The last `count` ranks of `world` set aside to write sample matrices
/// (serveMatrixFile) while the others compute: a split of `world` made
/// once, collectively.
class WriterRanks {
public:
  /// Collective over `world`. `count` 0: no writer ranks (every rank
  /// computes, in `world`).
  WriterRanks(MPI_Comm world, int count);
  ~WriterRanks();
  WriterRanks(const WriterRanks &) = delete;
  WriterRanks &operator=(const WriterRanks &) = delete;
  /// False (the same on every rank) unless 0 <= count < size(world).
  bool valid(std::string &error) const;
  /// Whether this rank writes (and computes nothing).
  bool writing() const { return count_ > 0 && rank_ >= first_; }
  /// The computing ranks' communicator (on computing ranks).
  MPI_Comm computing() const { return comm_; }
  /// The first writer rank of `world` (-1 without writers) and how many.
  int first() const { return count_ > 0 ? first_ : -1; }
  int count() const { return count_; }
  int worldSize() const { return size_; }
  /// On writer ranks: serves the computing ranks' sample matrices until
  /// they are done (close or release()).
  bool serve(std::string &error);
  /// On computing ranks, once their simulation is gone: lets the writers
  /// go when no sample matrix went to them (`used` as
  /// DistributedSimulation::usedWriters()).
  void release(bool used);
  /// " computing, rank 3 writing", or "" without writers.
  std::string describe() const;

private:
  MPI_Comm world_, comm_ = MPI_COMM_NULL;
  int count_, rank_ = 0, size_ = 1, first_ = 0;
};

/// Collective: writes a table of `names.size()` columns whose rows are
/// spread over the ranks into `path` in writeTable()'s formats (CSV, or a
/// structured .npy), the same bytes as one process writing every row. Each
/// rank's `rows` are ordered by `keys` (one per row); the file holds the
/// rows of all ranks ordered by key, ranks in order among equal keys.
bool writeTableParallel(MPI_Comm comm, const std::string &path,
                        const std::vector<std::string> &names,
                        const std::vector<double> &rows,
                        const std::vector<int64_t> &keys, std::string &error);

/// Collective: a sample matrix every rank of `comm` writes its columns of
/// (MatrixFile): rows buffered per rank until flush(), which writes them
/// with ParallelMatrixFile, directly or through the `writers` writer ranks
/// of `world` from `firstWriter` on (none when firstWriter < 0).
std::shared_ptr<MatrixFile> openRankMatrix(MPI_Comm comm, MPI_Comm world,
                                           int firstWriter, int writers,
                                           const std::string &path,
                                           int64_t rows, int64_t cols,
                                           std::string &error,
                                           int64_t resumeRows = 0);

} // namespace easyml::rt

#endif // EASYML_RUNTIME_PARALLELIO_H
