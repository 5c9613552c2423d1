mkdir -p out ../outside/sub && echo secret >../outside/secret.txt && echo keep >../outside/sub/keep.c && ln -s ../../outside out/t
