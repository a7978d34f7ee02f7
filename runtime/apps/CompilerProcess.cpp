//===- CompilerProcess.cpp - model files compiled by easyml-compile -------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The runtime has no compiler in it: a model file is compiled by running
// the easyml-compile the tool names, whose artifact cache makes an
// unchanged model a copy.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Apps/CompilerProcess.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

using namespace easyml::rt;

/// Runs argv, optionally capturing stdout; returns the exit status.
static int runProcess(const std::vector<std::string> &argv, std::string *out) {
  int pipefd[2] = {-1, -1};
  if (out && pipe(pipefd) != 0)
    return -1;
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    if (out) {
      dup2(pipefd[1], 1);
      close(pipefd[0]);
      close(pipefd[1]);
    }
    std::vector<char *> args;
    for (auto &a : argv)
      args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "easyml: error: cannot run '%s': %s\n", args[0],
                 std::strerror(errno));
    _exit(127);
  }
  if (out) {
    close(pipefd[1]);
    char buf[4096];
    ssize_t n;
    while ((n = read(pipefd[0], buf, sizeof buf)) > 0)
      out->append(buf, n);
    close(pipefd[0]);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Status CompilerProcess::compile(const ModelRequest &request,
                                std::string &library,
                                ModelOrigin &origin) const {
  const std::string &model = request.path;
  auto t0 = std::chrono::steady_clock::now();
  if (access(model.c_str(), R_OK) != 0)
    return Status::invalid("cannot open model file '" + model +
                           "': " + std::strerror(errno));
  const char *tmpdir = std::getenv("TMPDIR");
  std::string lib =
      std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/easyml-bench-XXXXXX";
  int fd = mkstemp(lib.data());
  if (fd < 0)
    return Status::failed("cannot create a temporary file '" + lib +
                          "': " + std::strerror(errno));
  close(fd);
  std::vector<std::string> argv{compiler_, model, "--emit=shared",
                                "-o",      lib,   "--cache-status"};
  if (!cacheDir_.empty())
    argv.push_back("--cache-dir=" + cacheDir_);
  argv.insert(argv.end(), request.flags.begin(), request.flags.end());
  std::string status;
  if (runProcess(argv, &status) != 0) {
    unlink(lib.c_str());
    return Status::invalid("compiling '" + model + "' failed");
  }
  library = lib;
  origin.compiled = true;
  origin.cached = status.rfind("cached", 0) == 0;
  origin.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  return Status::success();
}

Expected<std::unique_ptr<ModelHandle>>
CompilerProcess::load(const ModelRequest &request, ModelOrigin *origin) {
  if (origin)
    *origin = ModelOrigin();
  if (access(request.path.c_str(), R_OK) != 0)
    return Status::invalid("cannot read model '" + request.path +
                           "': " + std::strerror(errno));
  if (isModelLibrary(request.path))
    return ModelHandle::load(request.path);
  std::string library;
  ModelOrigin made;
  if (Status s = compile(request, library, made); !s.ok())
    return s;
  auto model = ModelHandle::load(library);
  unlink(library.c_str()); // loaded: the cache keeps the artifact
  if (origin)
    *origin = made;
  return model;
}
