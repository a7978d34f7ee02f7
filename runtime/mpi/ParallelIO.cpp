//===- ParallelIO.cpp - one output file written by every rank -------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A (rows x cols) .npy matrix that every rank writes its columns of, with
// non-blocking collective MPI-IO or through dedicated writer ranks, and the
// agreement every collective step starts with.
//
//===----------------------------------------------------------------------===//

#include "MpiSupport.h"

#include "easyml/Runtime/MPI/ParallelIO.h"
#include "easyml/Runtime/Core/Population.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace easyml::rt;
using namespace easyml::rt::mpi;

//===----------------------------------------------------------------------===//
// Agreement
//===----------------------------------------------------------------------===//

bool easyml::rt::agree(MPI_Comm comm, bool ok, std::string &error) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int mine = ok ? size : rank, first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size)
    return true;
  std::string msg = broadcast(comm, first, ok ? std::string() : error);
  error = "rank " + std::to_string(first) + ": " + msg;
  return false;
}

Status easyml::rt::agree(MPI_Comm comm, const Status &mine) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int me = mine.ok() ? size : rank, first = size;
  MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size)
    return Status();
  int kind = mine.ok() ? 0 : static_cast<int>(mine.kind());
  MPI_Bcast(&kind, 1, MPI_INT, first, comm);
  std::string msg = broadcast(comm, first, mine.message());
  return Status::error(static_cast<ErrorKind>(kind),
                       "rank " + std::to_string(first) + ": " + msg);
}

//===----------------------------------------------------------------------===//
// ParallelMatrixFile
//===----------------------------------------------------------------------===//

ParallelMatrixFile::~ParallelMatrixFile() {
  if (open_) {
    std::string ignored;
    close(false, ignored);
  }
}

