// The host compiler's view of the primitives' layout, linked into the nvcc-built suite.

#include "layout.hpp"

unisync::test::layout unisync::test::layout_seen_by_host_compiler() { return layout_of_primitives(); }
