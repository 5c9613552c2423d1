# Names git keeps awkwardly: a newline, an escape, a Latin-1 byte, a C1 control.
for n in "$(printf 'b\nint injected;')" "$(printf 'c\033[31m')" "$(printf 'd\351')" "$(printf 'e\302\23331m')"; do
  printf '# X\n\n```{.c file=out/%s.c}\nint x;\n```\n' "$(printf '%s' "$n" | head -c 1)" >"docs/$n.md"
done
