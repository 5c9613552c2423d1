mkdir -p ../outside && ln -s ../outside build
