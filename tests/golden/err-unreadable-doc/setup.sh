rm a.md && mkdir a.md
