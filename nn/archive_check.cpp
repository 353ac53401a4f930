#include "nn/archive_check.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "core/text.h"

namespace ps::nn {

namespace {

[[noreturn]] void fail(const std::string& why) { throw ArchiveError(why); }

// ---------------------------------------------------------------------------------------------
// Zip container.

constexpr uint64_t kMaxRecordBytes = uint64_t(1) << 26;  // any non-tensor record, uncompressed
constexpr size_t kMaxEntries = 1 << 16;

uint64_t le(const std::string& b, uint64_t off, int n, const char* what) {
  if (off > b.size() || b.size() - off < uint64_t(n))
    fail(std::string("zip: ") + what + " at byte " + std::to_string(off) + " lies past the end");
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint64_t(uint8_t(b[off + i])) << (8 * i);
  return v;
}

struct Entry {
  std::string name;   // without the archive folder
  uint16_t method = 0;
  uint32_t crc = 0;
  uint64_t csize = 0, usize = 0, local = 0, data = 0;
};

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() <= 18 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}
bool ident_chars(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool known_record(const std::string& n) {
  static const std::set<std::string> fixed = {"data.pkl", "constants.pkl", "version", "byteorder",
                                              ".data/version", ".data/serialization_id",
                                              "code/__torch__.py", "code/__torch__.py.debug_pkl"};
  if (fixed.count(n)) return true;
  if (n.rfind("data/", 0) == 0) return all_digits(n.substr(5));
  const std::string code = "code/__torch__/";
  if (n.rfind(code, 0) == 0) {
    std::string rest = n.substr(code.size());
    for (const char* suffix : {".py.debug_pkl", ".py"}) {
      const size_t k = std::strlen(suffix);
      if (rest.size() > k && rest.compare(rest.size() - k, k, suffix) == 0)
        return ident_chars(rest.substr(0, rest.size() - k));
    }
  }
  return false;
}

// Where the central directory lies, from the end records: the offsets the entries are
// bounds-checked against.
struct ZipDirectory {
  uint64_t offset = 0, size = 0, entries = 0;
  uint64_t end = 0;  // where the end records begin (the zip64 record's start when there is one)
};

// The end of central directory record (and its zip64 record when there is one), checked
// against each other and against the file's size.
ZipDirectory read_zip_end(const std::string& b) {
  if (b.size() < 22) fail("zip: only " + std::to_string(b.size()) + " bytes");
  // End of central directory: the last signature from which the comment reaches the end.
  uint64_t eocd = UINT64_MAX;
  const uint64_t lowest = b.size() >= 22 + 0xFFFF ? b.size() - 22 - 0xFFFF : 0;
  for (uint64_t p = b.size() - 22 + 1; p-- > lowest;) {
    if (b.compare(p, 4, "PK\x05\x06", 4) == 0 && p + 22 + le(b, p + 20, 2, "comment length") == b.size()) {
      eocd = p;
      break;
    }
  }
  if (eocd == UINT64_MAX) fail("zip: no end of central directory record");
  uint64_t disk = le(b, eocd + 4, 2, "EOCD"), cd_disk = le(b, eocd + 6, 2, "EOCD");
  uint64_t n_disk = le(b, eocd + 8, 2, "EOCD"), n_total = le(b, eocd + 10, 2, "EOCD");
  uint64_t cd_size = le(b, eocd + 12, 4, "EOCD"), cd_off = le(b, eocd + 16, 4, "EOCD");
  uint64_t end_of_cd = eocd;
  if (eocd >= 20 && b.compare(eocd - 20, 4, "PK\x06\x07", 4) == 0) {
    const uint64_t off64 = le(b, eocd - 20 + 8, 8, "zip64 locator");
    if (off64 > eocd - 20 || eocd - 20 - off64 < 56 || b.compare(off64, 4, "PK\x06\x06", 4) != 0)
      fail("zip: bad zip64 end of central directory locator");
    const uint64_t rec = le(b, off64 + 4, 8, "zip64 EOCD");
    if (rec < 44 || off64 + 12 + rec != eocd - 20) fail("zip: bad zip64 end of central directory size");
    auto pick = [&](uint64_t classic, uint64_t wide, uint64_t saturated, const char* what) {
      if (classic != saturated && classic != wide)
        fail(std::string("zip: zip64 and classic end records disagree on the ") + what);
      return wide;
    };
    disk = pick(disk, le(b, off64 + 16, 4, "zip64 EOCD"), 0xFFFF, "disk");
    cd_disk = pick(cd_disk, le(b, off64 + 20, 4, "zip64 EOCD"), 0xFFFF, "disk");
    n_disk = pick(n_disk, le(b, off64 + 24, 8, "zip64 EOCD"), 0xFFFF, "entry count");
    n_total = pick(n_total, le(b, off64 + 32, 8, "zip64 EOCD"), 0xFFFF, "entry count");
    cd_size = pick(cd_size, le(b, off64 + 40, 8, "zip64 EOCD"), 0xFFFFFFFF, "directory size");
    cd_off = pick(cd_off, le(b, off64 + 48, 8, "zip64 EOCD"), 0xFFFFFFFF, "directory offset");
    end_of_cd = off64;
  }
  if (disk != 0 || cd_disk != 0 || n_disk != n_total) fail("zip: multi-disk archives are not ours");
  if (cd_off > end_of_cd || end_of_cd - cd_off != cd_size)
    fail("zip: the central directory (" + std::to_string(cd_size) + " bytes at " +
         std::to_string(cd_off) + ") does not end where the end records begin");
  if (n_total == 0 || n_total > kMaxEntries || n_total > cd_size / 46)
    fail("zip: implausible entry count " + std::to_string(n_total));
  return ZipDirectory{cd_off, cd_size, n_total, end_of_cd};
}

// Central directory entry `i` at byte p (within cd), its name in the archive's `folder` (set by
// the first entry) and not among `names` (the entries before it; added), and its local header:
// same name and method, the data before the central directory. Sets p to the next entry.
Entry read_zip_entry(const std::string& b, uint64_t& p, uint64_t i, const ZipDirectory& cd,
                     std::string& folder, std::set<std::string>& names) {
  const std::string at =
      "zip: central directory entry " + std::to_string(i) + " (byte " + std::to_string(p) + ")";
  if (p + 46 > cd.end || b.compare(p, 4, "PK\x01\x02", 4) != 0) fail(at + ": bad signature");
  Entry e;
  const uint64_t flags = le(b, p + 8, 2, "entry");
  e.method = uint16_t(le(b, p + 10, 2, "entry"));
  e.crc = uint32_t(le(b, p + 16, 4, "entry"));
  e.csize = le(b, p + 20, 4, "entry");
  e.usize = le(b, p + 24, 4, "entry");
  const uint64_t nlen = le(b, p + 28, 2, "entry"), xlen = le(b, p + 30, 2, "entry"),
                 clen = le(b, p + 32, 2, "entry");
  e.local = le(b, p + 42, 4, "entry");
  if (p + 46 + nlen + xlen + clen > cd.end) fail(at + ": runs past the central directory");
  std::string full = b.substr(p + 46, nlen);
  // zip64 extra field: the saturated sizes and offset, in this order.
  for (uint64_t x = p + 46 + nlen, xend = x + xlen; x + 4 <= xend;) {
    const uint64_t id = le(b, x, 2, "extra"), len = le(b, x + 2, 2, "extra");
    if (x + 4 + len > xend) fail(at + ": bad extra field");
    if (id == 1) {
      uint64_t q = x + 4;
      for (uint64_t* v : {&e.usize, &e.csize, &e.local})
        if (*v == 0xFFFFFFFF) {
          if (q + 8 > x + 4 + len) fail(at + ": short zip64 extra field");
          *v = le(b, q, 8, "zip64 extra");
          q += 8;
        }
    }
    x += 4 + len;
  }
  if (flags & 1) fail(at + ": encrypted");
  const size_t slash = full.find('/');
  if (slash == std::string::npos || slash == 0)
    fail(at + ": name " + quoted_text(full, 80) + " is not in a folder");
  if (folder.empty()) folder = full.substr(0, slash);
  if (full.compare(0, slash, folder) != 0 || full.size() == slash + 1)
    fail(at + ": name " + quoted_text(full, 80) + " is not in the archive's folder '" + folder + "'");
  e.name = full.substr(slash + 1);
  if (!known_record(e.name)) fail(at + ": unexpected record " + quoted_text(full, 80));
  if (!names.insert(e.name).second) fail(at + ": duplicate record " + quoted_text(full, 80));
  if (e.method != 0 && e.method != 8)
    fail(at + " (" + full + "): compression method " + std::to_string(e.method));
  if (e.method == 0 && e.csize != e.usize) fail(at + " (" + full + "): stored with two sizes");
  const bool tensor_data = e.name.rfind("data/", 0) == 0;
  if (tensor_data && e.method != 0) fail(at + " (" + full + "): tensor data must be stored");
  if (!tensor_data && e.usize > kMaxRecordBytes) fail(at + " (" + full + "): implausibly large");
  if (e.method == 8 && e.usize > e.csize * 1032 + 1024)
    fail(at + " (" + full + "): implausible compression ratio");
  // Local header: same name and method; the data follows it.
  const std::string lat =
      "zip: local header of " + quoted_text(full, 80) + " (byte " + std::to_string(e.local) + ")";
  if (e.local > cd.offset || cd.offset - e.local < 30 || b.compare(e.local, 4, "PK\x03\x04", 4) != 0)
    fail(lat + ": bad signature or outside the file");
  if ((le(b, e.local + 6, 2, "local header") & 1) || le(b, e.local + 8, 2, "local header") != e.method)
    fail(lat + ": disagrees with the central directory");
  const uint64_t lnlen = le(b, e.local + 26, 2, "local header"),
                 lxlen = le(b, e.local + 28, 2, "local header");
  if (lnlen != nlen || b.compare(e.local + 30, nlen, full) != 0)
    fail(lat + ": name disagrees with the central directory");
  e.data = e.local + 30 + lnlen + lxlen;
  if (e.data > cd.offset || cd.offset - e.data < e.csize)
    fail(lat + ": data (" + std::to_string(e.csize) + " bytes) runs past the central directory");
  p += 46 + nlen + xlen + clen;
  return e;
}

// The archive's entries: every central directory entry checked (read_zip_entry), the directory
// used up exactly, no two entries' bytes overlapping.
std::vector<Entry> read_zip(const std::string& b) {
  const ZipDirectory cd = read_zip_end(b);
  std::vector<Entry> entries;
  std::string folder;
  std::set<std::string> names;
  uint64_t p = cd.offset;
  for (uint64_t i = 0; i < cd.entries; ++i) entries.push_back(read_zip_entry(b, p, i, cd, folder, names));
  if (p != cd.end) fail("zip: the central directory holds bytes after its last entry");
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (const Entry& e : entries) spans.push_back({e.local, e.data + e.csize});
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i)
    if (spans[i].first < spans[i - 1].second) fail("zip: entries overlap at byte " + std::to_string(spans[i].first));
  return entries;
}

/// The entry's uncompressed bytes, CRC checked.
std::string entry_bytes(const std::string& b, const Entry& e) {
  std::string out;
  if (e.method == 0) {
    out = b.substr(e.data, e.csize);
  } else {
    out.resize(e.usize);
    z_stream z{};
    if (inflateInit2(&z, -15) != Z_OK) fail("zip: " + e.name + ": inflate failed to start");
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(b.data() + e.data));
    z.avail_in = uInt(e.csize);
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = uInt(out.size());
    const int ret = inflate(&z, Z_FINISH);
    const uint64_t produced = z.total_out;
    inflateEnd(&z);
    if (ret != Z_STREAM_END || produced != e.usize)
      fail("zip: " + e.name + ": bad deflate data (or not " + std::to_string(e.usize) + " bytes)");
  }
  uLong crc = crc32(0L, Z_NULL, 0);
  for (uint64_t off = 0; off < out.size();) {
    const uInt n = uInt(std::min<uint64_t>(out.size() - off, 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(out.data() + off), n);
    off += n;
  }
  if (uint32_t(crc) != e.crc) fail("zip: " + e.name + ": CRC-32 mismatch (the record is corrupted)");
  return out;
}

// ---------------------------------------------------------------------------------------------
// TorchScript class declarations (code/*.py).

struct Type {
  enum Kind { kTensor, kStr, kInt, kFloat, kBool, kClass, kTuple } kind = kTensor;
  std::string cls;          // kClass: qualified name
  std::vector<int> items;   // kTuple: element kinds (Tensor, str, int, float, bool)
};

struct ClassDecl {
  std::map<std::string, Type> attrs;
};

Type parse_type(const std::string& t, const std::string& where) {
  static const std::map<std::string, Type::Kind> simple = {
      {"Tensor", Type::kTensor}, {"str", Type::kStr}, {"int", Type::kInt},
      {"float", Type::kFloat}, {"bool", Type::kBool}};
  auto it = simple.find(t);
  if (it != simple.end()) return Type{it->second, "", {}};
  // Tuple[float, float] (e.g. AdamW's betas): up to 8 simple element types.
  if (t.rfind("Tuple[", 0) == 0 && t.back() == ']') {
    Type tuple{Type::kTuple, "", {}};
    const std::string inner = t.substr(6, t.size() - 7);
    for (size_t i = 0; i <= inner.size() && tuple.items.size() <= 8;) {
      size_t j = inner.find(", ", i);
      if (j == std::string::npos) j = inner.size();
      auto e = simple.find(inner.substr(i, j - i));
      if (e == simple.end()) break;
      tuple.items.push_back(e->second);
      if (j == inner.size()) return tuple;
      i = j + 2;
    }
  }
  const std::string pre = "__torch__.", post = ".Module";
  if (t == "__torch__.Module") return Type{Type::kClass, t, {}};
  if (t.size() > pre.size() + post.size() && t.compare(0, pre.size(), pre) == 0 &&
      t.compare(t.size() - post.size(), post.size(), post) == 0 &&
      ident_chars(t.substr(pre.size(), t.size() - pre.size() - post.size())))
    return Type{Type::kClass, t, {}};
  fail(where + ": type " + quoted_text(t, 80) + " is not one an archive of ours declares");
}

/// A double-quoted name of [A-Za-z0-9_/.] characters.
bool quoted_name(const std::string& s, size_t& i, std::string* out) {
  if (i >= s.size() || s[i] != '"') return false;
  const size_t j = s.find('"', i + 1);
  if (j == std::string::npos || j == i + 1) return false;
  std::string n = s.substr(i + 1, j - i - 1);
  for (char c : n)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '/' || c == '.'))
      return false;
  *out = n;
  i = j + 1;
  return true;
}