bool ParallelMatrixFile::open(MPI_Comm comm, const std::string &path,
                              int64_t rows, int64_t cols, std::string &error,
                              int64_t resumeRows) {
  comm_ = comm;
  path_ = path;
  part_ = path + ".tmp";
  rows_ = rows;
  cols_ = cols;
  int rank;
  MPI_Comm_rank(comm, &rank);
  std::string header = npyHeader("'<f8'", "(" + std::to_string(rows) + ", " +
                                              std::to_string(cols) + ")");
  header_ = static_cast<int64_t>(header.size());
  written_ = std::min(resumeRows, rows);
  if (resumeRows > 0) {
    // The part a killed run wrote before its checkpoint must be there.
    struct stat st;
    int64_t need = header_ + written_ * cols * 8;
    bool there = ::stat(part_.c_str(), &st) == 0 && st.st_size >= need;
    std::string mine = "cannot continue '" + path + "': '" + part_ +
                       "' is missing or shorter than the checkpoint's " +
                       std::to_string(need) + " bytes";
    if (!agree(comm, rank != 0 || there, mine))
      return error = mine, false;
  }
  if (!openPartFile(comm, part_, path, fh_, error, resumeRows > 0))
    return false;
  open_ = true;
  int rc = MPI_SUCCESS;
  std::string mine;
  if (rank == 0) {
    rc = MPI_File_write_at(fh_, 0, header.data(),
                           static_cast<int>(header.size()), MPI_CHAR,
                           MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
      mine = "cannot write '" + path + "': " + mpiError(rc);
  }
  if (!agree(comm, rc == MPI_SUCCESS, mine)) {
    error = mine;
    close(false, mine);
    return false;
  }
  return true;
}

bool ParallelMatrixFile::drain(int b, std::string &error) {
  Buffer &buf = buffers_[b];
  if (buf.requests.empty())
    return true;
  double t0 = now();
  std::vector<MPI_Status> st(buf.requests.size());
  int rc = MPI_Waitall(static_cast<int>(buf.requests.size()),
                       buf.requests.data(), st.data());
  wait_ += now() - t0;
  buf.requests.clear();
  if (rc != MPI_SUCCESS) {
    error = "writing '" + path_ + "' failed: " + mpiError(rc);
    return false;
  }
  return true;
}

bool ParallelMatrixFile::writeRows(int64_t row0, int64_t n, CellRange part,
                                   const double *data, std::string &error) {
  if (!open_) {
    error = "'" + path_ + "' is not open";
    return false;
  }
  // The buffer written two calls ago must be free again.
  int b = next_;
  next_ ^= 1;
  std::string mine;
  bool ok = drain(b, mine);
  if (writer_ >= 0) {
    // Via the writer rank: this rank's rows only, no agreement.
    if (!ok) {
      error = mine;
      return false;
    }
    int64_t w = part.size();
    if (n > 0)
      written_ = std::max(written_, row0 + n);
    if (n <= 0 || w <= 0)
      return true;
    if (row0 + n > rows_ || n * w > std::numeric_limits<int>::max()) {
      error = "'" + path_ + "': rows " + std::to_string(row0) + "-" +
              std::to_string(row0 + n - 1) + " do not fit";
      return false;
    }
    Buffer &buf = buffers_[b];
    buf.data.assign(data, data + n * w);
    buf.head[0] = row0;
    buf.head[1] = n;
    buf.head[2] = part.begin;
    buf.head[3] = part.end;
    MPI_Request req[2];
    MPI_Isend(buf.head, 4, MPI_INT64_T, writer_, kTagData, world_, &req[0]);
    MPI_Isend(buf.data.data(), static_cast<int>(n * w), MPI_DOUBLE, writer_,
              kTagPayload, world_, &req[1]);
    buf.requests.assign(req, req + 2);
    bytes_ += static_cast<double>(n * w) * 8;
    written_ = std::max(written_, row0 + n);
    return true;
  }
  if (ok && row0 + n > rows_) {
    mine = "'" + path_ + "' holds " + std::to_string(rows_) + " rows; row " +
           std::to_string(row0 + n - 1) + " was written";
    ok = false;
  }
  // Every rank must take part in every collective write: agree first.
  if (!agree(comm_, ok, mine)) {
    error = mine;
    return false;
  }
  Buffer &buf = buffers_[b];
  int64_t w = part.size();
  buf.data.assign(data, data + n * w);
  for (int64_t r = 0; r < n; ++r) {
    MPI_Offset off = header_ + ((row0 + r) * cols_ + part.begin) * 8;
    MPI_Request req;
    int rc = MPI_File_iwrite_at_all(fh_, off, buf.data.data() + r * w,
                                    static_cast<int>(w), MPI_DOUBLE, &req);
    if (rc != MPI_SUCCESS) {
      // Collective: every rank fails the same call.
      error = "writing '" + path_ + "' failed: " + mpiError(rc);
      return false;
    }
    buf.requests.push_back(req);
  }
  bytes_ += static_cast<double>(n * w) * 8;
  written_ = std::max(written_, row0 + n);
  return true;
}

bool ParallelMatrixFile::finishWrites(int64_t &rows, std::string &error) {
  bool ok = drain(0, error);
  ok = drain(1, error) && ok;
  rows = written_;
  if (writer_ < 0)
    return ok;
  // Every row sent, then the writer's word that its group's are written
  // (MPI keeps one sender's messages in order: the rows arrive first).
  double t0 = now();
  int64_t sent = written_;
  MPI_Send(&sent, 1, MPI_INT64_T, writer_, kTagSync, world_);
  int64_t done = 0;
  MPI_Recv(&done, 1, MPI_INT64_T, writer_, kTagSynced, world_,
           MPI_STATUS_IGNORE);
  MPI_Status st;
  MPI_Probe(writer_, kTagSynced, world_, &st);
  int n = 0;
  MPI_Get_count(&st, MPI_CHAR, &n);
  std::string msg(static_cast<size_t>(n), '\0');
  MPI_Recv(msg.data(), n, MPI_CHAR, writer_, kTagSynced, world_,
           MPI_STATUS_IGNORE);
  wait_ += now() - t0;
  if (!done) {
    error = "writer rank " + std::to_string(writer_) + ": " + msg;
    return false;
  }
  return ok;
}

bool ParallelMatrixFile::close(bool ok, std::string &error) {
  if (!open_)
    return false;
  if (writer_ >= 0)
    return closeViaWriter(ok, error);
  std::string mine;
  bool drained = drain(0, mine);
  drained = drain(1, mine) && drained;
  MPI_File_close(&fh_);
  open_ = false;
  // The caller's `ok` is the same on every rank: abandoned, the file goes.
  return commitFile(comm_, ok && drained, part_, path_, mine, error) && ok;
}

//===----------------------------------------------------------------------===//
// A dedicated writer rank
//===----------------------------------------------------------------------===//

namespace {
void sendStatus(MPI_Comm world, int dest, bool ok, const WriterStats &stats,
                const std::string &msg) {
  double v[4] = {ok ? 1.0 : 0.0, stats.bytes, stats.writeSeconds,
                 stats.idleSeconds};
  MPI_Send(v, 4, MPI_DOUBLE, dest, kTagStatus, world);
  MPI_Send(msg.data(), static_cast<int>(msg.size()), MPI_CHAR, dest, kTagStatus,
           world);
}

bool receiveStatus(MPI_Comm world, int source, WriterStats &stats,
                   std::string &msg) {
  double v[4];
  MPI_Recv(v, 4, MPI_DOUBLE, source, kTagStatus, world, MPI_STATUS_IGNORE);
  MPI_Status st;
  MPI_Probe(source, kTagStatus, world, &st);
  int n = 0;
  MPI_Get_count(&st, MPI_CHAR, &n);
  msg.assign(static_cast<size_t>(n), '\0');
  MPI_Recv(msg.data(), n, MPI_CHAR, source, kTagStatus, world,
           MPI_STATUS_IGNORE);
  stats.rank = source;
  stats.bytes = v[1];
  stats.writeSeconds = v[2];
  stats.idleSeconds = v[3];
  return v[0] != 0;
}

/// Writes all of `data` at `offset`; false with errno set on failure.
bool writeAllAt(int fd, const char *data, size_t size, off_t offset) {
  while (size) {
    ssize_t w = ::pwrite(fd, data, size, offset);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return false;
    data += w;
    size -= static_cast<size_t>(w);
    offset += w;
  }
  return true;
}
} // namespace

bool ParallelMatrixFile::openViaWriter(MPI_Comm comm, MPI_Comm world,
                                       int firstWriter, int writers,
                                       const std::string &path, int64_t rows,
                                       int64_t cols, std::string &error,
                                       int64_t resumeRows) {
  comm_ = comm;
  world_ = world;
  written_ = std::min(resumeRows, rows);
  path_ = path;
  part_ = path + ".tmp";
  rows_ = rows;
  cols_ = cols;
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  firstWriter_ = firstWriter;
  writers_ = writers;
  writer_ = firstWriter +
            static_cast<int>(static_cast<int64_t>(rank) * writers / size);
  std::string mine;
  bool ok = true;
  if (rank == 0) {
    int64_t head[3] = {rows, cols, written_};
    for (int w = 0; w < writers; ++w) {
      MPI_Send(head, 3, MPI_INT64_T, firstWriter + w, kTagStart, world);
      MPI_Send(path.data(), static_cast<int>(path.size()), MPI_CHAR,
               firstWriter + w, kTagStart, world);
    }
    WriterStats ignored;
    ok = receiveStatus(world, firstWriter, ignored, mine);
  }
  int flag = ok;
  MPI_Bcast(&flag, 1, MPI_INT, 0, comm);
  mine = broadcast(comm, 0, mine);
  if (!flag) {
    error = mine;
    writer_ = -1;
    return false;
  }
  open_ = true;
  return true;
}

bool ParallelMatrixFile::closeViaWriter(bool ok, std::string &error) {
  std::string mine;
  bool drained = drain(0, mine);
  drained = drain(1, mine) && drained;
  open_ = false;
  int64_t flag = ok && drained;
  MPI_Send(&flag, 1, MPI_INT64_T, writer_, kTagClose, world_);
  int rank;
  MPI_Comm_rank(comm_, &rank);
  std::string msg;
  int written = 1;
  if (rank == 0) {
    written = receiveStatus(world_, firstWriter_, writerStats_, msg);
    writerStats_.writers = writers_;
  }
  MPI_Bcast(&written, 1, MPI_INT, 0, comm_);
  msg = broadcast(comm_, 0, msg);
  // This rank's own failure first, then the writers'.
  ok = agree(comm_, ok && drained, mine) && ok;
  writer_ = -1;
  if (!ok) {
    if (!mine.empty())
      error = mine;
    return false;
  }
  if (!written) {
    error = msg.empty() ? "'" + path_ + "' was not written" : msg;
    return false;
  }
  return true;
}

void easyml::rt::releaseMatrixWriter(MPI_Comm world, int firstWriter,
                                     int writers) {
  int64_t head[3] = {-1, 0, 0};
  for (int w = 0; w < writers; ++w) {
    MPI_Send(head, 3, MPI_INT64_T, firstWriter + w, kTagStart, world);
    MPI_Send(nullptr, 0, MPI_CHAR, firstWriter + w, kTagStart, world);
  }
}

namespace {
/// Whether every writer of `writers` is `ok`; where one is not, `msg`
/// becomes the first failing writer's message, prefixed with its rank in
/// the world communicator (writer i is world rank `first` + i).
bool agreeWriters(MPI_Comm writers, int first, bool ok, std::string &msg) {
  int i, k;
  MPI_Comm_rank(writers, &i);
  MPI_Comm_size(writers, &k);
  int mine = ok ? k : i, failing = k;
  MPI_Allreduce(&mine, &failing, 1, MPI_INT, MPI_MIN, writers);
  if (failing == k)
    return true;
  msg = "writer rank " + std::to_string(first + failing) + ": " +
        broadcast(writers, failing, ok ? std::string() : msg);
  return false;
}
} // namespace

namespace {

/// One dedicated writer rank serving one matrix file: the file from rank
/// 0, the part of it opened, the rows of its group of computing ranks
/// written where they go, then the agreement on the outcome.
class WriterServer {
public:
  WriterServer(MPI_Comm world, MPI_Comm writers, int computeRanks,
               WriterStats &stats)
      : world_(world), writers_(writers), computeRanks_(computeRanks),
        stats_(stats) {
    MPI_Comm_rank(writers, &me_);
    MPI_Comm_size(writers, &k_);
    MPI_Comm_rank(world, &stats.rank);
    stats.writers = k_;
    first_ = stats.rank - me_;
  }

  /// What rank 0 sends first; false when there is no file.
  bool receiveStart() {
    int64_t head[3];
    MPI_Recv(head, 3, MPI_INT64_T, 0, kTagStart, world_, MPI_STATUS_IGNORE);
    MPI_Status st;
    MPI_Probe(0, kTagStart, world_, &st);
    int n = 0;
    MPI_Get_count(&st, MPI_CHAR, &n);
    path_.assign(static_cast<size_t>(n), '\0');
    MPI_Recv(path_.data(), n, MPI_CHAR, 0, kTagStart, world_,
             MPI_STATUS_IGNORE);
    rows_ = head[0];
    cols_ = head[1];
    resumeRows_ = head[2];
    part_ = path_ + ".tmp";
    // The computing ranks this writer serves (see openViaWriter).
    for (int r = 0; r < computeRanks_; ++r)
      group_ +=
          static_cast<int>(static_cast<int64_t>(r) * k_ / computeRanks_) == me_;
    return rows_ >= 0;
  }

  /// The first writer creates the file; the others open it once it
  /// exists. False (after telling rank 0) when one could not.
  bool openFile(bool &ok) {
    std::string header = npyHeader("'<f8'", "(" + std::to_string(rows_) + ", " +
                                                std::to_string(cols_) + ")");
    headerBytes_ = static_cast<int64_t>(header.size());
    ok = true;
    if (me_ == 0 && resumeRows_ > 0) {
      // The part a killed run wrote before its checkpoint must be there.
      struct stat st;
      int64_t need = headerBytes_ + resumeRows_ * cols_ * 8;
      ok = ::stat(part_.c_str(), &st) == 0 && st.st_size >= need;
      fd_ = ok ? ::open(part_.c_str(), O_WRONLY) : -1;
      if (!ok)
        msg_ = "cannot continue '" + path_ + "': '" + part_ +
               "' is missing or shorter than the checkpoint's " +
               std::to_string(need) + " bytes";
      else if (fd_ < 0)
        ok = false;
    } else if (me_ == 0) {
      std::remove(part_.c_str());
      fd_ = ::open(part_.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
      ok = fd_ >= 0 && writeAllAt(fd_, header.data(), header.size(), 0);
    }
    int created = ok;
    MPI_Bcast(&created, 1, MPI_INT, 0, writers_);
    if (me_ != 0 && created) {
      fd_ = ::open(part_.c_str(), O_WRONLY);
      ok = fd_ >= 0;
    }
    if (!ok && msg_.empty())
      msg_ = "cannot write '" + path_ + "': " + std::strerror(errno);
    std::string all = msg_;
    bool allOk = agreeWriters(writers_, first_, ok, all);
    if (me_ == 0)
      sendStatus(world_, 0, allOk, stats_, all);
    if (!allOk) {
      if (fd_ >= 0)
        ::close(fd_);
      // A restart refused leaves the killed run's part as it was.
      if (me_ == 0 && resumeRows_ == 0)
        std::remove(part_.c_str());
    }
    return allOk;
  }

  /// Rows until every computing rank of the group closed the file.
  void serveRows() {
    int closed = 0;
    MPI_Status st;
    while (closed < group_) {
      // Waiting without spinning: rows come once per epoch, and the
      // writer may share its node's cores with computing ranks
      // (MPI_Probe spins).
      double t0 = now();
      for (int flag = 0;;) {
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, world_, &flag, &st);
        if (flag)
          break;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      stats_.idleSeconds += now() - t0;
      if (st.MPI_TAG == kTagClose) {
        int64_t v = 0;
        MPI_Recv(&v, 1, MPI_INT64_T, st.MPI_SOURCE, kTagClose, world_,
                 MPI_STATUS_IGNORE);
        ++closed;
        allClosedOk_ = allClosedOk_ && v != 0;
      } else if (st.MPI_TAG == kTagData) {
        receiveRows(st.MPI_SOURCE);
      } else if (st.MPI_TAG == kTagSync) {
        receiveSync(st.MPI_SOURCE);
      } else {
        // Not ours (nothing else is sent to this rank): take it off the
        // queue so the loop goes on.
        int count = 0;
        MPI_Get_count(&st, MPI_BYTE, &count);
        std::vector<char> junk(static_cast<size_t>(count));
        MPI_Recv(junk.data(), count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG,
                 world_, MPI_STATUS_IGNORE);
      }
    }
  }

  /// Every writer's groups and writes, then the first writer renames the
  /// file into place (or removes it) and tells rank 0.
  bool finish(std::string &error) {
    if (::close(fd_) != 0 && writeOk_) {
      writeOk_ = false;
      msg_ = "writing '" + path_ + "' failed: " + std::strerror(errno);
    }
    int closedAll = allClosedOk_, mineClosed = allClosedOk_;
    MPI_Allreduce(&mineClosed, &closedAll, 1, MPI_INT, MPI_MIN, writers_);
    std::string writeMsg = msg_;
    bool writesOk = agreeWriters(writers_, first_, writeOk_, writeMsg);
    WriterStats total = stats_;
    MPI_Reduce(&stats_.bytes, &total.bytes, 1, MPI_DOUBLE, MPI_SUM, 0,
               writers_);
    MPI_Reduce(&stats_.writeSeconds, &total.writeSeconds, 1, MPI_DOUBLE,
               MPI_MAX, 0, writers_);
    MPI_Reduce(&stats_.idleSeconds, &total.idleSeconds, 1, MPI_DOUBLE, MPI_MIN,
               0, writers_);
    if (me_ == 0) {
      bool renamed = false;
      std::string status = writesOk ? std::string() : writeMsg;
      if (writesOk && closedAll) {
        renamed = std::rename(part_.c_str(), path_.c_str()) == 0;
        if (!renamed)
          status = "writer rank " + std::to_string(first_) +
                   ": cannot write '" + path_ + "': " + std::strerror(errno);
      }
      if (!renamed)
        std::remove(part_.c_str());
      sendStatus(world_, 0, renamed, total, status);
      if (writeOk_ && closedAll && writesOk && !renamed) {
        error = status;
        return false;
      }
    }
    if (!writeOk_)
      error = msg_;
    return writeOk_;
  }

  const std::string &message() const { return msg_; }

private:
  /// A checkpoint: once every computing rank of the group has sent its
  /// rows and asked, each is told whether they are written.
  void receiveSync(int src) {
    int64_t rows = 0;
    MPI_Recv(&rows, 1, MPI_INT64_T, src, kTagSync, world_, MPI_STATUS_IGNORE);
    syncing_.push_back(src);
    if (static_cast<int>(syncing_.size()) < group_)
      return;
    int64_t ok = writeOk_;
    for (int rank : syncing_) {
      MPI_Send(&ok, 1, MPI_INT64_T, rank, kTagSynced, world_);
      MPI_Send(msg_.data(), static_cast<int>(msg_.size()), MPI_CHAR, rank,
               kTagSynced, world_);
    }
    syncing_.clear();
  }

  void receiveRows(int src) {
    int64_t h[4];
    MPI_Recv(h, 4, MPI_INT64_T, src, kTagData, world_, MPI_STATUS_IGNORE);
    const int64_t row0 = h[0], nrows = h[1], c0 = h[2], c1 = h[3];
    const int64_t width = c1 - c0;
    rowsIn_.resize(static_cast<size_t>(nrows * width));
    MPI_Recv(rowsIn_.data(), static_cast<int>(nrows * width), MPI_DOUBLE, src,
             kTagPayload, world_, MPI_STATUS_IGNORE);
    if (!writeOk_)
      return;
    if (row0 < 0 || row0 + nrows > rows_ || c0 < 0 || c1 > cols_) {
      writeOk_ = false;
      msg_ = "'" + path_ + "' holds " + std::to_string(rows_) + " x " +
             std::to_string(cols_) + " values; rank " + std::to_string(src) +
             " sent rows " + std::to_string(row0) + "-" +
             std::to_string(row0 + nrows - 1) + " of cells " +
             std::to_string(c0) + "-" + std::to_string(c1 - 1);
      return;
    }
    double t1 = now();
    for (int64_t r = 0; r < nrows && writeOk_; ++r) {
      off_t off =
          static_cast<off_t>(headerBytes_ + ((row0 + r) * cols_ + c0) * 8);
      if (!writeAllAt(
              fd_, reinterpret_cast<const char *>(rowsIn_.data() + r * width),
              static_cast<size_t>(width) * 8, off)) {
        writeOk_ = false;
        msg_ = "writing '" + path_ + "' failed: " + std::strerror(errno);
      }
    }
    stats_.writeSeconds += now() - t1;
    stats_.bytes += static_cast<double>(nrows * width) * 8;
  }

  MPI_Comm world_, writers_;
  int computeRanks_;
  WriterStats &stats_;
  int me_ = 0, k_ = 1, first_ = 0, group_ = 0, fd_ = -1;
  std::string path_, part_, msg_;
  int64_t rows_ = 0, cols_ = 0, headerBytes_ = 0, resumeRows_ = 0;
  bool writeOk_ = true, allClosedOk_ = true;
  std::vector<int> syncing_;
  std::vector<double> rowsIn_;
};

} // namespace

bool easyml::rt::serveMatrixFile(MPI_Comm world, MPI_Comm writers,
                                 int computeRanks, WriterStats &stats,
                                 std::string &error) {
  WriterServer server(world, writers, computeRanks, stats);
  if (!server.receiveStart())
    return true; // nothing to write
  bool mineOk = true;
  if (!server.openFile(mineOk)) {
    error = server.message();
    return mineOk;
  }
  server.serveRows();
  return server.finish(error);
}

//===----------------------------------------------------------------------===//
// A MatrixFile over the ranks
//===----------------------------------------------------------------------===//

namespace {

/// Rows are buffered on each rank until flush(), which agrees on the rows
/// every rank took (the same sample steps) and writes them while the next
/// epoch computes.
class RankMatrixFile : public MatrixFile {
public:
  explicit RankMatrixFile(MPI_Comm comm) : comm_(comm) {}
  ~RankMatrixFile() override {
    std::string ignored;
    if (file_.isOpen())
      file_.close(false, ignored);
  }
  ParallelMatrixFile &file() { return file_; }
  void setViaWriter() { viaWriter_ = true; }

  Status addRow(int64_t row, CellRange part, const double *values) override {
    if (count_ == 0) {
      first_ = row;
      part_ = part;
    } else if (row != first_ + count_ || part.begin != part_.begin ||
               part.end != part_.end) {
      return Status::failed(
          "'" + file_.path() + "': row " + std::to_string(row) +
          " does not follow the rows buffered since the last flush");
    }
    rows_.insert(rows_.end(), values, values + part.size());
    ++count_;
    return Status();
  }

  Status flush() override {
    std::string error;
    bool ok = flushRows(error);
    return ok ? Status() : Status::failed(error);
  }

  Expected<int64_t> checkpoint() override {
    // Collective like the event that calls it: the buffered rows go out,
    // then this rank's writes are waited for (a writer rank answers once
    // every rank of its group asked, so every rank asks whatever happened
    // before), and the ranks agree on the outcome.
    std::string flushed, finished;
    int64_t rows = 0;
    bool ok = flushRows(flushed);
    ok = file_.finishWrites(rows, finished) && ok;
    std::string error = !flushed.empty() ? flushed : finished;
    if (!agree(comm_, ok, error))
      return Status::failed(error);
    return rows;
  }

  Status close(bool keep) override {
    std::string error;
    if (!file_.isOpen() || file_.close(keep, error))
      return Status();
    return Status::failed(error);
  }

private:
  /// The rows buffered since the last flush, written.
  bool flushRows(std::string &error) {
    double t0 = now();
    // Every rank wrote the same sample steps: agree on them.
    long long mine[2] = {count_ ? first_ : -1, count_}, mx[2];
    MPI_Allreduce(mine, mx, 2, MPI_LONG_LONG, MPI_MAX, comm_);
    bool ok = true;
    if (mx[1] > 0)
      ok = file_.writeRows(mx[0], mx[1], count_ ? part_ : CellRange{},
                           rows_.data(), error);
    rows_.clear();
    count_ = 0;
    seconds_ += now() - t0;
    return ok;
  }

public:
  double seconds() const override { return seconds_ + file_.waitSeconds(); }
  double bytes() const override { return file_.bytesWritten(); }

  std::string summary() const override {
    if (!viaWriter_)
      return "";
    const WriterStats &w = file_.writerStats();
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "%.3g MB written; the busiest writer %.4f s writing, %.4f "
                  "s waiting for rows",
                  w.bytes / 1e6, w.writeSeconds, w.idleSeconds);
    std::string who = w.writers > 1
                          ? "writer ranks " + std::to_string(w.rank) + "-" +
                                std::to_string(w.rank + w.writers - 1)
                          : "writer rank " + std::to_string(w.rank);
    return who + ": " + buf;
  }

  std::string summaryJson() const override {
    if (!viaWriter_)
      return "";
    const WriterStats &w = file_.writerStats();
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "\"writer\": {\"rank\": %d, \"writers\": %d, \"bytes\": "
                  "%.0f, \"write_seconds\": %.6f, \"idle_seconds\": %.6f}",
                  w.rank, w.writers, w.bytes, w.writeSeconds, w.idleSeconds);
    return buf;
  }

private:
  MPI_Comm comm_;
  ParallelMatrixFile file_;
  bool viaWriter_ = false;
  std::vector<double> rows_;
  int64_t first_ = 0, count_ = 0;
  CellRange part_;
  double seconds_ = 0;
};

} // namespace

std::shared_ptr<MatrixFile>
easyml::rt::openRankMatrix(MPI_Comm comm, MPI_Comm world, int firstWriter,
                           int writers, const std::string &path, int64_t rows,
                           int64_t cols, std::string &error,
                           int64_t resumeRows) {
  auto f = std::make_shared<RankMatrixFile>(comm);
  bool opened = firstWriter >= 0
                    ? f->file().openViaWriter(comm, world, firstWriter, writers,
                                              path, rows, cols, error,
                                              resumeRows)
                    : f->file().open(comm, path, rows, cols, error, resumeRows);
  if (!opened)
    return nullptr;
  if (firstWriter >= 0)
    f->setViaWriter();
  return f;
}
