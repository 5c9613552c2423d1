ln -s sub kernels/sub2
