#!/bin/sh
# Function lengths in lines (universal-ctags' line and end fields) of the tree's non-test
# C and C++ sources, longest first: docs/architecture.md's figures for issue #21.
# Usage: scripts/function-sizes.sh [N]   (the N longest; default all)
cd "$(dirname "$0")/.." || exit 1
ctags --kinds-C=f --kinds-C++=f --fields=+ne -o - $(git ls-files '*.c' '*.cpp' | grep -v '^tests/\|^bench/') 2>/dev/null |
awk -F'\t' '{ln=0; en=0; for(i=4;i<=NF;i++){if($i~/^line:/){split($i,a,":");ln=a[2]} if($i~/^end:/){split($i,a,":");en=a[2]}} if(en>0) print en-ln+1, $2":"ln, $1}' |
sort -rn | head -n "${1:-1000000}"
