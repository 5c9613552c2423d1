#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include <tuple>
#include <ostream>
namespace c10 {
template <class T> using optional = std::optional<T>;
inline constexpr std::nullopt_t nullopt = std::nullopt;
enum class ScalarType { Float, Half, BFloat16, Int, Long, Double, Float8_e4m3fn, Byte };
inline std::ostream& operator<<(std::ostream& o, ScalarType) { return o; }
enum class MemoryFormat { Contiguous, Preserve };
enum DeviceType { kCUDA, kCPU };
struct Device { int index() const { return 0; } bool operator==(const Device&) const { return true; } bool operator!=(const Device&) const { return false; } bool is_cuda() const { return true; } };
inline std::ostream& operator<<(std::ostream& o, Device) { return o; }
struct IntArrayRef { const int64_t* begin() const { return nullptr; } const int64_t* end() const { return nullptr; } size_t size() const { return 0; } bool operator==(const IntArrayRef&) const { return true; } bool operator!=(const IntArrayRef&) const { return false; } int64_t operator[](size_t) const { return 0; } int64_t back() const {return 0;} std::vector<int64_t> vec() const { return {}; } };
inline std::ostream& operator<<(std::ostream& o, IntArrayRef) { return o; }
struct TensorOptions { TensorOptions memory_format(MemoryFormat) const { return *this; } TensorOptions dtype(ScalarType) const { return *this; } };
}
namespace at {
using c10::ScalarType; using c10::MemoryFormat; using c10::IntArrayRef; using c10::Device; using c10::TensorOptions;
constexpr ScalarType kFloat = ScalarType::Float, kHalf = ScalarType::Half, kBFloat16 = ScalarType::BFloat16, kInt = ScalarType::Int, kLong = ScalarType::Long,
                     kFloat8_e4m3fn = ScalarType::Float8_e4m3fn, kByte = ScalarType::Byte;
struct Tensor {
  bool defined() const; bool is_cuda() const; Device device() const; ScalarType scalar_type() const;
  int64_t dim() const; int64_t size(int64_t) const; IntArrayRef sizes() const; int64_t stride(int64_t) const; IntArrayRef strides() const;
  bool is_contiguous() const; void* data_ptr() const; template <class T> T* data_ptr() const; int64_t numel() const; TensorOptions options() const;
  int64_t element_size() const; Tensor t() const; Tensor contiguous() const; Tensor view(IntArrayRef) const; Tensor reshape(IntArrayRef) const;
  int64_t storage_offset() const; Tensor slice(int64_t, int64_t, int64_t) const; Tensor narrow(int64_t, int64_t, int64_t) const;
  ScalarType dtype() const; Tensor select(int64_t, int64_t) const; bool is_same(const Tensor&) const;
  bool requires_grad() const; Tensor& addmm_(const Tensor&, const Tensor&);
};
Tensor empty(IntArrayRef, TensorOptions); Tensor empty(std::vector<int64_t>, TensorOptions);
Tensor zeros(IntArrayRef, TensorOptions); Tensor zeros(std::vector<int64_t>, TensorOptions);
Tensor ones(IntArrayRef, TensorOptions); Tensor ones(std::vector<int64_t>, TensorOptions);
Tensor& mm_out(Tensor&, const Tensor&, const Tensor&);
}
#define TORCH_CHECK(cond, ...) do { if (!(cond)) throw 1; } while (0)
#define TORCH_WARN(...) do { } while (0)
#define TORCH_WARN_ONCE(...) do { } while (0)
