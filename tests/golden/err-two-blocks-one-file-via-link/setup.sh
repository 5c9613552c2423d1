mkdir kernels && ln -s kernels k2
