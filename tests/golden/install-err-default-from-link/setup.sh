mkdir -p ../outside/skill/t && printf -- '---\nname: t\ndescription: Not ours.\n---\n# Not ours\n' >../outside/skill/t/SKILL.md && ln -s ../outside build
