// The registry's lookup: ccl/algorithms.def names every algorithm, and each
// labelers/*.cu file supplies its labeler.
#include "labeler.h"

#include <string>

#include "ccl/cuda_engine.h"

namespace ccl::cuda {

const Labeler& labeler(Algorithm a) {
  switch (a) {
#define CCL_ALGORITHM(id, nick, title, description) \
  case Algorithm::id: return labeler_of<Algorithm::id>();
#include "ccl/algorithms.def"
#undef CCL_ALGORITHM
  }
  throw Error("unknown algorithm " + std::to_string(int(a)));
}

bool waits_on_host(Algorithm a) { return labeler(a).host_rounds(); }

}  // namespace ccl::cuda
