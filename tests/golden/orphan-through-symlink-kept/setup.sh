mkdir -p out && ln -s ../elsewhere out/link
