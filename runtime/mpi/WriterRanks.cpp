//===- WriterRanks.cpp - ranks set aside to write sample matrices ---------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/MPI/ParallelIO.h"

using namespace easyml::rt;

WriterRanks::WriterRanks(MPI_Comm world, int count)
    : world_(world), count_(count) {
  MPI_Comm_rank(world, &rank_);
  MPI_Comm_size(world, &size_);
  if (count_ <= 0 || count_ >= size_) {
    comm_ = world;
    return;
  }
  first_ = size_ - count_;
  MPI_Comm_split(world, writing() ? 1 : 0, rank_, &comm_);
}

WriterRanks::~WriterRanks() {
  if (comm_ != world_ && comm_ != MPI_COMM_NULL)
    MPI_Comm_free(&comm_);
}

bool WriterRanks::valid(std::string &error) const {
  if (count_ >= 0 && count_ < size_)
    return true;
  error = "writer ranks: need 1 <= N < the " + std::to_string(size_) +
          " ranks (the last N write), got " + std::to_string(count_);
  return false;
}

bool WriterRanks::serve(std::string &error) {
  WriterStats stats;
  return serveMatrixFile(world_, comm_, first_, stats, error);
}

void WriterRanks::release(bool used) {
  if (count_ > 0 && rank_ == 0 && !used)
    releaseMatrixWriter(world_, first_, count_);
}

std::string WriterRanks::describe() const {
  if (count_ <= 0)
    return "";
  if (count_ == 1)
    return " computing, rank " + std::to_string(first_) + " writing";
  return " computing, ranks " + std::to_string(first_) + "-" +
         std::to_string(first_ + count_ - 1) + " writing";
}
