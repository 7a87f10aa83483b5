// The kernel-name dictionary of a version 2 corpus: reading it strictly, resolving `@<id>` references, writing it.
#include "trace/kernel_dict.h"

#include "core/error.h"
#include "trace/name_tokens.h"

namespace loom::trace_io {
namespace {

std::string quoted(std::string_view s) { return "'" + std::string(s.substr(0, 40)) + (s.size() > 40 ? "...'" : "'"); }

}  // namespace

std::optional<int64_t> parse_kernel_id(std::string_view s) {
  if (s.empty() || s.size() > 9 || s[0] == '0') return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

std::string kernel_name_problem(std::string_view name) {
  if (name.empty()) return "an empty name";
  if (name.find(';') != std::string_view::npos) return "a name holding ';' (the kernels column's separator)";
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f) return "a name holding a control character";
  return "";
}

void KernelDictReader::add_line(std::string_view line, const std::string& where, int64_t line_no) {
  std::string_view rest = line.substr(kKernelLinePrefix.size());
  const size_t eq = rest.find('=');
  if (eq == std::string_view::npos)
    throw InputError(where, "kernel dictionary line without '='; write '#kernel.<id>=<demangled name>'");
  const std::string_view id_text = rest.substr(0, eq), name = rest.substr(eq + 1);
  const auto id = parse_kernel_id(id_text);
  if (!id)
    throw InputError(where, "kernel id " + quoted(id_text) +
                                " is not a positive integer without sign or leading zeros (at most 9 digits)");
  const std::string tag = "#kernel." + std::to_string(*id);
  if (auto it = by_id_.find(*id); it != by_id_.end())
    throw InputError(where, tag + " is defined twice (first at line " + std::to_string(it->second.line_no) +
                                "); give each id one line");
  if (std::string p = kernel_name_problem(name); !p.empty())
    throw InputError(where, tag + " has " + p + "; a name is one demangled kernel name");
  if (auto it = id_of_name_.find(name); it != id_of_name_.end())
    throw InputError(where, tag + " repeats the name of #kernel." + std::to_string(it->second) + " (line " +
                                std::to_string(by_id_.at(it->second).line_no) + "); one id per name");
  by_id_.emplace(*id, Entry{std::string(name), line_no, false});
  id_of_name_.emplace(std::string(name), *id);
}

std::string KernelDictReader::resolve(std::string_view field) {
  std::string out;
  if (field.empty()) return out;
  for (const std::string_view ref : name_tokens::split(field, ';')) {
    if (ref.empty() || ref[0] != '@')
      throw "kernels element " + quoted(ref) + " is not a reference '@<id>' (a '#loom-corpus 2' file names kernels " +
          "by the ids of its #kernel.<id> lines)";
    const auto id = parse_kernel_id(ref.substr(1));
    if (!id) throw "kernels reference " + quoted(ref) + " is not '@' and a positive integer without leading zeros";
    auto it = by_id_.find(*id);
    if (it == by_id_.end())
      throw "kernels reference " + std::string(ref) + ": no #kernel." + std::to_string(*id) +
          " line defines it (dictionary lines go before the CSV header)";
    it->second.used = true;
    if (!out.empty()) out += ';';
    out += it->second.name;
  }
  return out;
}

void KernelDictReader::check_all_used(const std::string& file) const {
  for (const auto& [id, e] : by_id_)
    if (!e.used)
      throw InputError(file + ":" + std::to_string(e.line_no),
                       "#kernel." + std::to_string(id) + " is defined but no row references it; remove the line");
}

std::string KernelDictWriter::encode(std::string_view kernels) {
  std::string out;
  if (kernels.empty()) return out;
  for (const std::string_view name : name_tokens::split(kernels, ';')) {
    auto it = id_of_name_.find(name);
    if (it == id_of_name_.end()) {
      names_.emplace_back(name);
      it = id_of_name_.emplace(std::string(name), int64_t(names_.size())).first;
    }
    if (!out.empty()) out += ';';
    out += "@" + std::to_string(it->second);
  }
  return out;
}

std::string KernelDictWriter::lines() const {
  std::string out;
  for (size_t i = 0; i < names_.size(); ++i)
    out += std::string(kKernelLinePrefix) + std::to_string(i + 1) + "=" + names_[i] + "\n";
  return out;
}

}  // namespace loom::trace_io
