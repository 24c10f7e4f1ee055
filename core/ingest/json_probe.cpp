// json_has_kernel_dispatches (json_reader.hpp): a SAX pass that stops at the first kernel dispatch
// record, so that discovery can leave out a rocprofv3 JSON file that holds none.
#include "core/ingest/json_reader.hpp"

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/base/input_file.hpp"

namespace kprof::ingest {

namespace {

using Json = nlohmann::json;

// Stops at the first buffer_records.kernel_dispatch record of any process.
class DispatchProbe : public nlohmann::json_sax<Json> {
 public:
  bool found = false;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool key(string_t& k) override {
    m_key = k;
    return true;
  }
  bool start_object(std::size_t) override {
    const bool in_array = !m_stack.empty() && m_stack.back().first;
    const size_t n = m_stack.size();
    found = n == 5 && !m_stack[0].first && m_stack[1] == std::pair{true, k_tool} &&
            !m_stack[2].first && m_stack[3] == std::pair{false, std::string("buffer_records")} &&
            m_stack[4] == std::pair{true, std::string("kernel_dispatch")};
    m_stack.emplace_back(false, in_array ? std::string() : m_key);
    return !found;
  }
  bool start_array(std::size_t) override {
    const bool in_array = !m_stack.empty() && m_stack.back().first;
    m_stack.emplace_back(true, in_array ? std::string() : m_key);
    return true;
  }
  bool end_object() override { return pop(); }
  bool end_array() override { return pop(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool pop() {
    m_stack.pop_back();
    return true;
  }
  inline static const std::string k_tool = "rocprofiler-sdk-tool";
  std::vector<std::pair<bool, std::string>> m_stack;  // (array, key) of each open container
  std::string m_key;
};

}  // namespace

bool json_has_kernel_dispatches(const std::string& path) {
  kprof::InputStream f(std::fopen(path.c_str(), "rb"));
  if (!f) return true;
  DispatchProbe probe;
  const bool parsed = Json::sax_parse(f.get(), &probe);
  return probe.found || !parsed;
}

}  // namespace kprof::ingest
