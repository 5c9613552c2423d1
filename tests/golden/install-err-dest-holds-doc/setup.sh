# The install's folder, and a folder named like a killed install's old
# copy beside it, each holding one of the project's documents and a forged
# manifest (any digest: --force replaces a listed file whatever it holds):
# lit must remove neither.
mkdir -p .claude/skills/t .claude/skills/.t.lit-old-4194304 &&
  printf '# Notes\n\nProse.\n' >.claude/skills/t/notes.md &&
  printf '00000000000000000000000000000000  notes.md\n' >.claude/skills/t/.lit-manifest &&
  printf '# More\n\nProse.\n' >.claude/skills/.t.lit-old-4194304/more.md &&
  printf '00000000000000000000000000000000  more.md\n' >.claude/skills/.t.lit-old-4194304/.lit-manifest
