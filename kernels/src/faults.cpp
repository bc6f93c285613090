#include "ccl/faults.h"

#include <atomic>
#include <cstdlib>
#include <sstream>

namespace ccl::faults {

namespace {

// Operations left before the failing one, per kind (0: disarmed); `armed` spares the
// unarmed path everything but one load.
std::atomic<uint64_t> remaining[kFaultKinds];
std::atomic<bool> armed{false};

void update_armed() {
  bool any = false;
  for (const auto& r : remaining) any |= r.load() != 0;
  armed.store(any);
}

bool parse_kind(const std::string& name, Fault* out) {
  for (Fault f : {Fault::DeviceAlloc, Fault::PinnedAlloc, Fault::Launch, Fault::Copy})
    if (name == to_string(f)) {
      *out = f;
      return true;
    }
  return false;
}

}  // namespace

const char* to_string(Fault kind) {
  switch (kind) {
    case Fault::DeviceAlloc: return "device-alloc";
    case Fault::PinnedAlloc: return "pinned-alloc";
    case Fault::Launch: return "launch";
    case Fault::Copy: return "copy";
  }
  return "?";
}

void arm(Fault kind, uint64_t k) {
  remaining[int(kind)].store(k);
  update_armed();
}

void disarm_all() {
  for (auto& r : remaining) r.store(0);
  armed.store(false);
}

bool arm_from_text(const std::string& text, std::string* why) {
  uint64_t parsed[kFaultKinds] = {};
  if (!text.empty() && text.back() == ',') {
    if (why) *why = "'" + text + "' ends with a comma";
    return false;
  }
  std::stringstream items(text);
  for (std::string item; std::getline(items, item, ',');) {
    const size_t colon = item.find(':');
    Fault kind{};
    if (colon == std::string::npos || !parse_kind(item.substr(0, colon), &kind)) {
      if (why) *why = "'" + item + "' is not kind:k (device-alloc, pinned-alloc, launch, copy)";
      return false;
    }
    const std::string count = item.substr(colon + 1);
    const bool digits = !count.empty() && count.size() < 20 &&
                        count.find_first_not_of("0123456789") == std::string::npos;
    const unsigned long long k = digits ? std::strtoull(count.c_str(), nullptr, 10) : 0;
    if (k == 0) {
      if (why) *why = "'" + item + "': k must be a number from 1";
      return false;
    }
    parsed[int(kind)] = k;
  }
  for (int i = 0; i < kFaultKinds; ++i) remaining[i].store(parsed[i]);
  update_armed();
  return true;
}

bool arm_from_environment(std::string* why) {
  const char* text = std::getenv("CCL_FAULT_INJECT");
  if (!text) return true;
  disarm_all();
  return arm_from_text(text, why);
}

bool fail_here(Fault kind) {
  if (!armed.load(std::memory_order_relaxed)) return false;
  auto& r = remaining[int(kind)];
  uint64_t left = r.load();
  while (left != 0)
    if (r.compare_exchange_weak(left, left - 1)) {
      if (left != 1) return false;
      update_armed();
      return true;
    }
  return false;
}

}  // namespace ccl::faults
