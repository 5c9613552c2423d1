mkdir -p ../outside && ln -s ../outside out
