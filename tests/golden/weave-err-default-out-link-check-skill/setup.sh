mkdir -p ../outside/skill/t && echo secret >../outside/skill/t/secret.txt && ln -s ../outside build
