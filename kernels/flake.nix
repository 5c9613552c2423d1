{
  description = "lit-kernels: norms, activations, rotary embeddings and GEMM for PyTorch";

  # kernel-builder's flake; `nix flake update` moves the pin in flake.lock.
  inputs.kernel-builder.url = "github:huggingface/kernels";

  outputs =
    { self, kernel-builder, ... }:
    kernel-builder.lib.genKernelFlakeOutputs {
      inherit self;
      path = ./.;
    };
}
