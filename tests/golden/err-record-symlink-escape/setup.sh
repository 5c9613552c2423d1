mkdir -p ../elsewhere && ln -s ../elsewhere state
