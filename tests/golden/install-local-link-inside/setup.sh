mkdir -p conf && ln -s conf .claude
