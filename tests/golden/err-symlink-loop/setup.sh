# Links that lead back to themselves: a loop, not a link that leads out
mkdir -p out && ln -s loop out/loop && ln -s b out/a && ln -s a out/b && ln -s state state
