# a document outside the project, linked in
mkdir -p ../outside && printf "# secret\\n" > ../outside/secret.md && ln -s ../outside/secret.md notes.md
