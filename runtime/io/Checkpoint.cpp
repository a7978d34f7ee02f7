//===- Checkpoint.cpp - a whole run saved to continue it ------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/IO/Checkpoint.h"
#include "easyml/Runtime/IO/Json.h"
#include "easyml/Runtime/IO/OutputFile.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

using namespace easyml::rt;

namespace {

std::string quoted(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += std::string("\\") + c;
    else if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else
      out += c;
  }
  return out + "\"";
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

bool wholeNumber(const json::Value &v, int64_t &out) {
  if (!v.isNumber() || v.number != std::floor(v.number) ||
      std::fabs(v.number) > 9.0e15)
    return false;
  out = static_cast<int64_t>(v.number);
  return true;
}

} // namespace

std::string RunPosition::json() const {
  std::string out = "{\"settings\": " + quoted(settings) + ", \"files\": [";
  for (size_t i = 0; i < files.size(); ++i)
    out += std::string(i ? ", " : "") + "[" + quoted(files[i].first) + ", " +
           std::to_string(files[i].second) + "]";
  out += "], \"speeds\": {";
  bool first = true;
  for (auto &[id, speed] : speeds) {
    out += std::string(first ? "" : ", ") + quoted(id) + ": " + number(speed);
    first = false;
  }
  out += "}, \"counters\": [";
  for (size_t i = 0; i < counters.size(); ++i)
    out += std::string(i ? ", " : "") + std::to_string(counters[i]);
  out += "], \"complete\": ";
  out += complete ? "true" : "false";
  if (!client.empty()) {
    out += ", \"client\": {";
    bool first = true;
    for (auto &[name, value] : client) {
      out += std::string(first ? "" : ", ") + quoted(name) + ": " +
             number(value);
      first = false;
    }
    out += "}";
  }
  return out + "}";
}

Status RunPosition::parse(const std::string &line) {
  Expected<json::Value> parsed = json::parse(line);
  if (!parsed.ok() || !parsed->isObject())
    return Status::invalid("a damaged run position");
  const json::Value &v = *parsed;
  const json::Value *s = v.find("settings"), *f = v.find("files"),
                    *sp = v.find("speeds"), *c = v.find("counters");
  if (!s || !s->isString() || !f || !f->isArray() || !sp || !sp->isObject() ||
      !c || !c->isArray())
    return Status::invalid("a damaged run position");
  *this = RunPosition();
  settings = s->string;
  if (const json::Value *c = v.find("complete")) {
    if (c->kind != json::Value::Bool)
      return Status::invalid("a damaged run position");
    complete = c->boolean;
  }
  for (const json::Value &item : f->items) {
    int64_t at = 0;
    if (!item.isArray() || item.items.size() != 2 ||
        !item.items[0].isString() || !wholeNumber(item.items[1], at))
      return Status::invalid("a damaged run position");
    files.emplace_back(item.items[0].string, at);
  }
  for (auto &[id, speed] : sp->members) {
    if (!speed.isNumber())
      return Status::invalid("a damaged run position");
    speeds[id] = speed.number;
  }
  for (const json::Value &item : c->items) {
    int64_t n = 0;
    if (!wholeNumber(item, n))
      return Status::invalid("a damaged run position");
    counters.push_back(n);
  }
  if (const json::Value *cl = v.find("client")) {
    if (!cl->isObject())
      return Status::invalid("a damaged run position");
    for (auto &[name, value] : cl->members) {
      if (!value.isNumber())
        return Status::invalid("a damaged run position");
      client[name] = value.number;
    }
  }
  return Status();
}

int64_t RunPosition::file(const std::string &name) const {
  for (auto &[n, at] : files)
    if (n == name)
      return at;
  return -1;
}

std::string RunPosition::settingsDiffer(const std::string &other) const {
  auto lines = [](const std::string &text) {
    std::map<std::string, std::string> out;
    std::stringstream ss(text);
    for (std::string line; std::getline(ss, line);) {
      size_t eq = line.find('=');
      out[line.substr(0, eq)] =
          eq == std::string::npos ? "" : line.substr(eq + 1);
    }
    return out;
  };
  std::map<std::string, std::string> mine = lines(settings),
                                     theirs = lines(other);
  for (auto &[name, value] : mine) {
    auto it = theirs.find(name);
    if (it == theirs.end())
      return name + ": '" + value + "' in the checkpoint, not given here";
    if (it->second != value)
      return name + ": '" + it->second + "' here, '" + value +
             "' in the checkpoint";
  }
  for (auto &[name, value] : theirs)
    if (!mine.count(name))
      return name + ": '" + value + "' here, not given in the checkpoint";
  return "";
}

Status easyml::rt::readCheckpoint(const std::string &path,
                                  PopulationState &state,
                                  RunPosition &position) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::invalid("cannot read checkpoint '" + path + "'");
  std::stringstream bytes;
  bytes << in.rdbuf();
  if (Status parsed = parseState(bytes.str(), state); !parsed.ok())
    return parsed.withContext(path + ": ");
  if (state.run.empty())
    return Status::invalid(path + ": a state file, not a checkpoint");
  if (Status parsed = position.parse(state.run); !parsed.ok())
    return parsed.withContext(path + ": ");
  position.data = std::move(state.extra);
  return Status();
}

Status easyml::rt::readCheckpointPosition(const std::string &path,
                                          RunPosition &position) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::invalid("cannot read checkpoint '" + path + "'");
  // The magic line, the header (which says whether a run line follows)
  // and the run line.
  std::string magic, header, run;
  std::getline(in, magic);
  std::getline(in, header);
  std::getline(in, run);
  if (magic != "EASYML-STATE" || !in)
    return Status::invalid(path + ": not an EasyML checkpoint");
  const json::Value *isRun = nullptr;
  Expected<json::Value> h = json::parse(header);
  if (h.ok())
    isRun = h->find("run");
  if (!isRun || !isRun->isNumber() || isRun->number == 0)
    return Status::invalid(path + ": a state file, not a checkpoint");
  return position.parse(run).withContext(path + ": ");
  return Status();
}