ClassDecl parse_class(const std::string& text, const std::string& file) {
  ClassDecl c;
  std::vector<std::string> lines;
  for (size_t i = 0; i <= text.size();) {
    size_t j = text.find('\n', i);
    if (j == std::string::npos) j = text.size();
    lines.push_back(text.substr(i, j - i));
    i = j + 1;
  }
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (lines.empty() || lines[0] != "class Module(Module):")
    fail(file + ": line 1 is not 'class Module(Module):'");
  std::vector<std::string> tensors;  // __parameters__ and __buffers__ entries
  bool annotations = false;
  for (size_t ln = 1; ln < lines.size(); ++ln) {
    const std::string& l = lines[ln];
    const std::string where = file + ":" + std::to_string(ln + 1);
    auto add = [&](const std::string& name, const std::string& type) {
      if (!c.attrs.emplace(name, parse_type(type, where)).second)
        fail(where + ": attribute " + quoted_text(name, 80) + " declared twice");
    };
    bool list_line = false;
    for (const char* head : {"  __parameters__ = [", "  __buffers__ = ["}) {
      const std::string h = head;
      if (l.compare(0, h.size(), h) != 0) continue;
      list_line = true;
      size_t i = h.size();
      std::string n;
      while (quoted_name(l, i, &n)) {
        if (l.compare(i, 2, ", ") != 0) fail(where + ": malformed list");
        i += 2;
        tensors.push_back(n);
      }
      if (i + 1 != l.size() || l[i] != ']') fail(where + ": malformed list");
    }
    if (list_line) continue;
    if (l == "  __annotations__ = []") {
      annotations = true;
      continue;
    }
    const std::string ah = "  __annotations__[";
    if (l.compare(0, ah.size(), ah) == 0) {
      size_t i = ah.size();
      std::string n;
      if (!annotations || !quoted_name(l, i, &n) || l.compare(i, 4, "] = ") != 0)
        fail(where + ": malformed annotation");
      add(n, l.substr(i + 4));
      continue;
    }
    const size_t colon = l.find(" : ");
    if (l.compare(0, 2, "  ") == 0 && colon != std::string::npos && ident_chars(l.substr(2, colon - 2)) &&
        l.substr(2, 2) != "__") {
      add(l.substr(2, colon - 2), l.substr(colon + 3));
      continue;
    }
    fail(where + ": " + quoted_text(l, 80) + " is not a declaration an archive of ours holds");
  }
  for (const std::string& n : tensors) {
    auto it = c.attrs.find(n);
    if (it == c.attrs.end() || it->second.kind != Type::kTensor)
      fail(file + ": parameter or buffer " + quoted_text(n, 80) + " is not a declared Tensor");
  }
  return c;
}

