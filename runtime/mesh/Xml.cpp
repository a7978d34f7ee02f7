//===- Xml.cpp - the XML a .vtu file is written in ------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "Xml.h"

#include <algorithm>
#include <cstring>

using namespace easyml::rt;
using namespace easyml::rt::mesh;

const std::string *XmlElement::attribute(std::string_view key) const {
  for (auto &[k, v] : attributes)
    if (k == key)
      return &v;
  return nullptr;
}

std::vector<const XmlElement *>
XmlElement::childrenNamed(std::string_view key) const {
  std::vector<const XmlElement *> out;
  for (const XmlElement &c : children)
    if (c.name == key)
      out.push_back(&c);
  return out;
}

namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool isNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == ':' || c == '-' || c == '.';
}

/// The five named entities of XML, decoded; others are left as written.
std::string decode(std::string_view v) {
  static const std::pair<const char *, char> entities[] = {{"&lt;", '<'},
                                                           {"&gt;", '>'},
                                                           {"&amp;", '&'},
                                                           {"&quot;", '"'},
                                                           {"&apos;", '\''}};
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    bool done = false;
    for (auto &[text, c] : entities)
      if (v.substr(i, std::strlen(text)) == text) {
        out += c;
        i += std::strlen(text) - 1;
        done = true;
        break;
      }
    if (!done)
      out += v[i];
  }
  return out;
}

class XmlParser {
public:
  explicit XmlParser(const MeshText &file) : name_(file.name), s_(file.text) {}
  Expected<XmlElement> parse();

private:
  Status error(const std::string &what) { return errorAt(pos_, what); }
  Status errorAt(size_t pos, const std::string &what) {
    return Status::invalid(name_ + ":" + std::to_string(lineAt(pos)) + ": " +
                           what);
  }
  int64_t lineAt(size_t pos) {
    if (pos < linePos_) {
      linePos_ = 0;
      line_ = 1;
    }
    line_ += std::count(s_.begin() + linePos_, s_.begin() + pos, '\n');
    linePos_ = pos;
    return line_;
  }
  bool startsWith(std::string_view p) const {
    return s_.substr(pos_, p.size()) == p;
  }
  Status skipTo(std::string_view end, const char *what);
  std::string_view name();
  Status attributes(XmlElement &e, bool &selfClosing);
  Status startTag();
  Status endTag();
  Status text(size_t end);

  std::string name_;
  std::string_view s_;
  size_t pos_ = 0, linePos_ = 0;
  int64_t line_ = 1;
  XmlElement root_;
  bool haveRoot_ = false;
  /// The open elements and where the content of each starts.
  std::vector<std::pair<XmlElement *, size_t>> open_;
};

Status XmlParser::skipTo(std::string_view end, const char *what) {
  size_t at = s_.find(end, pos_);
  if (at == std::string_view::npos)
    return error(std::string("unterminated ") + what);
  pos_ = at + end.size();
  return Status::success();
}

std::string_view XmlParser::name() {
  size_t start = pos_;
  while (pos_ < s_.size() && isNameChar(s_[pos_]))
    ++pos_;
  return s_.substr(start, pos_ - start);
}

Status XmlParser::attributes(XmlElement &e, bool &selfClosing) {
  while (true) {
    while (pos_ < s_.size() && isSpace(s_[pos_]))
      ++pos_;
    if (pos_ >= s_.size())
      return error("unterminated tag <" + e.name + ">");
    if (startsWith("/>") || s_[pos_] == '>') {
      selfClosing = s_[pos_] == '/';
      pos_ += selfClosing ? 2 : 1;
      return Status::success();
    }
    std::string_view key = name();
    if (key.empty())
      return error("unexpected '" + std::string(1, s_[pos_]) + "' in <" +
                   e.name + ">");
    if (pos_ >= s_.size() || s_[pos_] != '=' || pos_ + 1 >= s_.size() ||
        (s_[pos_ + 1] != '"' && s_[pos_ + 1] != '\''))
      return error("attribute '" + std::string(key) + "' of <" + e.name +
                   "> needs a quoted value");
    char quote = s_[pos_ + 1];
    size_t end = s_.find(quote, pos_ + 2);
    if (end == std::string_view::npos)
      return error("unterminated value of attribute '" + std::string(key) +
                   "'");
    e.attributes.emplace_back(std::string(key),
                              decode(s_.substr(pos_ + 2, end - pos_ - 2)));
    pos_ = end + 1;
  }
}

