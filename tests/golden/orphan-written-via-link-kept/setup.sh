ln -s . out/l
