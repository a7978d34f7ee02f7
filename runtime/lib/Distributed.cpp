//===- Distributed.cpp - one simulation across MPI ranks ------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Distributed.h"
#include "easyml/Runtime/Population.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <thread>
#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

using namespace easyml::rt;

namespace {

double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

std::string mpiError(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  return std::string(text, len);
}

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string jsonEscape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out;
}

/// Rank 0's string on every rank... or `root`'s.
// Tags of the writer protocol (MPI_COMM_WORLD-like communicator).
enum : int {
  kTagStart = 7301,   // rank 0 -> writer: rows, cols (rows < 0: none), path
  kTagData = 7302,    // rank -> writer: row0, rows, cell begin, cell end
  kTagPayload = 7303, // rank -> writer: the rows' values
  kTagClose = 7304,   // rank -> writer: 1 (ok) or 0
  kTagStatus = 7305,  // writer -> rank 0: ok, bytes, seconds; message
};

std::string broadcast(MPI_Comm comm, int root, const std::string &s) {
  long long n = static_cast<long long>(s.size());
  MPI_Bcast(&n, 1, MPI_LONG_LONG, root, comm);
  std::string out(static_cast<size_t>(n), '\0');
  int rank;
  MPI_Comm_rank(comm, &rank);
  if (rank == root)
    out = s;
  if (n)
    MPI_Bcast(out.data(), static_cast<int>(n), MPI_CHAR, root, comm);
  return out;
}

/// Every rank's string, on rank 0 (empty elsewhere).
std::vector<std::string> gatherStrings(MPI_Comm comm, const std::string &s) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int n = static_cast<int>(s.size());
  std::vector<int> counts(size), displs(size);
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  std::string all;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < size; ++r) {
      displs[r] = total;
      total += counts[r];
    }
    all.resize(total);
  }
  MPI_Gatherv(s.data(), n, MPI_CHAR, all.data(), counts.data(),
              displs.data(), MPI_CHAR, 0, comm);
  std::vector<std::string> out;
  if (rank == 0)
    for (int r = 0; r < size; ++r)
      out.push_back(all.substr(displs[r], counts[r]));
  return out;
}