void check_class_graph(const std::map<std::string, ClassDecl>& classes) {
  // Every referenced class is declared; no class contains itself (depth-first, colours).
  std::map<std::string, int> colour;
  std::vector<std::pair<std::string, std::map<std::string, Type>::const_iterator>> stack;
  for (const auto& root : classes) {
    if (colour[root.first]) continue;
    colour[root.first] = 1;
    stack.push_back({root.first, root.second.attrs.begin()});
    while (!stack.empty()) {
      auto& [name, it] = stack.back();
      const ClassDecl& decl = classes.at(name);
      if (it == decl.attrs.end()) {
        colour[name] = 2;
        stack.pop_back();
        continue;
      }
      const Type& t = (it++)->second;
      if (t.kind != Type::kClass) continue;
      if (!classes.count(t.cls))
        fail("code: class " + name + " refers to undeclared class " + t.cls);
      int& c = colour[t.cls];
      if (c == 1) fail("code: class " + t.cls + " contains itself");
      if (c == 0) {
        c = 1;
        stack.push_back({t.cls, classes.at(t.cls).attrs.begin()});
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Pickles.

enum class V { kMark, kNone, kBool, kInt, kFloat, kStr, kTuple, kList, kDict, kGlobal, kObject,
               kStorage, kTensor };

struct Val {
  V kind = V::kNone;
  int64_t i = 0;           // kInt, kBool; kStorage: numel
  std::string s;           // kStr; kGlobal: "module name"; kObject: class; kStorage: record key
  std::vector<int> items;  // tuple/list items, dict key/value pairs
  int depth = 1;
  bool consumed = false;   // placed inside another value: frozen from then on
  bool built = false;      // kObject: BUILD done
};

struct PickleRules {
  const std::map<std::string, ClassDecl>* classes = nullptr;  // objects allowed when set
  const std::map<std::string, uint64_t>* storages = nullptr;  // record key -> bytes
  bool build_intlist = false;
};

constexpr int kMaxDepth = 64;

class Unpickler {
 public:
  Unpickler(const std::string& data, const std::string& file, const PickleRules& rules)
      : d_(data), file_(file), rules_(rules) {}

  /// Runs to STOP; returns the index of the result. The pickle opcodes as one switch over the
  /// shared stack and memo; an opcode of more than a line or two has a function of its own.
  int run() {
    while (true) {
      if (pos_ >= d_.size()) bad("ends without STOP");
      op_at_ = pos_;
      const uint8_t op = uint8_t(d_[pos_++]);
      switch (op) {
        case 0x80:  // PROTO
          if (u(1) > 2) bad("pickle protocol above 2");
          break;
        case '.':  // STOP
          return stop();
        case '(': push(make(V::kMark)); break;
        case 'N': push(make(V::kNone)); break;
        case 0x88: case 0x89: { int v = make(V::kBool); vals_[v].i = op == 0x88; push(v); break; }
        case 'J': { int v = make(V::kInt); vals_[v].i = int32_t(uint32_t(u(4))); push(v); break; }
        case 'K': { int v = make(V::kInt); vals_[v].i = int64_t(u(1)); push(v); break; }
        case 'M': { int v = make(V::kInt); vals_[v].i = int64_t(u(2)); push(v); break; }
        case 0x8a:  // LONG1
          push_long1();
          break;
        case 'G':  // BINFLOAT
          push_binfloat();
          break;
        case 'X':   // BINUNICODE
        case 0x8c:  // SHORT_BINUNICODE
          push_unicode(op == 'X' ? 4 : 1);
          break;
        case 'c':  // GLOBAL
          push_global();
          break;
        case ')': push(make(V::kTuple)); break;
        case ']': push(make(V::kList)); break;
        case '}': push(make(V::kDict)); break;
        case 't': { auto items = pop_mark(); push(container(V::kTuple, items)); break; }
        case 0x85:  // TUPLE1
        case 0x86:  // TUPLE2
        case 0x87:  // TUPLE3
          push_tuple(op - 0x84);
          break;
        case 'a': { int x = pop(); add_to(top(V::kList, "APPEND"), {x}); break; }
        case 'e': { auto items = pop_mark(); add_to(top(V::kList, "APPENDS"), items); break; }
        case 's': {
          int val = pop(), key = pop();
          add_to(top(V::kDict, "SETITEM"), {key, val});
          break;
        }
        case 'u': {
          auto items = pop_mark();
          if (items.size() % 2) bad("SETITEMS with an odd number of items");
          add_to(top(V::kDict, "SETITEMS"), items);
          break;
        }
        case 'q': memo_put(u(1)); break;
        case 'r': memo_put(u(4)); break;
        case 'h': memo_get(u(1)); break;
        case 'j': memo_get(u(4)); break;
        case 'Q': push(persistent(pop())); break;
        case 'R': {
          int args = pop(), fn = pop();
          push(reduce(fn, args));
          break;
        }
        case 0x81: {  // NEWOBJ
          int args = pop(), cls = pop();
          push(newobj(cls, args));
          break;
        }
        case 'b': {
          int state = pop();
          build(top(V::kObject, "BUILD"), state);
          break;
        }
        default:
          bad("opcode 0x" + hex(op) + " is not one the TorchScript pickler writes");
      }
    }
  }

  const Val& val(int i) const { return vals_[size_t(i)]; }

 private:
  // STOP: the one value on the stack, which is the whole pickle.
  int stop() {
    if (stack_.size() != 1 || vals_[stack_[0]].kind == V::kMark)
      bad("STOP with a stack of " + std::to_string(stack_.size()));
    if (pos_ != d_.size()) bad("bytes after STOP");
    return stack_[0];
  }
  // LONG1: a little-endian two's complement integer of at most 8 bytes.
  void push_long1() {
    const uint64_t n = u(1);
    if (n > 8) bad("integer of " + std::to_string(n) + " bytes");
    uint64_t x = u(int(n));
    if (n > 0 && n < 8 && (x >> (8 * n - 1)) & 1) x |= ~uint64_t(0) << (8 * n);  // sign
    int v = make(V::kInt);
    vals_[v].i = int64_t(x);
    push(v);
  }
  // BINFLOAT, big-endian (its value is not needed).
  void push_binfloat() {
    uint64_t x = 0;
    need(8);
    for (int k = 0; k < 8; ++k) x = (x << 8) | uint8_t(d_[pos_ + k]);
    pos_ += 8;
    push(make(V::kFloat));
    (void)x;
  }
  // BINUNICODE (a 4-byte length) or SHORT_BINUNICODE (1 byte).
  void push_unicode(int length_bytes) {
    const uint64_t n = u(length_bytes);
    need(n);
    int v = make(V::kStr);
    vals_[v].s = d_.substr(pos_, n);
    pos_ += n;
    push(v);
  }
  // GLOBAL "module\nname\n", one the archive may name.
  void push_global() {
    std::string mod = line(), name = line();
    int v = make(V::kGlobal);
    vals_[v].s = mod + " " + name;
    check_global(vals_[v].s);
    push(v);
  }
  // TUPLE1, TUPLE2, TUPLE3: the top n values as a tuple.
  void push_tuple(int n) {
    std::vector<int> items(n);
    for (int k = n; k-- > 0;) items[k] = pop();
    push(container(V::kTuple, items));
  }

  [[noreturn]] void bad(const std::string& why) const {
    fail(file_ + ", byte " + std::to_string(op_at_) + ": " + why);
  }
  static std::string hex(uint8_t b) {
    const char* d = "0123456789abcdef";
    return std::string{d[b >> 4], d[b & 15]};
  }
  void need(uint64_t n) {
    if (pos_ > d_.size() || d_.size() - pos_ < n) bad("truncated");
  }
  uint64_t u(int n) {
    need(uint64_t(n));
    uint64_t v = 0;
    for (int k = 0; k < n; ++k) v |= uint64_t(uint8_t(d_[pos_ + k])) << (8 * k);
    pos_ += uint64_t(n);
    return v;
  }
  std::string line() {
    const size_t j = d_.find('\n', pos_);
    if (j == std::string::npos || j - pos_ > 200) bad("bad GLOBAL");
    std::string s = d_.substr(pos_, j - pos_);
    pos_ = j + 1;
    return s;
  }
  int make(V kind) {
    vals_.emplace_back();
    vals_.back().kind = kind;
    return int(vals_.size() - 1);
  }
  void push(int v) {
    if (stack_.size() > (1u << 20)) bad("stack too deep");
    stack_.push_back(v);
  }
  int pop() {
    if (stack_.empty() || vals_[stack_.back()].kind == V::kMark) bad("pops from an empty stack");
    int v = stack_.back();
    stack_.pop_back();
    return v;
  }
  std::vector<int> pop_mark() {
    size_t k = stack_.size();
    while (k > 0 && vals_[stack_[k - 1]].kind != V::kMark) --k;
    if (k == 0) bad("no MARK");
    std::vector<int> items(stack_.begin() + long(k), stack_.end());
    stack_.resize(k - 1);
    return items;
  }
  int top(V kind, const char* what) {
    if (stack_.empty() || vals_[stack_.back()].kind != kind) bad(std::string(what) + " on the wrong kind of value");
    const int v = stack_.back();
    if (vals_[v].consumed) bad(std::string(what) + " on a value already placed inside another");
    return v;
  }
  void consume(int parent, int child) {
    Val& c = vals_[child];
    if (c.kind == V::kMark) bad("MARK used as a value");
    if (child == parent) bad("a value inside itself");
    c.consumed = true;
    vals_[parent].depth = std::max(vals_[parent].depth, c.depth + 1);
    if (vals_[parent].depth > kMaxDepth) bad("values nested deeper than " + std::to_string(kMaxDepth));
  }
  int container(V kind, const std::vector<int>& items) {
    int v = make(kind);
    for (int x : items) consume(v, x);
    vals_[v].items = items;
    return v;
  }
  void add_to(int c, const std::vector<int>& items) {
    for (int x : items) consume(c, x);
    if (vals_[c].kind == V::kDict)
      for (size_t k = 0; k < items.size(); k += 2)
        if (vals_[items[k]].kind != V::kStr && vals_[items[k]].kind != V::kInt)
          bad("dict key that is not a string or integer");
    vals_[c].items.insert(vals_[c].items.end(), items.begin(), items.end());
  }
  void memo_put(uint64_t k) {
    if (stack_.empty() || vals_[stack_.back()].kind == V::kMark) bad("PUT of nothing");
    if (k > d_.size()) bad("memo index " + std::to_string(k) + " out of range");
    memo_[k] = stack_.back();
  }
  void memo_get(uint64_t k) {
    auto it = memo_.find(k);
    if (it == memo_.end()) bad("GET of memo " + std::to_string(k) + ", never PUT");
    push(it->second);
  }
  void check_global(const std::string& g) {
    if (g == "torch._utils _rebuild_tensor_v2" || g == "collections OrderedDict") {
      if (!rules_.classes) bad("global " + g + " outside data.pkl");
      return;
    }
    if (g == "torch.jit._pickle build_intlist" && rules_.build_intlist) return;
    if (g.size() > 6 && g.compare(g.size() - 7, 7, "Storage") == 0 && g.rfind("torch ", 0) == 0 &&
        rules_.storages && element_size(g) > 0)
      return;
    if (rules_.classes && g.rfind("__torch__", 0) == 0) {
      const size_t sp = g.find(' ');
      if (rules_.classes->count(g.substr(0, sp) + "." + g.substr(sp + 1))) return;
      bad("class " + quoted_text(g, 80) + " is not declared in code/");
    }
    bad("global " + quoted_text(g, 80) + " is not allowed");
  }
  static int element_size(const std::string& g) {
    static const std::map<std::string, int> sizes = {
        {"torch FloatStorage", 4}, {"torch DoubleStorage", 8}, {"torch HalfStorage", 2},
        {"torch BFloat16Storage", 2}, {"torch LongStorage", 8}, {"torch IntStorage", 4},
        {"torch ShortStorage", 2}, {"torch CharStorage", 1}, {"torch ByteStorage", 1},
        {"torch BoolStorage", 1}};
    auto it = sizes.find(g);
    return it == sizes.end() ? 0 : it->second;
  }
  bool is(int v, V kind) const { return vals_[v].kind == kind; }
  int persistent(int pid) {
    const Val& t = vals_[pid];
    if (!rules_.storages || t.kind != V::kTuple || t.items.size() != 5 || !is(t.items[0], V::kStr) ||
        vals_[t.items[0]].s != "storage" || !is(t.items[1], V::kGlobal) || !is(t.items[2], V::kStr) ||
        !is(t.items[3], V::kStr) || !is(t.items[4], V::kInt))
      bad("persistent id is not ('storage', <type>, key, location, numel)");
    const int es = element_size(vals_[t.items[1]].s);
    const std::string key = vals_[t.items[2]].s;  // copies: make() below may move vals_
    const std::string loc = vals_[t.items[3]].s;
    const int64_t numel = vals_[t.items[4]].i;
    if (es == 0) bad("storage type " + vals_[t.items[1]].s);
    if (!(loc == "cpu" || loc == "cuda" || (loc.rfind("cuda:", 0) == 0 && all_digits(loc.substr(5)))))
      bad("storage location " + quoted_text(loc, 40));
    auto it = rules_.storages->find(key);
    if (it == rules_.storages->end()) bad("storage " + quoted_text(key, 40) + " has no data record");
    if (numel < 0 || uint64_t(numel) > it->second / uint64_t(es))
      bad("storage " + key + " claims " + std::to_string(numel) + " elements, its record holds " +
          std::to_string(it->second) + " bytes");
    int v = make(V::kStorage);
    vals_[v].s = key;
    vals_[v].i = numel;
    return v;
  }
  std::vector<int64_t> ints(int tuple, const char* what) {
    if (!is(tuple, V::kTuple) || vals_[tuple].items.size() > 8) bad(std::string(what) + " is not a tuple of at most 8 integers");
    std::vector<int64_t> out;
    for (int x : vals_[tuple].items) {
      if (!is(x, V::kInt) || vals_[x].i < 0 || vals_[x].i > (int64_t(1) << 40))
        bad(std::string(what) + " holds a bad integer");
      out.push_back(vals_[x].i);
    }
    return out;
  }
  int reduce(int fn, int args) {
    if (!is(fn, V::kGlobal) || !is(args, V::kTuple)) bad("REDUCE of a non-global or without an argument tuple");
    const std::string g = vals_[fn].s;  // copies: make() below may move vals_
    const std::vector<int> a = vals_[args].items;
    int out;
    if (g == "collections OrderedDict") {
      if (!a.empty()) bad("OrderedDict with arguments");
      out = make(V::kDict);
    } else if (g == "torch._utils _rebuild_tensor_v2") {
      if (a.size() != 6 || !is(a[0], V::kStorage) || !is(a[1], V::kInt) || !is(a[4], V::kBool) ||
          !is(a[5], V::kDict) || !vals_[a[5]].items.empty())
        bad("_rebuild_tensor_v2 arguments are not (storage, offset, sizes, strides, bool, {})");
      const std::vector<int64_t> size = ints(a[2], "tensor size"), stride = ints(a[3], "tensor stride");
      const int64_t offset = vals_[a[1]].i, numel = vals_[a[0]].i;
      if (size.size() != stride.size()) bad("tensor sizes and strides differ in length");
      if (offset < 0) bad("negative tensor offset");
      // Last element's index must lie inside the storage (all sizes > 0), checked without overflow.
      __int128 last = offset;
      bool empty = false;
      for (size_t k = 0; k < size.size(); ++k) {
        if (size[k] == 0) empty = true;
        else last += __int128(size[k] - 1) * stride[k];
      }
      if (!empty && last >= numel) bad("tensor reaches past the end of its storage");
      out = make(V::kTensor);
    } else if (g == "torch.jit._pickle build_intlist") {
      if (a.size() != 1 || !is(a[0], V::kList)) bad("build_intlist without a list");
      for (int x : vals_[a[0]].items)
        if (!is(x, V::kInt)) bad("build_intlist of a non-integer");
      out = make(V::kList);
    } else {
      bad("REDUCE of " + g);
    }
    consume(out, fn);
    consume(out, args);
    return out;
  }
  int newobj(int cls, int args) {
    if (!is(cls, V::kGlobal) || !rules_.classes || vals_[cls].s.rfind("__torch__", 0) != 0 ||
        !is(args, V::kTuple) || !vals_[args].items.empty())
      bad("NEWOBJ is not a declared class with no arguments");
    const std::string g = vals_[cls].s;  // a copy: make() may move vals_
    int v = make(V::kObject);
    vals_[v].s = g.substr(0, g.find(' ')) + "." + g.substr(g.find(' ') + 1);
    consume(v, cls);
    consume(v, args);
    return v;
  }
  bool fits(const Val& x, const Type& t) const {
    switch (t.kind) {
      case Type::kTensor: return x.kind == V::kTensor;
      case Type::kStr: return x.kind == V::kStr;
      case Type::kInt: return x.kind == V::kInt;
      case Type::kFloat: return x.kind == V::kFloat;
      case Type::kBool: return x.kind == V::kBool;
      case Type::kClass: return x.kind == V::kObject && x.s == t.cls && x.built;
      case Type::kTuple:
        if (x.kind != V::kTuple || x.items.size() != t.items.size()) return false;
        for (size_t k = 0; k < t.items.size(); ++k)
          if (!fits(vals_[x.items[k]], Type{Type::Kind(t.items[k]), "", {}})) return false;
        return true;
    }
    return false;
  }
  void build(int obj, int state) {
    Val& o = vals_[obj];
    if (o.built) bad("BUILD twice");
    if (!is(state, V::kDict)) bad("object state is not a dict");
    auto cls = rules_.classes->find(o.s);
    if (cls == rules_.classes->end()) bad("object of undeclared class " + quoted_text(o.s, 80));
    const ClassDecl& decl = cls->second;
    const std::vector<int>& kv = vals_[state].items;
    std::set<std::string> seen;
    for (size_t k = 0; k < kv.size(); k += 2) {
      if (!is(kv[k], V::kStr)) bad("object attribute name is not a string");
      const std::string& name = vals_[kv[k]].s;
      auto it = decl.attrs.find(name);
      if (it == decl.attrs.end()) bad(o.s + " has no attribute " + quoted_text(name, 80));
      if (!seen.insert(name).second) bad(o.s + "." + name + " set twice");
      const Val& x = vals_[kv[k + 1]];
      const Type& t = it->second;
      if (!fits(x, t)) bad(o.s + "." + name + " does not hold its declared type");
    }
    if (seen.size() != decl.attrs.size()) bad(o.s + " is missing attributes");
    consume(obj, state);
    vals_[obj].built = true;
  }

  const std::string& d_;
  std::string file_;
  PickleRules rules_;
  size_t pos_ = 0, op_at_ = 0;
  std::vector<Val> vals_;
  std::vector<int> stack_;
  std::map<uint64_t, int> memo_;
};

}  // namespace

void check_torch_archive(const std::string& payload) {
  const std::vector<Entry> entries = read_zip(payload);
  std::map<std::string, const Entry*> by_name;
  for (const Entry& e : entries) by_name[e.name] = &e;
  for (const char* required : {"data.pkl", "version"})
    if (!by_name.count(required)) fail(std::string("zip: no '") + required + "' record");

  // CRC of everything; small records kept for the checks below.
  std::map<std::string, uint64_t> storages;
  std::map<std::string, ClassDecl> classes;
  std::map<std::string, std::string> pickles;
  for (const Entry& e : entries) {
    const std::string bytes = entry_bytes(payload, e);
    if (e.name.rfind("data/", 0) == 0) {
      storages[e.name.substr(5)] = e.usize;
    } else if (e.name == "version" || e.name == ".data/version") {
      std::string v = bytes;
      while (!v.empty() && (v.back() == '\n' || v.back() == '\r')) v.pop_back();
      if (!all_digits(v) || v.size() > 3 || std::stoi(v) < 1 || std::stoi(v) > 20)
        fail("zip: " + e.name + " record is " + quoted_text(bytes, 40));
    } else if (e.name == "byteorder") {
      if (bytes != "little") fail("zip: byteorder record is " + quoted_text(bytes, 40));
    } else if (e.name == ".data/serialization_id") {
      if (bytes.size() > 64 || !all_digits(bytes.substr(0, 18)))
        fail("zip: serialization_id record is " + quoted_text(bytes, 40));
    } else if (e.name.size() > 3 && e.name.compare(e.name.size() - 3, 3, ".py") == 0) {
      std::string qual = e.name == "code/__torch__.py"
                             ? std::string("__torch__.Module")
                             : "__torch__." + e.name.substr(15, e.name.size() - 15 - 3) + ".Module";
      classes[qual] = parse_class(bytes, e.name);
    } else {
      pickles[e.name] = bytes;  // data.pkl, constants.pkl, *.debug_pkl
    }
  }
  check_class_graph(classes);
  if (!classes.count("__torch__.Module")) fail("code: no class __torch__.Module");

  for (const auto& [name, bytes] : pickles) {
    PickleRules rules;
    if (name == "data.pkl") {
      rules.classes = &classes;
      rules.storages = &storages;
    } else if (name != "constants.pkl") {
      rules.build_intlist = true;  // source-range debug records
    }
    Unpickler up(bytes, name, rules);
    const int root = up.run();
    if (name == "data.pkl") {
      const Val& r = up.val(root);
      if (r.kind != V::kObject || r.s != "__torch__.Module" || !r.built)
        fail("data.pkl: the root is not a built __torch__.Module");
    } else if (name == "constants.pkl" && up.val(root).kind != V::kTuple) {
      fail("constants.pkl: not a tuple");
    }
  }
}

}  // namespace ps::nn
