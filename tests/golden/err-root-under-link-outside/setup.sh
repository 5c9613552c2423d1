# par leads out of the project; par/out does not exist yet
mkdir -p ../outside && ln -s ../outside par
