//===- Compile.cpp - a model file compiled through easyml-compile ---------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The runtime has no compiler in it: a .model file is compiled by running
// easyml-compile, whose artifact cache makes an unchanged model a copy.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Simulation/Compile.h"
#include "easyml/Runtime/Simulation/Simulation.h"

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

static std::string compilerPath() {
  if (const char *env = std::getenv("EASYML_COMPILE"); env && *env)
    return env;
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = 0;
    std::string dir(self);
    dir = dir.substr(0, dir.rfind('/'));
    std::string candidate = dir + "/easyml-compile";
    if (access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return "easyml-compile";
}

bool easyml::rt::compileModelFile(const std::string &model,
                                  const std::vector<std::string> &flags,
                                  const std::string &cacheDir,
                                  CompiledModel &out, std::string &error) {
  auto t0 = std::chrono::steady_clock::now();
  if (access(model.c_str(), R_OK) != 0) {
    error = "cannot open model file '" + model + "': " + std::strerror(errno);
    return false;
  }
  const char *tmpdir = std::getenv("TMPDIR");
  std::string lib =
      std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/easyml-bench-XXXXXX";
  int fd = mkstemp(lib.data());
  if (fd < 0) {
    error =
        "cannot create a temporary file '" + lib + "': " + std::strerror(errno);
    return false;
  }
  close(fd);
  std::vector<std::string> argv{compilerPath(), model, "--emit=shared",
                                "-o",           lib,   "--cache-status"};
  if (!cacheDir.empty())
    argv.push_back("--cache-dir=" + cacheDir);
  argv.insert(argv.end(), flags.begin(), flags.end());
  std::string status;
  if (runProcess(argv, &status) != 0) {
    unlink(lib.c_str());
    error = "compiling '" + model + "' failed";
    return false;
  }
  out.library = lib;
  out.cached = status.rfind("cached", 0) == 0;
  out.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  return true;
}

//===----------------------------------------------------------------------===//
// Output helpers
//===----------------------------------------------------------------------===//

std::unique_ptr<easyml::rt::ModelHandle> easyml::rt::loadOrCompileModel(
    const std::string &path, const std::vector<std::string> &flags,
    const std::string &cacheDir, std::string &error, CompiledModel *compiled) {
  if (access(path.c_str(), R_OK) != 0) {
    error = "cannot read model '" + path + "': " + std::strerror(errno);
    return nullptr;
  }
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".so") == 0)
    return ModelHandle::load(path, error);
  CompiledModel c;
  if (!compileModelFile(path, flags, cacheDir, c, error))
    return nullptr;
  auto model = ModelHandle::load(c.library, error);
  unlink(c.library.c_str()); // loaded: the cache keeps the artifact
  if (compiled)
    *compiled = c;
  return model;
}
