mkdir -p ../outside && ln -s ../outside .claude
