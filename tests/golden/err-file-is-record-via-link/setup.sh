mkdir -p out && ln -s . out/same