/// Rank 0 always holds cell 0 (it writes cell 0's files): when a split
/// leaves it none, it takes the first block of the rank that has it.
std::vector<CellRange> keepCellZero(std::vector<CellRange> ranges,
                                    int64_t align) {
  if (ranges.empty() || !ranges[0].empty())
    return ranges;
  for (size_t r = 1; r < ranges.size(); ++r)
    if (!ranges[r].empty()) {
      ranges[0] = CellRange{0, std::min(align, ranges[r].end)};
      ranges[r].begin = ranges[0].end;
      if (ranges[r].empty())
        ranges[r] = CellRange{};
      break;
    }
  return ranges;
}

} // namespace

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
                              int64_t rows, int64_t cols,
                              std::string &error) {
  comm_ = comm;
  path_ = path;
  part_ = path + ".part";
  rows_ = rows;
  cols_ = cols;
  int rank;
  MPI_Comm_rank(comm, &rank);
  std::string header =
      npyHeader("'<f8'", "(" + std::to_string(rows) + ", " +
                             std::to_string(cols) + ")");
  header_ = static_cast<int64_t>(header.size());
  // A stale file of the same name would keep its old length.
  if (rank == 0)
    std::remove(part_.c_str());
  MPI_Barrier(comm);
  int rc = MPI_File_open(comm, part_.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY,
                         MPI_INFO_NULL, &fh_);
  std::string mine;
  if (rc != MPI_SUCCESS)
    mine = "cannot write '" + path + "': " + mpiError(rc);
  if (!agree(comm, rc == MPI_SUCCESS, mine)) {
    error = mine;
    if (rc == MPI_SUCCESS)
      MPI_File_close(&fh_);
    return false;
  }
  open_ = true;
  rc = MPI_SUCCESS;
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
    return true;
  }
  if (ok && row0 + n > rows_) {
    mine = "'" + path_ + "' holds " + std::to_string(rows_) +
           " rows; row " + std::to_string(row0 + n - 1) + " was written";
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
  return true;
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
  ok = agree(comm_, ok && drained, mine) && ok;
  int rank;
  MPI_Comm_rank(comm_, &rank);
  bool renamed = true;
  if (rank == 0) {
    if (ok) {
      renamed = std::rename(part_.c_str(), path_.c_str()) == 0;
      if (!renamed)
        mine = "cannot write '" + path_ + "': " + std::strerror(errno);
    }
    if (!ok || !renamed)
      std::remove(part_.c_str());
  }
  if (!agree(comm_, renamed, mine) || !ok) {
    if (!mine.empty())
      error = mine;
    return false;
  }
  return true;
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
  MPI_Send(msg.data(), static_cast<int>(msg.size()), MPI_CHAR, dest,
           kTagStatus, world);
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
                                       int64_t cols, std::string &error) {
  comm_ = comm;
  world_ = world;
  path_ = path;
  part_ = path + ".part";
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
    int64_t head[2] = {rows, cols};
    for (int w = 0; w < writers; ++w) {
      MPI_Send(head, 2, MPI_INT64_T, firstWriter + w, kTagStart, world);
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
  int64_t head[2] = {-1, 0};
  for (int w = 0; w < writers; ++w) {
    MPI_Send(head, 2, MPI_INT64_T, firstWriter + w, kTagStart, world);
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

bool easyml::rt::serveMatrixFile(MPI_Comm world, MPI_Comm writers,
                                 int computeRanks, WriterStats &stats,
                                 std::string &error) {
  int me = 0, k = 1;
  MPI_Comm_rank(writers, &me);
  MPI_Comm_size(writers, &k);
  MPI_Comm_rank(world, &stats.rank);
  stats.writers = k;
  const int first = stats.rank - me;
  int64_t head[2];
  MPI_Recv(head, 2, MPI_INT64_T, 0, kTagStart, world, MPI_STATUS_IGNORE);
  MPI_Status st;
  MPI_Probe(0, kTagStart, world, &st);
  int n = 0;
  MPI_Get_count(&st, MPI_CHAR, &n);
  std::string path(static_cast<size_t>(n), '\0');
  MPI_Recv(path.data(), n, MPI_CHAR, 0, kTagStart, world, MPI_STATUS_IGNORE);
  if (head[0] < 0)
    return true; // nothing to write
  const int64_t rows = head[0], cols = head[1];
  // The computing ranks this writer serves (see openViaWriter).
  int group = 0;
  for (int r = 0; r < computeRanks; ++r)
    group += static_cast<int>(static_cast<int64_t>(r) * k / computeRanks) ==
             me;
  std::string part = path + ".part";
  std::string header = npyHeader("'<f8'", "(" + std::to_string(rows) + ", " +
                                              std::to_string(cols) + ")");
  // The first writer creates the file; the others open it once it exists.
  std::string msg;
  int fd = -1;
  bool ok = true;
  if (me == 0) {
    std::remove(part.c_str());
    fd = ::open(part.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    ok = fd >= 0 && writeAllAt(fd, header.data(), header.size(), 0);
  }
  int created = ok;
  MPI_Bcast(&created, 1, MPI_INT, 0, writers);
  if (me != 0 && created) {
    fd = ::open(part.c_str(), O_WRONLY);
    ok = fd >= 0;
  }
  if (!ok)
    msg = "cannot write '" + path + "': " + std::strerror(errno);
  std::string all = msg;
  bool allOk = agreeWriters(writers, first, ok, all);
  if (me == 0)
    sendStatus(world, 0, allOk, stats, all);
  if (!allOk) {
    if (fd >= 0)
      ::close(fd);
    if (me == 0)
      std::remove(part.c_str());
    error = msg;
    return ok;
  }
  const int64_t headerBytes = static_cast<int64_t>(header.size());
  int closed = 0;
  bool allClosedOk = true, writeOk = true;
  std::vector<double> rowsIn;
  while (closed < group) {
    // Waiting without spinning: rows come once per epoch, and the writer
    // may share its node's cores with computing ranks (MPI_Probe spins).
    double t0 = now();
    for (int flag = 0;;) {
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, world, &flag, &st);
      if (flag)
        break;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    stats.idleSeconds += now() - t0;
    int src = st.MPI_SOURCE;
    if (st.MPI_TAG == kTagClose) {
      int64_t v = 0;
      MPI_Recv(&v, 1, MPI_INT64_T, src, kTagClose, world, MPI_STATUS_IGNORE);
      ++closed;
      allClosedOk = allClosedOk && v != 0;
      continue;
    }
    if (st.MPI_TAG != kTagData) {
      // Not ours (nothing else is sent to this rank): take it off the
      // queue so the loop goes on.
      int count = 0;
      MPI_Get_count(&st, MPI_BYTE, &count);
      std::vector<char> junk(static_cast<size_t>(count));
      MPI_Recv(junk.data(), count, MPI_BYTE, src, st.MPI_TAG, world,
               MPI_STATUS_IGNORE);
      continue;
    }
    int64_t h[4];
    MPI_Recv(h, 4, MPI_INT64_T, src, kTagData, world, MPI_STATUS_IGNORE);
    const int64_t row0 = h[0], nrows = h[1], c0 = h[2], c1 = h[3];
    const int64_t width = c1 - c0;
    rowsIn.resize(static_cast<size_t>(nrows * width));
    MPI_Recv(rowsIn.data(), static_cast<int>(nrows * width), MPI_DOUBLE, src,
             kTagPayload, world, MPI_STATUS_IGNORE);
    if (!writeOk)
      continue;
    if (row0 < 0 || row0 + nrows > rows || c0 < 0 || c1 > cols) {
      writeOk = false;
      msg = "'" + path + "' holds " + std::to_string(rows) + " x " +
            std::to_string(cols) + " values; rank " + std::to_string(src) +
            " sent rows " + std::to_string(row0) + "-" +
            std::to_string(row0 + nrows - 1) + " of cells " +
            std::to_string(c0) + "-" + std::to_string(c1 - 1);
      continue;
    }
    double t1 = now();
    for (int64_t r = 0; r < nrows && writeOk; ++r) {
      off_t off = static_cast<off_t>(headerBytes + ((row0 + r) * cols + c0) *
                                                       8);
      if (!writeAllAt(fd,
                      reinterpret_cast<const char *>(rowsIn.data() +
                                                     r * width),
                      static_cast<size_t>(width) * 8, off)) {
        writeOk = false;
        msg = "writing '" + path + "' failed: " + std::strerror(errno);
      }
    }
    stats.writeSeconds += now() - t1;
    stats.bytes += static_cast<double>(nrows * width) * 8;
  }
  if (::close(fd) != 0 && writeOk) {
    writeOk = false;
    msg = "writing '" + path + "' failed: " + std::strerror(errno);
  }
  // Every writer's groups and writes, then the first writer decides.
  int closedAll = allClosedOk, mineClosed = allClosedOk;
  MPI_Allreduce(&mineClosed, &closedAll, 1, MPI_INT, MPI_MIN, writers);
  std::string writeMsg = msg;
  bool writesOk = agreeWriters(writers, first, writeOk, writeMsg);
  WriterStats total = stats;
  MPI_Reduce(&stats.bytes, &total.bytes, 1, MPI_DOUBLE, MPI_SUM, 0, writers);
  MPI_Reduce(&stats.writeSeconds, &total.writeSeconds, 1, MPI_DOUBLE, MPI_MAX,
             0, writers);
  MPI_Reduce(&stats.idleSeconds, &total.idleSeconds, 1, MPI_DOUBLE, MPI_MIN,
             0, writers);
  if (me == 0) {
    bool renamed = false;
    std::string status = writesOk ? std::string() : writeMsg;
    if (writesOk && closedAll) {
      renamed = std::rename(part.c_str(), path.c_str()) == 0;
      if (!renamed)
        status = "writer rank " + std::to_string(first) + ": cannot write '" +
                 path + "': " + std::strerror(errno);
    }
    if (!renamed)
      std::remove(part.c_str());
    sendStatus(world, 0, renamed, total, status);
    if (writeOk && closedAll && writesOk && !renamed) {
      error = status;
      return false;
    }
  }
  if (!writeOk) {
    error = msg;
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Tables spread over the ranks
//===----------------------------------------------------------------------===//

bool easyml::rt::writeTableParallel(MPI_Comm comm, const std::string &path,
                                    const std::vector<std::string> &names,
                                    const std::vector<double> &rows,
                                    const std::vector<int64_t> &keys,
                                    std::string &error) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  size_t k = names.size();
  size_t n = k ? rows.size() / k : 0;
  bool npy = endsWith(path, ".npy");
  // This rank's rows in groups of one key, and each group's bytes.
  std::vector<long long> groupKey, groupBytes;
  std::vector<std::string> text;
  std::vector<size_t> groupFirst;
  for (size_t r = 0; r < n;) {
    size_t e = r;
    while (e < n && keys[e] == keys[r])
      ++e;
    groupKey.push_back(keys[r]);
    groupFirst.push_back(r);
    if (npy) {
      groupBytes.push_back(static_cast<long long>((e - r) * k * 8));
    } else {
      text.push_back(csvRows(rows.data() + r * k, e - r, k));
      groupBytes.push_back(static_cast<long long>(text.back().size()));
    }
    r = e;
  }
  // Every rank's (key, bytes) pairs, and its row count.
  int ng = static_cast<int>(groupKey.size());
  std::vector<int> counts(size), displs(size);
  MPI_Allgather(&ng, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    displs[r] = total;
    total += counts[r];
  }
  std::vector<long long> allKeys(total), allBytes(total);
  MPI_Allgatherv(groupKey.data(), ng, MPI_LONG_LONG, allKeys.data(),
                 counts.data(), displs.data(), MPI_LONG_LONG, comm);
  MPI_Allgatherv(groupBytes.data(), ng, MPI_LONG_LONG, allBytes.data(),
                 counts.data(), displs.data(), MPI_LONG_LONG, comm);
  long long myRows = static_cast<long long>(n), allRows = 0;
  MPI_Allreduce(&myRows, &allRows, 1, MPI_LONG_LONG, MPI_SUM, comm);
  std::string header = npy ? tableNpyHeader(names, allRows) : csvHeader(names);
  // A group's offset: the header, every group of a smaller key, then the
  // groups of the same key on lower ranks.
  auto offsetOf = [&](int r, int g) {
    long long key = allKeys[displs[r] + g], off = 0;
    for (int q = 0; q < size; ++q)
      for (int j = 0; j < counts[q]; ++j) {
        long long kq = allKeys[displs[q] + j];
        if (kq < key || (kq == key && q < r))
          off += allBytes[displs[q] + j];
      }
    return static_cast<MPI_Offset>(header.size()) + off;
  };
  std::string part = path + ".part";
  if (rank == 0)
    std::remove(part.c_str());
  MPI_Barrier(comm);
  MPI_File fh;
  int rc = MPI_File_open(comm, part.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY,
                         MPI_INFO_NULL, &fh);
  std::string mine;
  if (rc != MPI_SUCCESS)
    mine = "cannot write '" + path + "': " + mpiError(rc);
  if (!agree(comm, rc == MPI_SUCCESS, mine)) {
    error = mine;
    if (rc == MPI_SUCCESS)
      MPI_File_close(&fh);
    return false;
  }
  bool ok = true;
  if (rank == 0)
    ok = MPI_File_write_at(fh, 0, header.data(),
                           static_cast<int>(header.size()), MPI_CHAR,
                           MPI_STATUS_IGNORE) == MPI_SUCCESS;
  for (int g = 0; g < ng && ok; ++g) {
    MPI_Offset off = offsetOf(rank, g);
    const char *data =
        npy ? reinterpret_cast<const char *>(rows.data() + groupFirst[g] * k)
            : text[g].data();
    long long left = groupBytes[g];
    // In pieces that fit an int count.
    while (left > 0 && ok) {
      int piece = static_cast<int>(std::min<long long>(left, 1 << 30));
      ok = MPI_File_write_at(fh, off, data, piece, MPI_CHAR,
                             MPI_STATUS_IGNORE) == MPI_SUCCESS;
      off += piece;
      data += piece;
      left -= piece;
    }
  }
  if (!ok)
    mine = "cannot write '" + path + "'";
  MPI_File_close(&fh);
  ok = agree(comm, ok, mine);
  bool renamed = true;
  if (rank == 0) {
    if (ok) {
      renamed = std::rename(part.c_str(), path.c_str()) == 0;
      if (!renamed)
        mine = "cannot write '" + path + "': " + std::strerror(errno);
    }
    if (!ok || !renamed)
      std::remove(part.c_str());
  }
  if (!agree(comm, renamed, mine) || !ok) {
    error = mine;
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// DistributedReport
//===----------------------------------------------------------------------===//

double DistributedReport::meanImbalance() const {
  double s = 0;
  for (const EpochRecord &e : epochs)
    s += e.imbalance;
  return epochs.empty() ? 0 : s / epochs.size();
}

std::string DistributedReport::json(int indent) const {
  std::string pad(indent, ' ');
  std::string s = "{\n";
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%s  \"ranks\": %d,\n%s  \"cells\": %lld,\n%s  \"steps\": "
                "%lld,\n%s  \"threshold\": %g,\n%s  \"epochs\": %lld,\n%s  "
                "\"mean_imbalance\": %.6f,\n%s  \"bytes_moved\": %.0f,\n%s  "
                "\"wall_seconds\": %.6f,\n",
                pad.c_str(), ranks, pad.c_str(), (long long)cells, pad.c_str(),
                (long long)steps, pad.c_str(), threshold, pad.c_str(),
                (long long)totalEpochs, pad.c_str(), meanImbalance(),
                pad.c_str(), bytesMoved, pad.c_str(), wallSeconds);
  s += buf;
  s += pad + "  \"per_rank\": [";
  for (size_t r = 0; r < rankJson.size(); ++r)
    s += (r ? ",\n" : "\n") + pad + "    " + rankJson[r];
  s += "\n" + pad + "  ],\n";
  s += pad + "  \"epoch_records\": [";
  for (size_t e = 0; e < epochs.size(); ++e) {
    const EpochRecord &ep = epochs[e];
    std::string cells, secs;
    for (size_t r = 0; r < ep.cells.size(); ++r) {
      cells += (r ? ", " : "") + std::to_string(ep.cells[r]);
      std::snprintf(buf, sizeof buf, "%s%.6g", r ? ", " : "", ep.seconds[r]);
      secs += buf;
    }
    std::snprintf(buf, sizeof buf,
                  "{\"step0\": %lld, \"steps\": %lld, \"imbalance\": %.6f, "
                  "\"repartition\": %s, ",
                  (long long)ep.step0, (long long)ep.nsteps, ep.imbalance,
                  ep.repartition ? "true" : "false");
    s += (e ? ",\n" : "\n") + pad + "    " + buf + "\"cells\": [" + cells +
         "], \"seconds\": [" + secs + "]}";
  }
  s += "\n" + pad + "  ],\n";
  s += pad + "  \"repartitions\": [";
  for (size_t i = 0; i < repartitions.size(); ++i) {
    const RepartitionRecord &rp = repartitions[i];
    std::string to;
    for (size_t r = 0; r < rp.to.size(); ++r)
      to += (r ? ", " : "") + std::string("[") +
            std::to_string(rp.to[r].begin) + ", " +
            std::to_string(rp.to[r].end) + "]";
    std::snprintf(buf, sizeof buf,
                  "{\"step\": %lld, \"imbalance\": %.6f, \"bytes\": %.0f, ",
                  (long long)rp.step, rp.imbalance, rp.bytes);
    s += (i ? ",\n" : "\n") + pad + "    " + buf + "\"to\": [" + to + "]}";
  }
  s += "\n" + pad + "  ]\n" + pad + "}";
  return s;
}

void DistributedReport::print(FILE *out) const {
  std::fprintf(out,
               "\nMPI: %d ranks, %lld cells, %lld epochs, mean imbalance "
               "%.1f%% (threshold %.0f%%), %zu repartitions, %.3g MB moved\n",
               ranks, (long long)cells, (long long)totalEpochs,
               100 * meanImbalance(), 100 * threshold, repartitions.size(),
               bytesMoved / 1e6);
  std::fprintf(out, "%-5s %-12s %10s %14s %10s %10s %10s %10s\n", "rank",
               "host", "cells", "cell-steps/s", "busy (s)", "wait (s)",
               "output (s)", "sent (MB)");
  for (const std::string &l : rankLines)
    std::fprintf(out, "%s\n", l.c_str());
}

//===----------------------------------------------------------------------===//
// DistributedSimulation
//===----------------------------------------------------------------------===//

DistributedSimulation::DistributedSimulation(MPI_Comm comm,
                                             const ModelHandle &model,
                                             int64_t cells,
                                             const SimulationOptions &local,
                                             const DistributedOptions &options)
    : comm_(comm), model_(model), cells_(cells), localOptions_(local),
      options_(options), params_(model.desc()) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
  const easyml_model_desc &d = model.desc();
  counters_.assign(d.num_counters, 0);
  std::vector<double> shares = options.shares;
  if (shares.empty())
    shares.assign(size_, 1.0);
  if (static_cast<int>(shares.size()) != size_) {
    setupError_ = "--lb-shares across ranks: " +
                  std::to_string(shares.size()) + " shares for " +
                  std::to_string(size_) + " ranks";
    shares.assign(size_, 1.0);
  }
  ranges_ = keepCellZero(splitCells(cells, shares, kCellAlignment),
                         kCellAlignment);
  balancer_ =
      std::make_unique<Balancer>(cells, kCellAlignment, options.balance);
  balancer_->reset(ranges_);
  settleSteps_ = std::max<int64_t>(1, options.probeSteps);
  if (!owned().empty() && setupError_.empty()) {
    local_ = std::make_unique<Simulation>(model, owned().size(), local);
    local_->valid(setupError_);
  }
  report_.ranks = size_;
  report_.cells = cells;
  report_.threshold = options.balance.threshold;
}

DistributedSimulation::~DistributedSimulation() = default;

bool DistributedSimulation::valid(std::string &error) {
  std::string mine = setupError_;
  if (!agree(comm_, mine.empty(), mine)) {
    error = mine;
    return false;
  }
  return true;
}

bool DistributedSimulation::setParam(const std::string &name, double value,
                                     std::string &error) {
  int64_t p = params_.index(name);
  if (p < 0) {
    error = "model " + std::string(desc().name) + " has no parameter '" + name +
            "'";
    return false;
  }
  if (!std::isfinite(value)) {
    error =
        "parameter '" + name + "' must be finite, got " + std::to_string(value);
    return false;
  }
  params_.set(p, value);
  if (local_)
    local_->setParamSet(params_);
  return true;
}

bool DistributedSimulation::modifyParams(const std::string &mods,
                                         std::string &error,
                                         std::vector<std::string> *log) {
  if (!params_.modify(mods, error, log))
    return false;
  if (local_)
    local_->setParamSet(params_);
  return true;
}

std::vector<std::string> DistributedSimulation::unusedParamSettings() const {
  std::vector<bool> rows(params_.size(), false);
  for (const std::string &name : perCellNames_)
    rows[params_.index(name)] = true;
  return params_.unusedSettings(rows);
}

bool DistributedSimulation::setPerCellParam(const std::string &name,
                                            const double *values,
                                            std::string &error) {
  const easyml_model_desc &d = desc();
  if (params_.index(name) < 0) {
    error = "model " + std::string(d.name) + " has no parameter '" + name + "'";
    return false;
  }
  // Checked over every cell, so every rank gives the same answer.
  for (int64_t c = 0; c < cells_; ++c)
    if (!std::isfinite(values[c])) {
      error = "parameter '" + name + "' of cell " + std::to_string(c) +
              " is not finite (" + std::to_string(values[c]) + ")";
      return false;
    }
  if (local_ && !local_->setPerCellParam(name, values + owned().begin, error))
    return false;
  if (std::find(perCellNames_.begin(), perCellNames_.end(), name) ==
      perCellNames_.end())
    perCellNames_.push_back(name);
  return true;
}

bool DistributedSimulation::failWith(const std::string &error) {
  if (failure_.empty())
    failure_ = error;
  return false;
}

bool DistributedSimulation::initialize(double dt) {
  dt_ = dt;
  std::string mine;
  bool ok = true;
  if (local_) {
    local_->setParamSet(params_);
    local_->initialize(dt);
    if (!local_->failure().empty()) {
      mine = local_->failure();
      ok = false;
    }
  }
  if (!agree(comm_, ok, mine))
    return failWith(mine);
  // Table warnings are the same on every rank: rank 0 says them.
  if (rank_ == 0 && local_)
    tableWarnings = local_->tableWarnings;
  initialized_ = true;
  step_ = 0;
  clock_ = Simulation::Clock{};
  return true;
}

void DistributedSimulation::addStimulus(const Stimulus &stimulus) {
  timeline_.addStimulus(stimulus);
  if (local_)
    local_->addStimulus(stimulus);
}

bool DistributedSimulation::applyRecording(Simulation &sim, CellRange range,
                                           std::string &error) {
  if (!timeline_.recording())
    return true;
  CellRange part = recording_.cells.intersect(range);
  if (part.empty()) {
    sim.stopRecording();
    return true;
  }
  PartSampleFn fn = recording_.fn;
  return sim.record(recording_.variables,
                    CellRange{part.begin - range.begin, part.end - range.begin},
                    timeline_.recordFirst(), timeline_.recordEvery(),
                    [fn, part](int64_t step, const double *values) {
                      fn(step, part, values);
                    },
                    error);
}

bool DistributedSimulation::record(const std::vector<std::string> &variables,
                                   CellRange cells, int64_t first,
                                   int64_t every, PartSampleFn fn,
                                   std::string &error) {
  if (cells.begin < 0 || cells.end > cells_ || cells.empty()) {
    error = "cells [" + std::to_string(cells.begin) + ", " +
            std::to_string(cells.end) + ") to record are outside [0, " +
            std::to_string(cells_) + ")";
    return false;
  }
  timeline_.setRecording(first, every);
  recording_.variables = variables;
  recording_.cells = cells;
  recording_.fn = std::move(fn);
  if (!local_)
    return true;
  // A rank holding none of the cells still checks the names.
  if (recording_.cells.intersect(owned()).empty()) {
    if (!local_->record(variables, CellRange{0, 1}, first, every,
                        [](int64_t, const double *) {}, error))
      return false;
    local_->stopRecording();
    return true;
  }
  return applyRecording(*local_, owned(), error);
}

void DistributedSimulation::stopRecording() {
  timeline_.stopRecording();
  if (local_)
    local_->stopRecording();
}

void DistributedSimulation::addEvent(int64_t step, RankEventFn fn,
                                     int64_t every) {
  timeline_.addEvent(
      step,
      [this, fn](int64_t s, std::string &error) { return fn(*this, s, error); },
      every);
}

void DistributedSimulation::onEpoch(
    std::function<bool(int64_t, std::string &)> fn) {
  epochFns_.push_back(std::move(fn));
}

void DistributedSimulation::onProgress(std::function<void(int64_t)> fn) {
  progress_ = std::move(fn);
}

bool DistributedSimulation::enableBiomarkers(const BiomarkerOptions &options,
                                             std::string &error) {
  std::string mine;
  bool ok = !local_ || local_->enableBiomarkers(options, mine);
  if (!agree(comm_, ok, mine)) {
    // Every rank reports the same problem: no rank prefix.
    size_t colon = mine.find(": ");
    error = colon == std::string::npos ? mine : mine.substr(colon + 2);
    return false;
  }
  bioOn_ = true;
  bioOptions_ = options;
  return true;
}

void DistributedSimulation::drainBiomarkers() {
  if (!bioOn_ || !local_)
    return;
  const BiomarkerTable &t = local_->biomarkers();
  if (!t.rows())
    return;
  size_t base = bio_.values.size();
  bio_.values.insert(bio_.values.end(), t.values.begin(), t.values.end());
  for (size_t i = base; i < bio_.values.size(); i += kBioNumColumns)
    bio_.values[i + kBioCell] += static_cast<double>(owned().begin);
  local_->clearBiomarkers();
}

bool DistributedSimulation::closeBeat() {
  std::string mine;
  bool ok = true;
  if (local_) {
    ok = local_->closeBeat();
    if (!ok)
      mine = local_->failure().empty() ? "closing the beat failed"
                                       : local_->failure();
    else
      clock_ = local_->clock();
  }
  if (!agree(comm_, ok, mine))
    return failWith(mine);
  drainBiomarkers();
  return true;
}

double DistributedSimulation::computeSeconds() const {
  return retiredCompute_ + (local_ ? local_->computeSeconds : 0);
}

void DistributedSimulation::retireLocal() {
  if (!local_)
    return;
  drainBiomarkers();
  std::vector<int64_t> c = local_->counters();
  for (size_t i = 0; i < c.size() && i < counters_.size(); ++i)
    counters_[i] += c[i];
  retiredCompute_ += local_->computeSeconds;
  for (const DeviceReport &dr : local_->report().devices) {
    auto it =
        std::find_if(devices_.begin(), devices_.end(),
                     [&](const DeviceReport &x) { return x.id == dr.id; });
    if (it == devices_.end()) {
      devices_.push_back(dr);
      continue;
    }
    it->cells = dr.cells;
    it->cellSteps += dr.cellSteps;
    it->seconds += dr.seconds;
    it->kernelSeconds += dr.kernelSeconds;
    it->waves += dr.waves;
    it->bytesToDevice += dr.bytesToDevice;
    it->bytesToHost += dr.bytesToHost;
  }
}

std::unique_ptr<Simulation>
DistributedSimulation::build(CellRange range, const Simulation::Clock &clock,
                             std::string &error) {
  SimulationOptions o = localOptions_;
  if (local_)
    o.speeds = local_->speeds();
  auto sim = std::make_unique<Simulation>(model_, range.size(), o);
  if (!sim->valid(error))
    return nullptr;
  sim->setParamSet(params_);
  std::vector<double> fill(range.size(), 0.0);
  for (const std::string &name : perCellNames_)
    if (!sim->setPerCellParam(name, fill.data(), error))
      return nullptr;
  sim->initialize(dt_);
  if (!sim->failure().empty()) {
    error = sim->failure();
    return nullptr;
  }
  if (bioOn_ && !sim->enableBiomarkers(bioOptions_, error))
    return nullptr;
  for (const Stimulus &s : timeline_.stimuli())
    sim->addStimulus(s);
  sim->setClock(clock);
  if (!applyRecording(*sim, range, error))
    return nullptr;
  return sim;
}

bool DistributedSimulation::migrate(const std::vector<CellRange> &next,
                                    double imbalance) {
  struct Timer {
    double t0, &sum;
    ~Timer() { sum += now() - t0; }
  } timer{now(), migrateSeconds_};
  // Every rank packs the same number of doubles per cell.
  long long mineK = local_ ? local_->packedCellSize() : 0, k = 0;
  MPI_Allreduce(&mineK, &k, 1, MPI_LONG_LONG, MPI_MAX, comm_);
  CellRange old = owned(), nw = next[rank_];
  std::vector<double> send(static_cast<size_t>(old.size() * k));
  std::string mine;
  bool ok = !local_ || local_->packCells(CellRange{0, old.size()}, send.data());
  if (!ok)
    mine = local_->failure();
  if (!agree(comm_, ok, mine))
    return failWith(mine);
  std::vector<int> sc(size_), sd(size_), rc(size_), rd(size_);
  int so = 0, ro = 0;
  for (int r = 0; r < size_; ++r) {
    sc[r] = static_cast<int>(old.intersect(next[r]).size());
    sd[r] = so;
    so += sc[r];
    rc[r] = static_cast<int>(ranges_[r].intersect(nw).size());
    rd[r] = ro;
    ro += rc[r];
  }
  std::vector<double> recv(static_cast<size_t>(nw.size() * k));
  MPI_Datatype cell;
  MPI_Type_contiguous(static_cast<int>(std::max<long long>(k, 1)), MPI_DOUBLE,
                      &cell);
  MPI_Type_commit(&cell);
  MPI_Alltoallv(send.data(), sc.data(), sd.data(), cell, recv.data(),
                rc.data(), rd.data(), cell, comm_);
  MPI_Type_free(&cell);
  double sent = 0, received = 0;
  for (int r = 0; r < size_; ++r)
    if (r != rank_) {
      sent += static_cast<double>(sc[r]) * k * 8;
      received += static_cast<double>(rc[r]) * k * 8;
    }
  bytesSent_ += sent;
  bytesReceived_ += received;
  // The clock is rank 0's (it always holds cells).
  long long c[3] = {clock_.step, clock_.beat, clock_.beatStart};
  MPI_Bcast(c, 3, MPI_LONG_LONG, 0, comm_);
  Simulation::Clock clock{c[0], c[1], c[2]};
  retireLocal();
  std::unique_ptr<Simulation> fresh;
  ok = true;
  if (!nw.empty()) {
    fresh = build(nw, clock, mine);
    ok = fresh && fresh->unpackCells(CellRange{0, nw.size()}, recv.data());
    if (fresh && !ok)
      mine = fresh->failure();
  }
  local_ = std::move(fresh);
  if (!agree(comm_, ok, mine))
    return failWith(mine);
  double moved = 0;
  MPI_Allreduce(&sent, &moved, 1, MPI_DOUBLE, MPI_SUM, comm_);
  RepartitionRecord rec;
  rec.step = step_;
  rec.imbalance = imbalance;
  rec.from = ranges_;
  rec.to = next;
  rec.speeds = balancer_->speeds();
  rec.bytes = moved;
  rec.reason = "ranks' times differ";
  report_.repartitions.push_back(rec);
  report_.bytesMoved += moved;
  ranges_ = next;
  balancer_->adopt(next);
  // A move costs the slowest rank `cost` seconds (its simulation is
  // rebuilt: tables, initial waves): judge the next split over a window
  // ten times as long, so balancing never costs more than a tenth.
  double took = now() - timer.t0, cost = 0;
  MPI_Allreduce(&took, &cost, 1, MPI_DOUBLE, MPI_MAX, comm_);
  balancer_->setMinWindowSeconds(
      std::max(options_.balance.minWindowSeconds, 10 * cost));
  return true;
}

bool DistributedSimulation::run(int64_t until) {
  if (!failure_.empty())
    return false;
  if (!initialized_)
    return failWith("initialize() must come before run()");
  double wall0 = now();
  constexpr int64_t kMaxSettleFactor = 64;
  while (step_ < until) {
    std::string mine;
    bool ok = timeline_.fireDue(step_, mine);
    // Stimulus edges are the local simulations' business.
    int64_t end = timeline_.nextStop(step_, until, /*stimulusEdges=*/false);
    // One rank has nothing to balance: epochs end only at events.
    if (size_ > 1)
      end = std::min(end, step_ + settleSteps_);
    if (options_.maxEpochSteps > 0)
      end = std::min(end, step_ + options_.maxEpochSteps);
    if (timeline_.recording()) {
      // At most 64 MiB of samples per rank and epoch (the same cap on
      // every rank: from the whole recorded range).
      int64_t per = static_cast<int64_t>(recording_.variables.size()) *
                    recording_.cells.size();
      timeline_.samplesIn(step_, end,
                          std::max<int64_t>(1, (int64_t(64) << 20) / 8 / per));
    }
    // Compute.
    double t0 = now(), seconds = 0;
    int kind = 0; // 0 ok, 1 failure, 2 non-finite
    int64_t badStep = -1;
    if (ok && local_) {
      ok = local_->run(end);
      seconds = now() - t0;
      if (!ok) {
        if (const NonFinite *nf = local_->nonFinite()) {
          NonFinite g = *nf;
          g.cell += owned().begin;
          mine = "simulation produced a non-finite value: " + g.message();
          kind = 2;
          badStep = g.step;
        } else {
          mine = local_->failure().empty() ? "an event stopped the run"
                                           : local_->failure();
        }
      } else {
        clock_ = local_->clock();
      }
      if (options_.slowRank == rank_ && options_.slowFactor > 1) {
        double extra = seconds * (options_.slowFactor - 1);
        std::this_thread::sleep_for(std::chrono::duration<double>(extra));
        seconds += extra;
      }
    }
    if (!ok && kind == 0)
      kind = 1;
    runSeconds_ += seconds;
    double cellSteps = ok ? static_cast<double>(owned().size()) * (end - step_)
                          : 0;
    cellSteps_ += cellSteps;
    // One exchange of a few numbers per rank.
    double t1 = now();
    double status[4] = {seconds, cellSteps, static_cast<double>(kind),
                        static_cast<double>(badStep)};
    std::vector<double> all(4 * size_);
    MPI_Allgather(status, 4, MPI_DOUBLE, all.data(), 4, MPI_DOUBLE, comm_);
    syncSeconds_ += now() - t1;
    int failed = -1;
    for (int r = 0; r < size_; ++r) {
      if (all[4 * r + 2] == 0)
        continue;
      // The earliest non-finite value wins; else the lowest rank.
      if (failed < 0 ||
          (all[4 * r + 2] == 2 && all[4 * failed + 2] == 2 &&
           all[4 * r + 3] < all[4 * failed + 3]))
        failed = r;
    }
    if (failed >= 0) {
      std::string msg = broadcast(comm_, failed, mine);
      failedRank_ = failed;
      nonFinite_ = all[4 * failed + 2] == 2;
      failure_ = "rank " + std::to_string(failed) + ": " + msg;
      wallSeconds_ += now() - wall0;
      return false;
    }
    EpochRecord rec;
    rec.step0 = step_;
    rec.nsteps = end - step_;
    std::vector<double> secs(size_);
    for (int r = 0; r < size_; ++r) {
      secs[r] = all[4 * r];
      rec.cells.push_back(ranges_[r].size());
      rec.seconds.push_back(secs[r]);
    }
    step_ = end;
    drainBiomarkers();
    // Collective output of the epoch.
    for (auto &fn : epochFns_) {
      std::string err;
      if (!fn(step_, err)) {
        wallSeconds_ += now() - wall0;
        return failWith(err);
      }
    }
    // The same decision on every rank: the same numbers went in.
    Balancer::Decision d = balancer_->observe(secs, rec.nsteps);
    rec.imbalance = d.imbalance;
    if (d.judged) {
      if (d.repartition) {
        rec.repartition = true;
        if (!migrate(keepCellZero(d.ranges, kCellAlignment),
                     d.windowImbalance)) {
          wallSeconds_ += now() - wall0;
          return false;
        }
        settling_ = true;
        settleSteps_ = std::max<int64_t>(1, options_.probeSteps);
      } else if (settling_) {
        settleSteps_ = std::min(settleSteps_ * 2,
                                std::max<int64_t>(1, options_.probeSteps) *
                                    kMaxSettleFactor);
      }
    }
    if (report_.epochs.size() < 20000)
      report_.epochs.push_back(rec);
    ++report_.totalEpochs;
    report_.steps += rec.nsteps;
    if (progress_ && rank_ == 0)
      progress_(step_);
  }
  wallSeconds_ += now() - wall0;
  return true;
}

std::vector<int64_t> DistributedSimulation::counters() {
  std::vector<long long> mine(counters_.begin(), counters_.end());
  if (local_) {
    std::vector<int64_t> c = local_->counters();
    for (size_t i = 0; i < c.size() && i < mine.size(); ++i)
      mine[i] += c[i];
  }
  std::vector<long long> sum(mine.size());
  MPI_Allreduce(mine.data(), sum.data(), static_cast<int>(mine.size()),
                MPI_LONG_LONG, MPI_SUM, comm_);
  return std::vector<int64_t>(sum.begin(), sum.end());
}

DistributedReport DistributedSimulation::report() {
  // This rank's devices: the retired simulations' and the current one's.
  std::vector<DeviceReport> devices = devices_;
  if (local_)
    for (const DeviceReport &dr : local_->report().devices) {
      auto it = std::find_if(devices.begin(), devices.end(),
                             [&](const DeviceReport &x) {
                               return x.id == dr.id;
                             });
      if (it == devices.end()) {
        devices.push_back(dr);
        continue;
      }
      it->cells = dr.cells;
      it->cellSteps += dr.cellSteps;
      it->seconds += dr.seconds;
      it->kernelSeconds += dr.kernelSeconds;
      it->waves += dr.waves;
    }
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  host[sizeof host - 1] = 0;
  double rate = runSeconds_ > 0 ? cellSteps_ / runSeconds_ : 0;
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "{\"rank\": %d, \"host\": \"%s\", \"cells\": %lld, "
                "\"cell_steps\": %.0f, \"compute_seconds\": %.6f, "
                "\"cell_steps_per_second\": %.6e, \"wait_seconds\": %.6f, "
                "\"output_seconds\": %.6f, \"output_bytes\": %.0f, "
                "\"bytes_sent\": %.0f, \"bytes_received\": %.0f, "
                "\"migrate_seconds\": %.6f, \"devices\": [",
                rank_, jsonEscape(host).c_str(), (long long)owned().size(),
                cellSteps_, runSeconds_, rate, syncSeconds_, outputSeconds_,
                outputBytes_, bytesSent_, bytesReceived_, migrateSeconds_);
  std::string js = buf;
  for (size_t i = 0; i < devices.size(); ++i) {
    const DeviceReport &dr = devices[i];
    std::snprintf(buf, sizeof buf,
                  "%s{\"id\": \"%s\", \"cells\": %lld, \"cell_steps\": %.0f, "
                  "\"seconds\": %.6f, \"cell_steps_per_second\": %.6e}",
                  i ? ", " : "", jsonEscape(dr.id).c_str(),
                  (long long)dr.cells, dr.cellSteps, dr.seconds, dr.rate());
    js += buf;
  }
  js += "]}";
  std::string devs;
  for (const DeviceReport &dr : devices) {
    std::snprintf(buf, sizeof buf, "%s%s %.3g", devs.empty() ? "" : ", ",
                  dr.id.c_str(), dr.rate());
    devs += buf;
  }
  std::snprintf(buf, sizeof buf,
                "%-5d %-12.12s %10lld %14.4g %10.4f %10.4f %10.4f %10.3f  %s",
                rank_, host, (long long)owned().size(), rate, runSeconds_,
                syncSeconds_, outputSeconds_, bytesSent_ / 1e6, devs.c_str());
  DistributedReport out = report_;
  out.rankJson = gatherStrings(comm_, js);
  out.rankLines = gatherStrings(comm_, buf);
  double wall = wallSeconds_;
  MPI_Allreduce(&wall, &out.wallSeconds, 1, MPI_DOUBLE, MPI_MAX, comm_);
  return out;
}