Status XmlParser::startTag() {
  ++pos_;
  XmlElement e;
  e.line = lineAt(pos_);
  e.name = std::string(name());
  if (e.name.empty())
    return error("a tag without a name");
  bool selfClosing = false;
  if (Status st = attributes(e, selfClosing); !st.ok())
    return st;
  XmlElement *placed;
  if (open_.empty()) {
    if (haveRoot_)
      return error("a second root element <" + e.name + ">");
    root_ = std::move(e);
    haveRoot_ = true;
    placed = &root_;
  } else {
    if (open_.size() >= static_cast<size_t>(kMaxDepth))
      return error("elements nested deeper than " + std::to_string(kMaxDepth));
    open_.back().first->children.push_back(std::move(e));
    placed = &open_.back().first->children.back();
  }
  if (selfClosing)
    return Status::success();
  if (placed->name == "AppendedData") {
    size_t start = pos_;
    if (Status st = skipTo("</AppendedData>", "<AppendedData>"); !st.ok())
      return st;
    placed->content = s_.substr(start, pos_ - start - 15);
    return Status::success();
  }
  open_.emplace_back(placed, pos_);
  return Status::success();
}

Status XmlParser::endTag() {
  size_t at = pos_;
  pos_ += 2;
  std::string_view n = name();
  while (pos_ < s_.size() && isSpace(s_[pos_]))
    ++pos_;
  if (pos_ >= s_.size() || s_[pos_] != '>')
    return error("unterminated end tag </" + std::string(n) + ">");
  ++pos_;
  if (open_.empty() || open_.back().first->name != n)
    return errorAt(at, "end tag </" + std::string(n) + "> where " +
                           (open_.empty() ? std::string("no element is open")
                                          : "</" + open_.back().first->name +
                                                "> was expected"));
  open_.back().first->content =
      s_.substr(open_.back().second, at - open_.back().second);
  open_.pop_back();
  return Status::success();
}

Status XmlParser::text(size_t end) {
  if (!open_.empty())
    return Status::success();
  for (size_t i = pos_; i < end; ++i)
    if (!isSpace(s_[i]))
      return errorAt(i, "text outside the root element");
  return Status::success();
}

Expected<XmlElement> XmlParser::parse() {
  while (pos_ < s_.size()) {
    size_t lt = std::min(s_.find('<', pos_), s_.size());
    if (Status st = text(lt); !st.ok())
      return st;
    pos_ = lt;
    if (pos_ >= s_.size())
      break;
    Status st;
    if (startsWith("<?"))
      st = skipTo("?>", "<?...?>");
    else if (startsWith("<!--"))
      st = skipTo("-->", "comment");
    else if (startsWith("<![CDATA["))
      st = skipTo("]]>", "CDATA section");
    else if (startsWith("<!"))
      st = skipTo(">", "<!...>");
    else if (startsWith("</"))
      st = endTag();
    else
      st = startTag();
    if (!st.ok())
      return st;
  }
  if (!open_.empty())
    return error("<" + open_.back().first->name + "> is never closed");
  if (!haveRoot_)
    return Status::invalid(name_ + ": no XML element in the file");
  return std::move(root_);
}

} // namespace

Expected<XmlElement> mesh::parseXml(const MeshText &file) {
  return XmlParser(file).parse();
}
