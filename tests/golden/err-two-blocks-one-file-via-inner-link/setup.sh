mkdir -p kernels/sub && ln -s sub kernels/sub2
