mkdir -p .git/hooks && ln -s .git/hooks kernels
