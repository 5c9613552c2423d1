#pragma once
#include <string>
namespace torch { struct Library { template <class... A> Library& def(A&&...) { return *this; } template <class... A> Library& impl(A&&...) { return *this; } }; }
#define TORCH_LIBRARY(ns, m) static void init_##ns(torch::Library& m); static void init_##ns(torch::Library& m)
