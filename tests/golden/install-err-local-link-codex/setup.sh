mkdir -p .codex ../outside && ln -s ../../outside .codex/skills
