#pragma once
#include <cuda_runtime_api.h>
namespace c10 { namespace cuda { struct CUDAStream { cudaStream_t stream() const { return nullptr; } }; inline CUDAStream getCurrentCUDAStream(int = -1) { return {}; } } }
