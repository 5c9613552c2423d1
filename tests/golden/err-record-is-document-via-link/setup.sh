ln -s . same
